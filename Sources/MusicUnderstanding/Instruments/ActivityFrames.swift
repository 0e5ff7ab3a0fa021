import Foundation

/// The shared features resampled to the 10 Hz grid of instrument activity: frame `i` summarises
/// `i / 10 ..< (i + 1) / 10` seconds (its `time` in the result is the frame's start).
///
/// Every value is an energy in the units of ``HarmonicPercussiveFeatures`` (normalised power,
/// linear) or from ``PitchFluctuationFeatures``; vectors are assigned to the frame that holds their
/// centre and averaged; a frame that receives no vector (only possible with unusual
/// configurations) copies the previous one.
struct ActivityFrames {
    /// Frames per second of the grid.
    static let rate = 10.0
    /// Number of frames, `ceil(duration × 10)`.
    var count: Int
    /// Harmonic, percussive and residual energy per band, `bands` per frame, frame-major.
    var harmonic: [Float]
    var percussive: [Float]
    var residual: [Float]
    /// Number of bands of the separation.
    var bands: Int
    /// Band edges in Hz (`bands + 1` values).
    var edges: [Double]
    /// Pitch motion of the partials, cents per 23 ms (``PitchFluctuationFeatures``); 0 when absent.
    var fluctuation: [Float]
    /// Share of tonal subband comparisons (``PitchFluctuationFeatures/tonalShare``); 0 when absent.
    var tonalShare: [Float]
    /// Vocal variance: the variances of cepstral coefficients 1-5 over the mel vectors whose
    /// centres lie within ±``vocalVarianceHalfWindow`` s of the frame's centre, summed (bels², the
    /// units of ``MelFeatures/bands``); `nil` when the features hold neither mel bands nor MFCCs.
    /// The coefficients are the orthonormal DCT-II of the log mel bands whose centres lie in
    /// ``vocalVarianceBand`` (the voice's formant region: hi-hats, cymbals and the bass move the
    /// envelope there little), or MFCCs 1-5 of all bands when only MFCCs were computed.
    /// B. Lehner, R. Sonnleitner & G. Widmer, "Towards light-weight, real-time-capable singing
    /// voice detection", ISMIR 2013, sec. 3.2 ("vocal variance", there of MFCCs 1-5 of the whole
    /// spectrum); used against instruments whose partials fluctuate like a voice in Lehner, Widmer
    /// & Sonnleitner, ICASSP 2014, sec. 3.
    var vocalVariance: [Float]?
    /// Half of the vocal variance window, seconds (0.5: Lehner et al. 2013 take about 1 s).
    static let vocalVarianceHalfWindow = 0.5
    /// Mel band centres, Hz, that the vocal variance's cepstrum is taken over (100-5000 Hz: the
    /// first three formants and the singer's formant; 24 of the default 40 bands).
    static let vocalVarianceBand = 100.0...5000.0

    /// Resamples `features`; `duration` fixes the number of frames (at most 3 h × 36 000 / h).
    init(features: SharedFeatures) {
        let duration = features.duration.isFinite ? max(0, features.duration) : 0
        // Hostile durations (far beyond the features) must not allocate: the grid stops one
        // second after the last feature vector, and at 24 hours without features.
        let pf = features.pitchFluctuation
        var available = 24 * 3600 * Self.rate
        if let hp = features.harmonicPercussive, hp.frameRate.isFinite, hp.frameRate > 0 {
            available = Double(hp.count) / hp.frameRate * Self.rate + Self.rate
        }
        if let pf { available = max(available.isFinite ? min(available, 24 * 3600 * Self.rate) : 0, Double(pf.fluctuation.count) + Self.rate) }
        let n = Int(max(0, min(available, (duration * Self.rate).rounded(.up))))
        count = n
        fluctuation = (0..<n).map { i in pf.flatMap { i < $0.fluctuation.count ? $0.fluctuation[i] : nil } ?? 0 }
        tonalShare = (0..<n).map { i in pf.flatMap { i < $0.tonalShare.count ? $0.tonalShare[i] : nil } ?? 0 }
        vocalVariance = features.mel.flatMap { Self.vocalVariance(of: $0, frames: n) }
        guard let hp = features.harmonicPercussive, hp.bandCount > 0, hp.frameRate.isFinite, hp.frameRate > 0 else {
            bands = 0
            edges = []
            harmonic = []; percussive = []; residual = []
            return
        }
        let b = hp.bandCount
        bands = b
        edges = hp.bandEdges
        let stftRate = hp.frameRate * Double(max(1, hp.framesPerVector))
        let vectors = min(hp.count, hp.percussive.count / b, hp.residual.count / b)
        func frame(ofVectorCentre v: Int, rate: Double) -> Int {
            let t = (Double(v) + 0.5) / rate - 0.5 / stftRate
            return Int(max(0, min(Double(max(0, n - 1)), (t * Self.rate).rounded(.down))))
        }
        var h = [Float](repeating: 0, count: n * b), p = h, r = h
        var hits = [Int](repeating: 0, count: n)
        if n > 0 {
            for v in 0..<vectors {
                let f = frame(ofVectorCentre: v, rate: hp.frameRate)
                hits[f] += 1
                for k in 0..<b {
                    h[f * b + k] += hp.harmonic[v * b + k]
                    p[f * b + k] += hp.percussive[v * b + k]
                    r[f * b + k] += hp.residual[v * b + k]
                }
            }
            for f in 0..<n {
                if hits[f] > 0 {
                    let s = 1 / Float(hits[f])
                    for k in 0..<b { h[f * b + k] *= s; p[f * b + k] *= s; r[f * b + k] *= s }
                } else if f > 0 {
                    for k in 0..<b { h[f * b + k] = h[(f - 1) * b + k]; p[f * b + k] = p[(f - 1) * b + k]; r[f * b + k] = r[(f - 1) * b + k] }
                }
            }
        }
        harmonic = h; percussive = p; residual = r

    }

