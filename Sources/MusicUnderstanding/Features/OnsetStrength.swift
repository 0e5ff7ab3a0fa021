import Foundation

/// Onset-strength curves at the STFT frame rate, shared by rhythm, pace and structure analyses.
///
/// Value `i` of `strength` and `lowStrength` stands for an onset at `i / frameRate` seconds;
/// value `i` of `energy` belongs to STFT frame `i`, centred there. The flux of frame `m` against
/// frame `m − lag` is not centred on its frames: log compression makes it respond as soon as an
/// onset enters the leading edge of frame `m`'s window, and it is largest at the last frame whose
/// reference frame does not yet contain the onset, i.e. for an onset at `c(m) + N/2 − lag · hop`
/// (frame centre `c(m)`, window length `N`: two hops for the default 2048/256 with lag 2). The
/// curves are placed by that rule (``OnsetStrengthAccumulator/alignmentFrames``). Measured peak
/// positions against the true onsets: clicks and impulses −3 to −2 ms, drums and plucked notes
/// +1 ms, bowed (40 ms) attacks −22 ms.
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
    /// Relative flux, aligned like `strength`: the share of the (unwhitened, linear) filterbank
    /// magnitude that is new against `lag` frames back, `Σ max(0, s − s′) / max(Σ s, Σ s′)`, in
    /// `0 ... 1`. It measures how much new sound an onset brings, whatever the whitening makes
    /// of quiet bands: a steady tone stays near 0 (the whitened flux of its −100 dB Hann
    /// side-lobes, which beat with the frame phase, is periodic and made a sine look like a
    /// pulse), a new note over sustained ones is a few tenths.
    public var relativeFlux: [Float]
    /// Log energy of each frame, `log10(1 + gamma * sum of band magnitudes)`; useful for
    /// silence and dynamics.
    public var energy: [Float]
    /// High-band onset strength (filterbank bands above `OnsetConfiguration.highBandMinimum`:
    /// hi-hats, cymbals, the noise bursts of snares; tonal partials are weak there), one value
    /// per STFT frame, computed like `strength`. Empty when not computed.
    public var highStrength: [Float]
    /// Log energy of the high band (the bands of `highStrength`), `log10(1 + gamma * sum of their
    /// magnitudes)` like `energy`, one value per frame aligned like `energy`: how loud the
    /// cymbals, hats and sibilants are, the masker of a hi-hat under a crash. Empty when not
    /// computed.
    public var highEnergy: [Float]
    /// Linear onset strength, aligned like `strength`: the half-wave rectified flux of the raw
    /// (unwhitened, uncompressed) filterbank magnitudes against `lag` frames back,
    /// `Σ max(0, s − s′)` (the numerator of `relativeFlux`). Loud onsets dominate it, as they
    /// dominate what a listener hears: the kick and snare of a drum kit, not the hats that the
    /// whitening raises to their level. Empty when not computed.
    public var linearStrength: [Float]
    /// Power of each frame in decibels, `10 log10 Σ |X_k|²` over every bin of the frame's
    /// spectrum (−240 for digital silence), one value per frame aligned like `energy`. Unlike
    /// `energy`, whose semitone bands crowd the low bins, it weighs the spectrum as a level meter
    /// does: a soft high note is as loud here as its power. Empty when not computed.
    public var level: [Float] {
        didSet { loudLevel = Self.loudLevel(of: level) }
    }
    /// The level of the loud frames: the 95th percentile of ``level``, dB; `nil` without levels.
    /// The silence tests measure their depth from it (``MusicSpan``, rhythm's silent beats), so
    /// a recording played quieter keeps its silences.
    public private(set) var loudLevel: Float?
    /// Creates onset features (mostly for tests).
    public init(
        frameRate: Double, strength: [Float], lowStrength: [Float] = [], relativeFlux: [Float] = [],
        energy: [Float] = [], highStrength: [Float] = [], highEnergy: [Float] = [], linearStrength: [Float] = [],
        level: [Float] = []
    ) {
        self.frameRate = frameRate
        self.strength = strength
        self.lowStrength = lowStrength
        self.relativeFlux = relativeFlux
        self.energy = energy
        self.level = level
        self.loudLevel = Self.loudLevel(of: level)
        self.highStrength = highStrength
        self.highEnergy = highEnergy
        self.linearStrength = linearStrength
    }

    /// Number of frames of the curves.
    public var count: Int { strength.count }

    /// The 95th percentile of `level`, ``loudLevel``.
    static func loudLevel(of level: [Float]) -> Float? { Smoothing.quantile(level, 0.95) }
}

