import Foundation

/// Onset-strength curves at the STFT frame rate, shared by rhythm, pace and structure analyses.
///
/// Value `i` of every curve belongs to STFT frame `i`, centred at `i / frameRate` seconds (the
/// lag of the difference is compensated). The log-compressed flux responds as soon as an onset
/// enters the leading edge of the 93 ms window, so onset peaks appear early: about 20-30 ms for
/// rendered instruments and drums, up to 40 ms for clicks. Consumers that need absolute onset
/// times compensate (as `RhythmAnalyzer.Configuration.latency` does).
public struct OnsetFeatures: Sendable {
    /// Frames per second of the curves.
    public var frameRate: Double
    /// Broadband onset strength, one value per STFT frame: half-wave rectified log-magnitude
    /// spectral flux over a semitone filterbank with a maximum filter over frequency
    /// (SuperFlux, Böck & Widmer 2013), after adaptive whitening (Stowell & Plumbley 2007).
    public var strength: [Float]
    /// Low-band onset strength (filterbank bands below `OnsetConfiguration.lowBandMaximum`,
    /// kick drum and bass), one value per STFT frame, computed like `strength`.
    public var lowStrength: [Float]
    /// Log energy of each frame, `log10(1 + gamma * sum of band magnitudes)`; useful for
    /// silence and dynamics.
    public var energy: [Float]
    /// High-band onset strength (filterbank bands above `OnsetConfiguration.highBandMinimum`:
    /// hi-hats, cymbals, the noise bursts of snares; tonal partials are weak there), one value
    /// per STFT frame, computed like `strength`. Empty when not computed.
    public var highStrength: [Float]
    /// Creates onset features (mostly for tests).
    public init(frameRate: Double, strength: [Float], lowStrength: [Float] = [], energy: [Float] = [],
                highStrength: [Float] = []) {
        self.frameRate = frameRate
        self.strength = strength
        self.lowStrength = lowStrength
        self.energy = energy
        self.highStrength = highStrength
    }

    /// Number of frames of the curves.
    public var count: Int { strength.count }
}

/// Settings of the onset-strength computation.
public struct OnsetConfiguration: Sendable, Hashable {
    /// Lowest filterbank centre frequency as a MIDI pitch (default 24, C1 = 32.7 Hz).
    public var lowestPitch: Int = 24
    /// Highest filterbank centre frequency as a MIDI pitch (default 123, about 9.96 kHz).
    public var highestPitch: Int = 123
    /// Compression `log10(1 + gamma * x)` of the band magnitudes (default 100; magnitudes of a
    /// full-scale sine are about 512 with the 2048-point Hann frame).
    public var gamma: Float = 100
    /// Frame lag of the difference (default 2: the Hann window falls to half its peak two hops
    /// from its centre, the `diff_ratio = 0.5` rule of Böck & Widmer 2013).
    public var lag: Int = 2
    /// Width, in bands, of the maximum filter applied over frequency to the reference frame
    /// (default 3, SuperFlux vibrato suppression).
    public var maxFilterWidth: Int = 3
    /// Adaptive whitening memory: the per-band peak decays by this factor per frame
    /// (default 0.997, a half-life of about 2.7 s at 86 frames/s; Stowell & Plumbley 2007).
    public var whiteningDecay: Float = 0.997
    /// Whitening floor relative to the filterbank scale (default 0.05; keeps noise in quiet
    /// bands from being amplified). Set `whitening` to false to disable whitening.
    public var whiteningFloor: Float = 0.05
    /// Whether adaptive whitening is applied (default true).
    public var whitening: Bool = true
    /// Upper edge of the low band, Hz (default 150: kick drum and bass fundamentals).
    public var lowBandMaximum: Double = 150
    /// Lower edge of the high band, Hz (default 3200: the top octave band of E. D. Scheirer,
    /// "Tempo and beat analysis of acoustic musical signals", JASA 103(1), 1998, sec. II.A).
    public var highBandMinimum: Double = 3200

    /// The default configuration.
    public init() {}
}

/// Computes the onset-strength curves frame by frame from the shared STFT.
///
/// Streaming with bounded memory: it keeps the last `lag` frames of filterbank bands and
/// appends a few numbers per frame.
///
/// The filterbank has one triangular filter per semitone between `lowestPitch` and
/// `highestPitch`; where semitones are narrower than an STFT bin the duplicate filters are
/// merged, as in madmom's `LogarithmicFilterbank` (Böck et al. 2012).
final class OnsetStrengthAccumulator: SpectralFrameConsumer {
    private let configuration: FeatureConfiguration
    private let onset: OnsetConfiguration
    // Filterbank: band b covers bins bandStart[b] ..< bandStart[b] + bandWeightCount[b],
    // weights at weights[weightOffset[b] ...].
    private var bandStart: [Int] = []
    private var weightOffset: [Int] = []
    private var bandWeightCount: [Int] = []
    private var weights: [Float] = []
    private var lowBandCount = 0
    private var highBandStart = Int.max  // first filterbank band above `highBandMinimum`
    private var bandCount = 0
    // State.
    private var history: [[Float]]  // last `lag` frames of compressed bands, ring
    private var historyIndex = 0
    private var framesSeen = 0
    private var peak: [Float]
    private var bands: [Float]
    private var maxFiltered: [Float]
    // Outputs.
    private var strength: [Float] = []
    private var lowStrength: [Float] = []
    private var energy: [Float] = []
    private var highStrength: [Float] = []

