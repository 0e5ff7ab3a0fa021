import Foundation

/// The shared features resampled to the 10 Hz grid of instrument activity: frame `i` summarises
/// `i / 10 ..< (i + 1) / 10` seconds (its `time` in the result is the frame's start).
///
/// Every value is an energy in the units of ``HarmonicPercussiveFeatures`` (normalised power,
/// linear) or derived from ``MelFeatures``; vectors are assigned to the frame that holds their
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
    /// Vocal-variance (Lehner, Widmer & Sonnleitner 2014, sec. 3.2): mean over MFCCs 1...5 of
    /// their standard deviation over a centred 1 s window; 0 when MFCCs are absent.
    var mfccSpread: [Float]
    /// Spectral flatness of the mel bands between 250 and 5000 Hz (geometric over arithmetic
    /// mean of the linear band energies, 0...1); 1 when mel bands are absent.
    var flatness: [Float]
    /// Pitch motion of the partials, cents per 23 ms (``PitchFluctuationFeatures``); 0 when absent.
    var fluctuation: [Float]
    /// Share of tonal subband comparisons (``PitchFluctuationFeatures/tonalShare``); 0 when absent.
    var tonalShare: [Float]

    /// Resamples `features`; `duration` fixes the number of frames (at most 3 h × 36 000 / h).
    init(features: SharedFeatures) {
        let duration = features.duration.isFinite ? max(0, features.duration) : 0
        let n = Int(min(Double(Int32.max), (duration * Self.rate).rounded(.up)))
        count = n
        let pf = features.pitchFluctuation
        fluctuation = (0..<n).map { i in pf.flatMap { i < $0.fluctuation.count ? $0.fluctuation[i] : nil } ?? 0 }
        tonalShare = (0..<n).map { i in pf.flatMap { i < $0.tonalShare.count ? $0.tonalShare[i] : nil } ?? 0 }
        guard let hp = features.harmonicPercussive, hp.bandCount > 0, hp.frameRate.isFinite, hp.frameRate > 0 else {
            bands = 0
            edges = []
            harmonic = []; percussive = []; residual = []
            mfccSpread = [Float](repeating: 0, count: n)
            flatness = [Float](repeating: 1, count: n)
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

        // Timbre from the mel features.
        var spread = [Float](repeating: 0, count: n)
        var flat = [Float](repeating: 1, count: n)
        if let mel = features.mel, mel.bandCount > 0, mel.coefficientCount > 5, mel.frameRate.isFinite, mel.frameRate > 0, n > 0 {
            let m = mel.count
            let cc = mel.coefficientCount
            let voiceBands = (0..<mel.bandCount).filter { k in
                k < mel.bandCentres.count && mel.bandCentres[k] >= 250 && mel.bandCentres[k] <= 5000
            }
            // Per mel vector: flatness, then per-frame means.
            var flatSum = [Float](repeating: 0, count: n), flatHits = [Int](repeating: 0, count: n)
            var coeffs = [[Float]](repeating: [Float](repeating: 0, count: n), count: 5)
            var coeffsSq = coeffs
            for v in 0..<m where (v + 1) * mel.bandCount <= mel.bands.count && (v + 1) * cc <= mel.mfcc.count {
                let f = frame(ofVectorCentre: v, rate: mel.frameRate)
                if !voiceBands.isEmpty {
                    var logSum = 0.0, linSum = 0.0
                    for k in voiceBands {
                        // Bands are log10(1 + E / floor): back to linear (relative to the floor).
                        let e = max(1e-3, pow(10, Double(mel.bands[v * mel.bandCount + k])) - 1)
                        logSum += log(e)
                        linSum += e
                    }
                    let g = exp(logSum / Double(voiceBands.count)), a = linSum / Double(voiceBands.count)
                    flatSum[f] += Float(a > 0 ? min(1, g / a) : 1)
                }
                flatHits[f] += 1
                for c in 0..<5 {
                    let x = mel.mfcc[v * cc + c + 1]
                    coeffs[c][f] += x
                    coeffsSq[c][f] += x * x
                }
            }
            // 1 s centred window of sums (prefix sums over frames).
            let half = 5
            var hitPrefix = [Int](repeating: 0, count: n + 1)
            for f in 0..<n { hitPrefix[f + 1] = hitPrefix[f] + flatHits[f] }
            var spreadSum = [Float](repeating: 0, count: n)
            for c in 0..<5 {
                var s1 = [Double](repeating: 0, count: n + 1), s2 = s1
                for f in 0..<n {
                    s1[f + 1] = s1[f] + Double(coeffs[c][f])
                    s2[f + 1] = s2[f] + Double(coeffsSq[c][f])
                }
                for f in 0..<n {
                    let lo = max(0, f - half), hi = min(n, f + half + 1)
                    let k = Double(hitPrefix[hi] - hitPrefix[lo])
                    guard k > 1 else { continue }
                    let mean = (s1[hi] - s1[lo]) / k
                    let variance = max(0, (s2[hi] - s2[lo]) / k - mean * mean)
                    spreadSum[f] += Float(variance.squareRoot())
                }
            }
            for f in 0..<n {
                spread[f] = spreadSum[f] / 5
                if flatHits[f] > 0 && !voiceBands.isEmpty { flat[f] = flatSum[f] / Float(flatHits[f]) }
                else if f > 0 { flat[f] = flat[f - 1] }
            }
        }
        mfccSpread = spread
        flatness = flat
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