/// Settings of the onset-strength computation.
public struct OnsetConfiguration: Sendable, Hashable, Codable {
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
    /// Frames before the start (centred on the zero padding) that the feature stage feeds to the
    /// accumulator, `N / (2 · hop) + lag`: with them an onset at t = 0 enters the leading edge of
    /// a window and reaches its flux peak like any later onset (without them the first frame
    /// already holds it at its centre, and its beat was lost).
    static func prerollFrames(_ configuration: FeatureConfiguration, onset: OnsetConfiguration) -> Int {
        max(0, alignmentFrames(configuration, onset: onset)) + max(1, onset.lag)
    }

    /// Frames by which the flux of frame `m` lags the onset it stands for:
    /// `round(N / (2 · hop)) − lag`. An onset at `t` enters frame `m`'s window when
    /// `c(m) = t − N/2`; the log-compressed flux `L(m) − L(m − lag)` peaks at the last frame whose
    /// reference `m − lag` is still free of it, `c(m) = t − N/2 + lag · hop` (with a Hann window
    /// the band value has passed half its final level `lag` hops in, the `diff_ratio` rule of
    /// Böck & Widmer 2013, sec. 2.2). So value `m + alignmentFrames` of the curve is the flux of
    /// frame `m`.
    static func alignmentFrames(_ configuration: FeatureConfiguration, onset: OnsetConfiguration) -> Int {
        let hop = max(1, configuration.hopSize)
        return Int((Double(configuration.frameSize) / Double(2 * hop)).rounded()) - max(1, onset.lag)
    }

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
    private var rawBands: [Float]
    // Raw band sums of the last `lag` frames, ring (for the relative flux).
    private var rawHistory: [[Float]]
    private var maxFiltered: [Float]
    // Outputs.
    // The curves, in chunks (``ChunkedFloats``): the eight grow in step, and arrays would double together.
    private var strength = ChunkedFloats()
    private var lowStrength = ChunkedFloats()
    private var relativeFlux = ChunkedFloats()
    private var energy = ChunkedFloats()
    private var highStrength = ChunkedFloats()
    private var highEnergy = ChunkedFloats()
    private var linearStrength = ChunkedFloats()
    private var level = ChunkedFloats()

