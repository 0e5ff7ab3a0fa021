import Foundation

/// Operations on a grid of beat times or frames shared by the rhythm and structure analyses:
/// the metrical level above (every other beat) and below (midpoints added).
enum Grid {
    /// The elements of `values` whose index has the parity `phase` (0 or 1).
    static func everyOther<T>(_ values: [T], phase: Int) -> [T] {
        values.indices.filter { $0 % 2 == phase }.map { values[$0] }
    }

    /// `values` with `midpoint(a, b)` inserted between each two neighbours `a`, `b`.
    static func withMidpoints<T>(_ values: [T], midpoint: (T, T) -> T) -> [T] {
        var out: [T] = []
        out.reserveCapacity(2 * values.count)
        for (a, b) in zip(values, values.dropFirst()) {
            out.append(a)
            out.append(midpoint(a, b))
        }
        if let last = values.last { out.append(last) }
        return out
    }
}
