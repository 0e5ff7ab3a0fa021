import Foundation

/// Settings of the shared spectral representation that the musical analyses consume.
public struct FeatureConfiguration: Sendable, Hashable, Codable {
    /// Rate of the mono analysis signal, Hz.
    public var sampleRate: Double = 22_050
    /// STFT frame length in samples (Hann window).
    public var frameSize: Int = 2048
    /// STFT hop in samples; `sampleRate / hopSize` frames per second.
    public var hopSize: Int = 256

    /// STFT frames per second.
    public var frameRate: Double { sampleRate / Double(hopSize) }
    /// Width of one STFT bin in Hz.
    public var binWidth: Double { sampleRate / Double(frameSize) }
    /// Number of STFT bins, `frameSize / 2 + 1`.
    public var binCount: Int { frameSize / 2 + 1 }

    /// The default configuration.
    public init() {}
}

/// One STFT frame handed to the feature consumers.
///
/// Frame `index` is centred on time `index * hopSize / sampleRate` (the signal is padded with
/// half a frame of zeros at both ends, as in librosa's centred STFT). When onset strength is
/// computed, a few frames with negative indices (centred before the start, on the zero padding)
/// come first and go to the onset accumulator only, so that an onset at t = 0 enters the leading
/// edge of a window as every later onset does (`OnsetStrengthAccumulator.prerollFrames`).
struct SpectralFrame {
    /// Frame number, from 0.
    var index: Int
    /// Magnitude of each bin (`binCount` values) of the Hann-windowed frame.
    var magnitude: [Float]
}

/// Something that turns STFT frames into a feature (onset strength, chroma, ...).
protocol SpectralFrameConsumer: AnyObject {
    /// Consumes the next frame; frames arrive in order, each once.
    func consume(_ frame: SpectralFrame)
}

/// A shared representation of the input, computed at most once per input and only when an
/// analysis that is run declares it (``AnalysisStage/features``).
public enum Feature: String, Sendable, Hashable, CaseIterable {
    /// EBU R128 loudness of the native-rate, all-channel PCM (``LoudnessMeter``).
    case loudness
    /// Onset strength (SuperFlux) with its low band, frame energy and semitone-filterbank
    /// chroma blocks, from the shared STFT (``OnsetFeatures``).
    case onset
    /// Harmonic pitch-class profile from the shared STFT (``ChromaFeatures``).
    case chroma
    /// Log mel band energies and MFCCs, the timbre of the shared STFT (``MelFeatures``).
    case melBands
    /// MFCCs only (``MelFeatures`` with empty `bands`): the timbre summary at a quarter of
    /// ``melBands``' memory (13 instead of 53 values per vector, 4 MB instead of 16 MB per hour).
    case mfcc
    /// Harmonic, percussive and residual band energies by median-filtering separation of the
    /// shared STFT (``HarmonicPercussiveFeatures``).
    case harmonicPercussive
    /// Pitch motion of the tonal partials (the fluctogram's vocal cue) at 10 Hz
    /// (``PitchFluctuationFeatures``).
    case pitchFluctuation

    /// Whether the feature is computed from the shared STFT of the mono analysis signal.
    var needsSpectrum: Bool { self != .loudness }
}

/// The shared features of one input, computed in one pass over the audio.
public struct SharedFeatures: Sendable {
    /// The STFT settings the features were computed with.
    public var configuration: FeatureConfiguration
    /// Number of STFT frames.
    public var frameCount: Int
    /// Duration of the input, seconds: native frames over the native rate (the one duration
    /// the report, the session and every analysis use).
    public var duration: Double
    /// Onset strength curves, when ``Feature/onset`` was computed.
    public var onset: OnsetFeatures?
    /// Chroma, when ``Feature/chroma`` was computed.
    public var chroma: ChromaFeatures?
    /// Loudness of the whole input, when ``Feature/loudness`` was computed.
    public var loudness: LoudnessResult?
    /// Mel band energies and MFCCs, when ``Feature/melBands`` was computed (MFCCs only, with
    /// empty `bands`, when just ``Feature/mfcc`` was).
    public var mel: MelFeatures?
    /// Harmonic/percussive/residual band energies, when ``Feature/harmonicPercussive`` was computed.
    public var harmonicPercussive: HarmonicPercussiveFeatures?
    /// Pitch fluctuation of the partials, when ``Feature/pitchFluctuation`` was computed.
    public var pitchFluctuation: PitchFluctuationFeatures?