    init(configuration: FeatureConfiguration, onset: OnsetConfiguration = .init()) {
        self.configuration = configuration
        self.onset = onset
        history = []
        peak = []
        bands = []
        maxFiltered = []
        buildFilterbank()
        let lag = max(1, onset.lag)
        history = [[Float]](repeating: [Float](repeating: 0, count: bandCount), count: lag)
        peak = [Float](repeating: onset.whiteningFloor, count: bandCount)
        bands = [Float](repeating: 0, count: bandCount)
        maxFiltered = [Float](repeating: 0, count: bandCount)
    }

    private func buildFilterbank() {
        let binCount = configuration.binCount
        let binWidth = configuration.binWidth
        // Centre bins of the semitone frequencies, duplicates merged.
        var centres: [Int] = []
        let lo = min(onset.lowestPitch, onset.highestPitch), hi = max(onset.lowestPitch, onset.highestPitch)
        for p in (lo - 1)...(hi + 1) {
            let f = 440 * pow(2, Double(p - 69) / 12)
            let bin = Int((f / binWidth).rounded())
            guard bin >= 1, bin < binCount - 1 else { continue }
            if let last = centres.last, last == bin { continue }
            centres.append(bin)
        }
        guard centres.count >= 3 else { return }
        for i in 1..<(centres.count - 1) {
            let l = centres[i - 1], c = centres[i], r = centres[i + 1]
            var w: [Float] = []
            for k in l...r {
                let v: Double = k <= c ? Double(k - l) / Double(max(1, c - l)) : Double(r - k) / Double(max(1, r - c))
                w.append(Float(v))
            }
            // Area normalisation, so wide bands do not dominate.
            let area = w.reduce(0, +)
            if area > 0 { for j in w.indices { w[j] /= area } }
            bandStart.append(l)
            weightOffset.append(weights.count)
            bandWeightCount.append(w.count)
            weights.append(contentsOf: w)
            let f = Double(c) * binWidth
            if f <= onset.lowBandMaximum { lowBandCount += 1 }
            if f >= onset.highBandMinimum && highBandStart == Int.max { highBandStart = bandStart.count - 1 }
        }
        bandCount = bandStart.count
    }

    func consume(_ frame: SpectralFrame) {
        guard bandCount > 0 else {
            strength.append(0); lowStrength.append(0); energy.append(0); highStrength.append(0)
            return
        }
        let gamma = onset.gamma
        var total: Float = 0
        frame.magnitude.withUnsafeBufferPointer { mag in
            weights.withUnsafeBufferPointer { w in
                bands.withUnsafeMutableBufferPointer { out in
                    peak.withUnsafeMutableBufferPointer { pk in
                        for b in 0..<bandCount {
                            let start = bandStart[b], off = weightOffset[b], n = bandWeightCount[b]
                            var s: Float = 0
                            if start + n <= mag.count {
                                for j in 0..<n { s += mag[start + j] * w[off + j] }
                            }
                            total += s
                            var x = s
                            if onset.whitening {
                                let p = max(s, onset.whiteningFloor, onset.whiteningDecay * pk[b])
                                pk[b] = p
                                x = s / p
                            }
                            out[b] = log10(1 + gamma * x)
                        }
                    }
                }
            }
        }
        energy.append(log10(1 + gamma * total))

        // SuperFlux: difference against the maximum-filtered frame `lag` frames back.
        let lag = history.count
        var flux: Float = 0, lowFlux: Float = 0, highFlux: Float = 0
        if framesSeen >= lag {
            let ref = history[historyIndex]  // oldest frame = `lag` frames back
            let half = max(0, onset.maxFilterWidth / 2)
            ref.withUnsafeBufferPointer { r in
                for b in 0..<bandCount {
                    var m = r[b]
                    let lo = max(0, b - half), hi = min(bandCount - 1, b + half)
                    if lo <= hi { for j in lo...hi where r[j] > m { m = r[j] } }
                    let d = bands[b] - m
                    if d > 0 {
                        flux += d
                        if b < lowBandCount { lowFlux += d }
                        if b >= highBandStart { highFlux += d }
                    }
                }
            }
        }
        history[historyIndex] = bands
        historyIndex = (historyIndex + 1) % lag
        framesSeen += 1
        strength.append(flux)
        lowStrength.append(lowFlux)
        highStrength.append(highFlux)
    }

    func finish() -> OnsetFeatures {
        // The difference against `lag` frames back responds between the two frames; shift
        // the flux curves back by half the lag so value i belongs to frame i's centre.
        let shift = history.count / 2
        if shift > 0 {
            for arr in [\OnsetStrengthAccumulator.strength, \OnsetStrengthAccumulator.lowStrength, \OnsetStrengthAccumulator.highStrength] {
                var a = self[keyPath: arr]
                if a.count > shift {
                    a.removeFirst(shift)
                    a.append(contentsOf: [Float](repeating: 0, count: shift))
                }
                self[keyPath: arr] = a
            }
        }
        return OnsetFeatures(frameRate: configuration.frameRate, strength: strength, lowStrength: lowStrength,
                             energy: energy, highStrength: highStrength)
    }
}