    /// The vocal variance of each of `frames` 10 Hz frames (see ``vocalVariance``); `nil` when
    /// `mel` has neither 8 bands in ``vocalVarianceBand`` nor 6 MFCCs, or no usable rate. Prefix
    /// sums of each coefficient and its square give every window's variance in one pass;
    /// non-finite values count as 0.
    static func vocalVariance(of mel: MelFeatures, frames n: Int) -> [Float]? {
        guard mel.frameRate.isFinite, mel.frameRate > 0 else { return nil }
        // The five coefficient series, one value per mel vector.
        var series: [[Float]]
        let b = mel.bandCount
        let selected = mel.bandCentres.indices.filter { vocalVarianceBand.contains(mel.bandCentres[$0]) }
        if b > 0, mel.bandCentres.count == b, mel.bands.count >= b, selected.count >= 8, let first = selected.first {
            let m = selected.count, vectors = mel.bands.count / b
            let basis = MelBandAccumulator.dctTable(coefficients: 1..<6, bands: m)  // 5 × m, row-major
            series = [[Float]](repeating: [Float](repeating: 0, count: vectors), count: 5)
            for v in 0..<vectors {
                for c in 0..<5 {
                    var x: Float = 0
                    for i in 0..<m {
                        let value = mel.bands[v * b + first + i]
                        x += basis[c * m + i] * (value.isFinite ? value : 0)
                    }
                    series[c][v] = x
                }
            }
        } else if mel.coefficientCount >= 6 {
            let k = mel.coefficientCount, vectors = mel.mfcc.count / k
            series = (1...5).map { c in (0..<vectors).map { mel.mfcc[$0 * k + c] } }
        } else {
            return nil
        }
        let vectors = series[0].count
        // Vector v pools STFT frames v·p ..< (v + 1)·p (p = framesPerVector): its centre is at
        // (v + (p − 1) / 2p) / rate seconds. The window of frame j holds the vectors lo ..< hi.
        let p = Double(max(1, mel.framesPerVector))
        let offset = (p - 1) / (2 * p)
        let windows: [(lo: Int, hi: Int)] = (0..<n).map { j in
            let centre = (Double(j) + 0.5) / rate
            // Clamped in floating point first: a hostile rate must not overflow the conversion.
            func index(_ x: Double) -> Int { Int(min(Double(vectors), max(0, x.isFinite ? x : 0))) }
            let lo = index(((centre - vocalVarianceHalfWindow) * mel.frameRate - offset).rounded(.up))
            let hi = max(lo, index(((centre + vocalVarianceHalfWindow) * mel.frameRate - offset).rounded(.down) + 1))
            return (lo, hi)
        }
        var total = [Double](repeating: 0, count: n)
        var sum = [Double](repeating: 0, count: vectors + 1), square = sum
        for coefficient in series {
            for v in 0..<vectors {
                let x = Double(coefficient[v])
                let value = x.isFinite ? x : 0
                sum[v + 1] = sum[v] + value
                square[v + 1] = square[v] + value * value
            }
            for j in 0..<n {
                let (lo, hi) = windows[j]
                guard hi - lo >= 2 else { continue }
                let count = Double(hi - lo)
                let mean = (sum[hi] - sum[lo]) / count
                total[j] += max(0, (square[hi] - square[lo]) / count - mean * mean)
            }
        }
        return total.map { Float($0) }
    }

    /// Sum of `component` over bands `range` (clamped to the available bands) in frame `f`.
    func sum(_ component: [Float], bands range: Range<Int>, frame f: Int) -> Float {
        let lo = max(0, range.lowerBound), hi = min(bands, range.upperBound)
        guard lo < hi, f >= 0, (f + 1) * bands <= component.count else { return 0 }
        var s: Float = 0
        for k in lo..<hi { s += component[f * bands + k] }
        return s
    }
}