    /// Creates a feature set (tests and custom stages).
    public init(
        configuration: FeatureConfiguration = .init(), frameCount: Int = 0, duration: Double,
        onset: OnsetFeatures? = nil, chroma: ChromaFeatures? = nil, loudness: LoudnessResult? = nil,
        mel: MelFeatures? = nil, harmonicPercussive: HarmonicPercussiveFeatures? = nil,
        pitchFluctuation: PitchFluctuationFeatures? = nil
    ) {
        self.configuration = configuration
        self.frameCount = frameCount
        self.duration = duration
        self.onset = onset
        self.chroma = chroma
        self.loudness = loudness
        self.mel = mel
        self.harmonicPercussive = harmonicPercussive
        self.pitchFluctuation = pitchFluctuation
    }
}

extension SharedFeatures {
    /// Drops every representation that none of `needed` uses (its arrays are freed unless held
    /// elsewhere). The pipeline calls it after each stage with the features of the stages still
    /// to run, so that a 3-hour input does not hold all its features through every analysis.
    mutating func keepOnly(_ needed: Set<Feature>) {
        for feature in FeatureRegistry.all where needed.isDisjoint(with: feature.serves) { feature.clear(&self) }
    }
}

/// The shared feature stage: takes the mono analysis signal in chunks of any size, runs one
/// STFT over it (FFTW, planned once) and feeds every frame to the feature consumers.
///
/// Memory stays bounded: only one frame of samples is held; consumers keep compact per-frame
/// features.
final class FeatureStage {
    let configuration: FeatureConfiguration
    private let fft: RealFFT
    private let window: [Float]
    private var pending: [Float]
    private var pendingStart = 0
    private var frameIndex = 0
    private var power: [Float]
    private var magnitude: [Float]
    private var extractors: [RunningExtractor<SpectralFrame>] = []
    private let prerollFrames: Int

    /// Creates the stage; only the requested spectral features are computed.
    init(features: Set<Feature>, configuration settings: AnalysisConfiguration = .init()) {
        let configuration = settings.features
        self.configuration = configuration
        let n = configuration.frameSize
        fft = RealFFT(size: n)
        // Periodic Hann window.
        window = (0..<n).map { i in Float(0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n))) }
        extractors = FeatureRegistry.spectral
            .filter { !$0.serves.isDisjoint(with: features) }
            .map { $0.start(features, settings, ExtractorHooks()) }
        prerollFrames = extractors.map(\.prerollFrames).max() ?? 0
        pending = [Float](repeating: 0, count: n / 2 + prerollFrames * configuration.hopSize)  // centre padding
        frameIndex = -prerollFrames
        pending.reserveCapacity(4 * n)
        power = [Float](repeating: 0, count: configuration.binCount)
        magnitude = [Float](repeating: 0, count: configuration.binCount)
    }

    /// Appends mono samples at `configuration.sampleRate`.
    func append(_ samples: [Float]) {
        let start = pending.count
        pending.append(contentsOf: samples)
        // Damaged input can carry NaN or infinity: one bad sample must not poison every feature.
        for i in start..<pending.count where !pending[i].isFinite { pending[i] = 0 }
        processFrames()
    }

    /// Ends the input and returns the spectral features; `duration` is the input's duration.
    func finish(duration: Double) -> SharedFeatures {
        // Pad so that the last real sample falls in a frame centre region.
        pending.append(contentsOf: [Float](repeating: 0, count: configuration.frameSize / 2))
        processFrames()
        var shared = SharedFeatures(configuration: configuration, frameCount: max(0, frameIndex), duration: duration)
        for extractor in extractors { extractor.finish(&shared) }
        return shared
    }

    private func processFrames() {
        let n = configuration.frameSize, hop = configuration.hopSize
        guard pending.count - pendingStart >= n else { return }
        // Hot loop: locals and buffer pointers held for the whole batch of frames, so that the
        // per-sample work meets no exclusivity checks on the stage's properties.
        var start = pendingStart
        var index = frameIndex
        let extractors = self.extractors
        let fft = self.fft
        var magnitude = self.magnitude
        self.magnitude = []
        var power = self.power
        self.power = []
        pending.withUnsafeBufferPointer { src in
            window.withUnsafeBufferPointer { win in
                power.withUnsafeMutableBufferPointer { p in
                    while src.count - start >= n {
                        fft.powerSpectrum(of: UnsafeBufferPointer(rebasing: src[start..<start + n]), window: win, into: p)
                        magnitude.withUnsafeMutableBufferPointer { m in
                            for k in 0..<min(m.count, p.count) { m[k] = p[k].squareRoot() }
                        }
                        let spectral = SpectralFrame(index: index, magnitude: magnitude)
                        for extractor in extractors where index >= -extractor.prerollFrames { extractor.consume(spectral) }
                        index += 1
                        start += hop
                    }
                }
            }
        }
        self.magnitude = magnitude
        self.power = power
        frameIndex = index
        pendingStart = start
        // Compact the buffer once the consumed prefix is large.
        if pendingStart > 8 * n {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
    }
}
