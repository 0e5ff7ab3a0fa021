import Foundation

/// Order statistics of small windows without sorting them, for the median filters of the
/// features (the chroma's and the harmonic/percussive separation's): selection networks of
/// branch-free minima and maxima for the common window lengths, and a partial insertion
/// selection for the others.
enum OrderStatistics {
    /// The median (third smallest) of five values by minima and maxima:
    /// `median3(e, max(min(a, b), min(c, d)), min(max(a, b), max(c, d)))` (the larger of
    /// each pair's smaller and the smaller of each pair's larger bracket the median of four).
    @inline(__always)
    static func median5(_ a: Float, _ b: Float, _ c: Float, _ d: Float, _ e: Float) -> Float {
        let f = max(min(a, b), min(c, d)), g = min(max(a, b), max(c, d))
        return max(min(e, f), min(max(e, f), g))
    }

    /// The median (fifth smallest) of nine values by Paeth's selection network.
    @inline(__always)
    static func median9(
        _ a0: Float, _ a1: Float, _ a2: Float, _ a3: Float, _ a4: Float,
        _ a5: Float, _ a6: Float, _ a7: Float, _ a8: Float
    ) -> Float {
        var p0 = a0, p1 = a1, p2 = a2, p3 = a3, p4 = a4, p5 = a5, p6 = a6, p7 = a7, p8 = a8
        @inline(__always) func sort(_ x: inout Float, _ y: inout Float) {
            let lo = Swift.min(x, y), hi = Swift.max(x, y)
            x = lo
            y = hi
        }
        sort(&p1, &p2); sort(&p4, &p5); sort(&p7, &p8)
        sort(&p0, &p1); sort(&p3, &p4); sort(&p6, &p7)
        sort(&p1, &p2); sort(&p4, &p5); sort(&p7, &p8)
        sort(&p0, &p3); sort(&p5, &p8); sort(&p4, &p7)
        sort(&p3, &p6); sort(&p1, &p4); sort(&p2, &p5)
        sort(&p4, &p7); sort(&p4, &p2); sort(&p6, &p4)
        sort(&p4, &p2)
        _ = (p0, p1, p3, p5, p6, p7, p8)
        return p4
    }

    /// The `rank`-th largest (1-based) of the first `count` values of `values` (`1 ≤ rank ≤
    /// count`): keeps the `rank` largest values seen in descending order at the front of the
    /// buffer, so a value below the current candidate costs one comparison.
    static func largest(_ values: UnsafeMutableBufferPointer<Float>, count: Int, rank: Int) -> Float {
        guard count > 0 else { return 0 }
        let keep = min(count, max(1, rank))
        var filled = 0
        for i in 0..<count {
            let v = values[i]
            if filled == keep {
                guard v > values[keep - 1] else { continue }
                filled -= 1
            }
            var j = filled - 1
            while j >= 0 && values[j] < v {
                values[j + 1] = values[j]
                j -= 1
            }
            values[j + 1] = v
            filled += 1
        }
        return values[keep - 1]
    }
}
