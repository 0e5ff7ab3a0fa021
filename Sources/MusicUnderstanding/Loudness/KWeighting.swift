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
/// At 48 kHz the result equals the BS.1770 tables to about 1e-12.
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

/// The memory of one channel's K-weighting filter: two transposed-direct-form-II sections,
/// two state variables each, in `Double` so the low-frequency high-pass stays accurate.
struct KWeightingState: Sendable, Hashable {
    var s1 = 0.0
    var s2 = 0.0
    var t1 = 0.0
    var t2 = 0.0

    /// Sets tiny states to exact zero (so long silences never run on subnormal numbers) and
    /// resets a state that non-finite input has poisoned.
    mutating func flushTinyValues() {
        guard s1.isFinite, s2.isFinite, t1.isFinite, t2.isFinite else {
            self = KWeightingState()
            return
        }
        let tiny = 1e-30
        if abs(s1) < tiny { s1 = 0 }
        if abs(s2) < tiny { s2 = 0 }
        if abs(t1) < tiny { t1 = 0 }
        if abs(t2) < tiny { t2 = 0 }
    }
}

extension KWeighting {
    /// K-weights `count` contiguous samples of one channel, continuing from `state`, and returns
    /// the sum of the squared filtered samples (BS.1770's `Σ y²` before division by the window
    /// length).
    ///
    /// Non-finite input yields a non-finite sum; the caller discards it.
    @inline(__always)
    func sumOfSquares(_ x: UnsafePointer<Float>, count: Int, state: inout KWeightingState) -> Double {
        let p = preFilter
        let r = rlbFilter
        var s1 = state.s1, s2 = state.s2, t1 = state.t1, t2 = state.t2
        var sum = 0.0
        for i in 0..<count {
            let v = Double(x[i])
            // Pre-filter (shelf), transposed direct form II.
            let y = p.b0 * v + s1
            s1 = p.b1 * v - p.a1 * y + s2
            s2 = p.b2 * v - p.a2 * y
            // RLB high-pass with numerator 1, -2, 1.
            let z = y + t1
            t1 = -2 * y - r.a1 * z + t2
            t2 = y - r.a2 * z
            sum += z * z
        }
        state.s1 = s1
        state.s2 = s2
        state.t1 = t1
        state.t2 = t2
        state.flushTinyValues()
        return sum
    }
}