    init(configuration: FeatureConfiguration, onset: OnsetConfiguration = .init()) {
        self.configuration = configuration
        self.onset = onset
        history = []
        rawHistory = []
        rawBands = []
        peak = []
        bands = []
        maxFiltered = []
        buildFilterbank()
        let lag = max(1, onset.lag)
        history = [[Float]](repeating: [Float](repeating: 0, count: bandCount), count: lag)
        peak = [Float](repeating: onset.whiteningFloor, count: bandCount)
        bands = [Float](repeating: 0, count: bandCount)
        maxFiltered = [Float](repeating: 0, count: bandCount)
        rawBands = [Float](repeating: 0, count: bandCount)
        rawHistory = [[Float]](repeating: [Float](repeating: 0, count: bandCount), count: lag)
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
            strength.append(0); lowStrength.append(0); relativeFlux.append(0); energy.append(0); highStrength.append(0)
            highEnergy.append(0); linearStrength.append(0); level.append(Self.decibels(power: frame.magnitude))
            framesSeen += 1
            return
        }
        let gamma = onset.gamma
        var total: Float = 0, high: Float = 0
        let highStart = highBandStart
        frame.magnitude.withUnsafeBufferPointer { mag in
            weights.withUnsafeBufferPointer { w in
                bands.withUnsafeMutableBufferPointer { out in
                    rawBands.withUnsafeMutableBufferPointer { raw in
                        peak.withUnsafeMutableBufferPointer { pk in
                            for b in 0..<bandCount {
                                let start = bandStart[b], off = weightOffset[b], n = bandWeightCount[b]
                                var s: Float = 0
                                if start + n <= mag.count {
                                    for j in 0..<n { s += mag[start + j] * w[off + j] }
                                }
                                total += s
                                if b >= highStart { high += s }
                                raw[b] = s
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
        }
        energy.append(log10(1 + gamma * total))
        highEnergy.append(log10(1 + gamma * high))
        level.append(Self.decibels(power: frame.magnitude))
        appendFlux()
    }

    /// `10 log10 Σ m²` of the magnitudes `m`, at least −240.
    static func decibels(power magnitude: [Float]) -> Float {
        // Eight independent lanes, which the compiler keeps in vector registers (a single float
        // accumulator may not be reordered, and costs 2 % of rhythm's time at 1025 bins a frame).
        let power = magnitude.withUnsafeBufferPointer { m -> Float in
            let n = m.count, whole = n / 8 * 8
            var lanes = SIMD8<Float>(repeating: 0)
            var i = 0
            while i < whole {
                let v = SIMD8<Float>(m[i], m[i + 1], m[i + 2], m[i + 3], m[i + 4], m[i + 5], m[i + 6], m[i + 7])
                lanes += v * v
                i += 8
            }
            var sum = lanes.sum()
            while i < n {
                sum += m[i] * m[i]
                i += 1
            }
            return sum
        }
        return power > 1e-24 ? 10 * log10(power) : -240
    }

    /// Half-wave rectified SuperFlux of the frame just whitened (`bands`), and the relative
    /// linear flux of its raw band sums (`rawBands`).
    private func appendFlux() {
        // SuperFlux: difference against the maximum-filtered frame `lag` frames back.
        let lag = history.count
        var flux: Float = 0, lowFlux: Float = 0, highFlux: Float = 0
        // Before the first frame the reference is the zero padding (compressed silence, 0), so
        // the first onset counts like any other.
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
        // Relative flux: the share of the band magnitude that is new against `lag` frames back,
        // Σ max(0, s − s′) / max(Σ s, Σ s′) (a linear, unwhitened flux normalised by the louder
        // of the two frames).
        var rise: Float = 0, before: Float = 0, now: Float = 0
        rawHistory[historyIndex].withUnsafeBufferPointer { r in
            for b in 0..<bandCount {
                before += r[b]
                now += rawBands[b]
                if rawBands[b] > r[b] { rise += rawBands[b] - r[b] }
            }
        }
        let louder = max(now, before)
        relativeFlux.append(louder > 0 ? rise / louder : 0)
        linearStrength.append(rise)
        rawHistory[historyIndex] = rawBands
        history[historyIndex] = bands
        historyIndex = (historyIndex + 1) % lag
        framesSeen += 1
        strength.append(flux)
        lowStrength.append(lowFlux)
        highStrength.append(highFlux)
    }

    func finish() -> OnsetFeatures {
        // The accumulator saw `prerollFrames` frames before frame 0 (their flux is in the first
        // values, their energy is not reported). Value i of the curves is the flux of frame
        // i − alignmentFrames (see `alignmentFrames`), counted from the first pre-roll frame.
        let preroll = Self.prerollFrames(configuration, onset: onset)
        let align = Self.alignmentFrames(configuration, onset: onset)
        let frames = max(0, framesSeen - preroll)
        // Shifted in place (value i becomes raw value i + shift, zeros outside), each curve taken
        // out of its chunks first, so that no curve exists twice (a 3-hour input has 0.9 million
        // frames per curve).
        let shift = preroll - align
        func aligned(_ raw: inout ChunkedFloats) -> [Float] {
            var out = raw.takeArray(capacity: frames)
            if shift > 0 {
                out.removeFirst(min(shift, out.count))
            } else if shift < 0 {
                out.insert(contentsOf: repeatElement(0, count: -shift), at: 0)
            }
            if out.count > frames {
                out.removeLast(out.count - frames)
            } else if out.count < frames {
                out.append(contentsOf: repeatElement(0, count: frames - out.count))
            }
            return out
        }
        var energyOut = energy.takeArray()
        if energyOut.count > frames { energyOut.removeFirst(energyOut.count - frames) }
        var highEnergyOut = highEnergy.takeArray()
        if highEnergyOut.count > frames { highEnergyOut.removeFirst(highEnergyOut.count - frames) }
        var levelOut = level.takeArray()
        if levelOut.count > frames { levelOut.removeFirst(levelOut.count - frames) }
        return OnsetFeatures(
            frameRate: configuration.frameRate, strength: aligned(&strength),
            lowStrength: aligned(&lowStrength), relativeFlux: aligned(&relativeFlux),
            energy: energyOut, highStrength: aligned(&highStrength), highEnergy: highEnergyOut,
            linearStrength: aligned(&linearStrength), level: levelOut)
    }
}
