import Foundation

/// The true-peak interpolator of ITU-R BS.1770-4, Annex 2: oversample each channel with a
/// polyphase FIR low-pass and take the largest absolute value of the interpolated signal.
///
/// Annex 2 asks for at least 4× oversampling at 48 kHz (its example is a 48-tap, 4-phase
/// filter). As in libebur128 and FFmpeg, the factor depends on the input rate: 4× below 96 kHz,
/// 2× below 192 kHz and none above (the sample peak is then the true peak).
///
/// The prototype low-pass has `12·L + 1` taps (49 at 4×): a sinc with its cut-off at the input
/// Nyquist frequency under a Hann window. With an odd length centred on a tap, phase 0 passes
/// the input samples through unchanged, so only the `L − 1` in-between phases (12 taps each) are
/// computed; the meter folds the sample peak into the true peak, which covers phase 0.
/// The tests check the EBU Tech 3341 true-peak tolerance (+0.2/−0.4 dB) on sines modelled on
/// its cases 15-19.
struct TruePeakInterpolator: Sendable {
    /// Taps per polyphase branch (input samples each interpolated value depends on).
    static let tapsPerPhase = 12

    /// The oversampling factor L (1 = no interpolation).
    let factor: Int
    /// Branch coefficients, `(factor − 1) × tapsPerPhase`, branch-major. Branch `p` (1-based)
    /// gives the value `p/L` of the way between `x[n−6]` and `x[n−5]` as `Σ_q c[q]·x[n−q]`.
    let coefficients: [Float]
    /// An upper bound of `Σ_q |c[q]|` over all branches: no interpolated value can exceed
    /// `gainBound × max|x|` over the taps, which lets whole blocks be skipped exactly.
    let gainBound: Float

    /// The automatic oversampling factor for a sample rate (Annex 2 with the usual rate steps).
    static func defaultFactor(sampleRate: Double) -> Int {
        if sampleRate < 96_000 { return 4 }
        if sampleRate < 192_000 { return 2 }
        return 1
    }

    /// Designs the interpolator for oversampling `factor` (clamped to 1...16).
    init(factor: Int) {
        let l = min(16, max(1, factor))
        self.factor = l
        guard l > 1 else {
            coefficients = []
            gainBound = 1
            return
        }
        let taps = Self.tapsPerPhase * l + 1
        let centre = Double(taps - 1) / 2
        var h = [Double](repeating: 0, count: taps)
        for j in 0..<taps {
            let m = Double(j) - centre
            let arg = Double.pi * m / Double(l)
            let sinc = abs(m) < 1e-9 ? 1 : sin(arg) / arg
            let hann = 0.5 * (1 - cos(2 * Double.pi * Double(j) / Double(taps - 1)))
            h[j] = sinc * hann
        }
        var c = [Float]()
        c.reserveCapacity((l - 1) * Self.tapsPerPhase)
        var bound = 0.0
        for p in 1..<l {
            var g = 0.0
            for q in 0..<Self.tapsPerPhase {
                let v = h[p + q * l]
                c.append(Float(v))
                g += abs(v)
            }
            bound = max(bound, g)
        }
        coefficients = c
        // A little headroom for Float rounding keeps the skip test conservative.
        gainBound = Float(bound * (1 + 1e-5))
    }

    /// The largest absolute interpolated value for the `count` samples at `x` (the new samples),
    /// given that `x[-11] ..< x[0]` hold the 11 samples before them. Phase 0 (the samples
    /// themselves) is not included.
    func peak(_ x: UnsafePointer<Float>, count: Int) -> Float {
        guard factor > 1, count > 0 else { return 0 }
        var vmax = SIMD4<Float>(repeating: 0)
        var vmin = SIMD4<Float>(repeating: 0)
        var smax: Float = 0
        let raw = UnsafeRawPointer(x)
        let stride = MemoryLayout<Float>.stride
        let vectorCount = count & ~3
        coefficients.withUnsafeBufferPointer { cb in
            guard let c = cb.baseAddress else { return }
            for branch in 0..<(factor - 1) {
                let k = c + branch * Self.tapsPerPhase
                let c0 = SIMD4(repeating: k[0]), c1 = SIMD4(repeating: k[1])
                let c2 = SIMD4(repeating: k[2]), c3 = SIMD4(repeating: k[3])
                let c4 = SIMD4(repeating: k[4]), c5 = SIMD4(repeating: k[5])
                let c6 = SIMD4(repeating: k[6]), c7 = SIMD4(repeating: k[7])
                let c8 = SIMD4(repeating: k[8]), c9 = SIMD4(repeating: k[9])
                let c10 = SIMD4(repeating: k[10]), c11 = SIMD4(repeating: k[11])
                var i = 0
                while i < vectorCount {
                    @inline(__always) func at(_ q: Int) -> SIMD4<Float> {
                        raw.loadUnaligned(fromByteOffset: (i - q) * stride, as: SIMD4<Float>.self)
                    }
                    var a = c0 * at(0)
                    var b = c1 * at(1)
                    a += c2 * at(2)
                    b += c3 * at(3)
                    a += c4 * at(4)
                    b += c5 * at(5)
                    a += c6 * at(6)
                    b += c7 * at(7)
                    a += c8 * at(8)
                    b += c9 * at(9)
                    a += c10 * at(10)
                    b += c11 * at(11)
                    let y = a + b
                    vmax.replace(with: y, where: y .> vmax)
                    vmin.replace(with: y, where: y .< vmin)
                    i += 4
                }
                // The tail, with the same operation order as the vector lanes (so results do
                // not depend on how the input was chunked).
                while i < count {
                    var a = k[0] * x[i]
                    var b = k[1] * x[i - 1]
                    var q = 2
                    while q < Self.tapsPerPhase {
                        a += k[q] * x[i - q]
                        b += k[q + 1] * x[i - q - 1]
                        q += 2
                    }
                    let m = abs(a + b)
                    if m > smax { smax = m }
                    i += 1
                }
            }
        }
        return max(smax, max(vmax.max(), -vmin.min()))
    }
}
