import Foundation

/// Coefficients of one second-order IIR section, normalised so that a0 = 1:
/// `y[n] = b0·x[n] + b1·x[n-1] + b2·x[n-2] − a1·y[n-1] − a2·y[n-2]`.
struct BiquadCoefficients: Sendable, Hashable {
    var b0: Double
    var b1: Double
    var b2: Double
    var a1: Double
    var a2: Double
}

/// The K-weighting filter of ITU-R BS.1770-4, Annex 1, §1 (Figs. 1-4): a high-shelf
/// "pre-filter" (+4 dB above about 1.5 kHz, the acoustic effect of the head) followed by the
/// "RLB" high-pass (revised low-frequency B-curve).
///
/// BS.1770 tabulates the two biquads only for 48 kHz (Tables 1 and 2). Like libebur128, the
/// coefficients here are derived for any sample rate from the analogue prototypes whose bilinear
/// transform reproduces those tables: a shelf with centre frequency `f0`, gain `G` and quality `Q`,
/// and a second-order high-pass with `f0` and `Q`, both pre-warped with `K = tan(π·f0/fs)`.
/// At 48 kHz the result equals the BS.1770 tables within 1e-10 (tested).
struct KWeighting: Sendable, Hashable {
    /// Pre-filter (high shelf) corner frequency in Hz.
    static let shelfFrequency = 1681.974450955533
    /// Pre-filter high-frequency gain in dB.
    static let shelfGain = 3.999843853973347
    /// Pre-filter quality factor.
    static let shelfQ = 0.7071752369554196
    /// Exponent relating the shelf's mid-band gain `Vb` to its high-frequency gain `Vh` (≈ ½).
    static let shelfMidGainExponent = 0.4996667741545416
    /// RLB high-pass corner frequency in Hz.
    static let highPassFrequency = 38.13547087602444
    /// RLB high-pass quality factor.
    static let highPassQ = 0.5003270373238773

    /// Stage 1: the pre-filter (high shelf).
    let preFilter: BiquadCoefficients
    /// Stage 2: the RLB high-pass. Its numerator is `1, −2, 1` as in BS.1770 Table 2.
    let rlbFilter: BiquadCoefficients

    /// Derives both stages for `sampleRate` (Hz) by the bilinear transform.
    init(sampleRate: Double) {
        // Stage 1: high shelf.
        let k = tan(Double.pi * Self.shelfFrequency / sampleRate)
        let vh = pow(10, Self.shelfGain / 20)
        let vb = pow(vh, Self.shelfMidGainExponent)
        let q = Self.shelfQ
        let a0 = 1 + k / q + k * k
        preFilter = BiquadCoefficients(
            b0: (vh + vb * k / q + k * k) / a0,
            b1: 2 * (k * k - vh) / a0,
            b2: (vh - vb * k / q + k * k) / a0,
            a1: 2 * (k * k - 1) / a0,
            a2: (1 - k / q + k * k) / a0)
        // Stage 2: RLB high-pass.
        let kh = tan(Double.pi * Self.highPassFrequency / sampleRate)
        let qh = Self.highPassQ
        let ah0 = 1 + kh / qh + kh * kh
        rlbFilter = BiquadCoefficients(
            b0: 1, b1: -2, b2: 1,
            a1: 2 * (kh * kh - 1) / ah0,
            a2: (1 - kh / qh + kh * kh) / ah0)
    }
}

/// The memory of a pair of channels' K-weighting filters: two transposed-direct-form-II
/// sections per channel, two state variables each, in `Double` so the low-frequency high-pass
/// stays accurate.
///
/// Channels are filtered in pairs, side by side in one loop, so the two recursions overlap (an
/// IIR filter is bound by the latency of its feedback loop, not by arithmetic). Plain scalars
/// rather than `SIMD2` keep debug builds fast; the optimiser pairs them anyway.
struct KWeightingState: Sendable, Hashable {
    var s1a = 0.0, s2a = 0.0, t1a = 0.0, t2a = 0.0
    var s1b = 0.0, s2b = 0.0, t1b = 0.0, t2b = 0.0

    /// Sets tiny states to exact zero (so long silences never run on subnormal numbers) and
    /// resets a channel that non-finite input has poisoned.
    mutating func flushTinyValues() {
        Self.flush(&s1a, &s2a, &t1a, &t2a)
        Self.flush(&s1b, &s2b, &t1b, &t2b)
    }

    private static func flush(_ a: inout Double, _ b: inout Double, _ c: inout Double, _ d: inout Double) {
        guard a.isFinite, b.isFinite, c.isFinite, d.isFinite else {
            (a, b, c, d) = (0, 0, 0, 0)
            return
        }
        let tiny = 1e-30
        if abs(a) < tiny { a = 0 }
        if abs(b) < tiny { b = 0 }
        if abs(c) < tiny { c = 0 }
        if abs(d) < tiny { d = 0 }
    }
}

extension KWeighting {
    /// K-weights `count` frames of two channels read from interleaved audio (`x[0]` and `x[1]`
    /// are the pair's first samples, frames `stride` samples apart), continuing from `state`.
    /// Returns each channel's sum of squared filtered samples (BS.1770's `Σ y²` before division
    /// by the window length) and its largest absolute input sample.
    ///
    /// With `single`, only `x[0]` is read and the second channel stays silent (for an odd last
    /// channel). Non-finite input yields a non-finite sum, which the caller discards.
    @inline(__always)
    func sumOfSquares(
        _ x: UnsafePointer<Float>, stride: Int, count: Int, single: Bool,
        state st: inout KWeightingState
    ) -> (sums: (Double, Double), peaks: (Float, Float)) {
        let b0 = preFilter.b0, b1 = preFilter.b1, b2 = preFilter.b2
        let a1 = preFilter.a1, a2 = preFilter.a2
        let r1 = rlbFilter.a1, r2 = rlbFilter.a2
        var s1a = st.s1a, s2a = st.s2a, t1a = st.t1a, t2a = st.t2a
        var s1b = st.s1b, s2b = st.s2b, t1b = st.t1b, t2b = st.t2b
        var sumA = 0.0, sumB = 0.0
        var m0: Float = 0, m1: Float = 0
        var p = x
        let second = single ? 0 : 1
        let secondScale: Float = single ? 0 : 1
        for _ in 0..<count {
            let x0 = p[0]
            let x1 = p[second] * secondScale
            let e0 = abs(x0), e1 = abs(x1)
            m0 = e0 > m0 ? e0 : m0
            m1 = e1 > m1 ? e1 : m1
            let va = Double(x0), vb = Double(x1)
            // Pre-filter (shelf), transposed direct form II.
            let ya = b0 * va + s1a
            let yb = b0 * vb + s1b
            s1a = b1 * va - a1 * ya + s2a
            s1b = b1 * vb - a1 * yb + s2b
            s2a = b2 * va - a2 * ya
            s2b = b2 * vb - a2 * yb
            // RLB high-pass with numerator 1, -2, 1.
            let za = ya + t1a
            let zb = yb + t1b
            t1a = t2a - r1 * za - (ya + ya)
            t1b = t2b - r1 * zb - (yb + yb)
            t2a = ya - r2 * za
            t2b = yb - r2 * zb
            sumA += za * za
            sumB += zb * zb
            p += stride
        }
        st.s1a = s1a; st.s2a = s2a; st.t1a = t1a; st.t2a = t2a
        st.s1b = s1b; st.s2b = s2b; st.t1b = t1b; st.t2b = t2b
        st.flushTinyValues()
        return ((sumA, sumB), (m0, m1))
    }
}
