/// Something that turns one pass over the input into one shared feature value.
///
/// An extractor sees its input once, in order, and is finished once; what it keeps in between
/// is its own (compact per-frame values, never the audio).
protocol FeatureExtractor: AnyObject, SendableMetatype {
    /// The finished feature (``OnsetFeatures``, ``ChromaFeatures``, ``LoudnessResult``, ...).
    associatedtype Value: Sendable
    /// Ends the input and returns the feature.
    func finish() -> Value
}

/// An extractor fed with the STFT frames of the mono analysis signal (``FeatureStage``).
protocol SpectralFeatureExtractor: FeatureExtractor, SpectralFrameConsumer {}

/// An extractor fed with the native-rate, all-channel PCM as it is decoded.
protocol PCMFeatureExtractor: FeatureExtractor {
    /// Consumes the next buffer; buffers arrive in order, each once.
    func consume(_ buffer: PCMBuffer)
}

/// What the caller of an analysis can watch while extractors run.
struct ExtractorHooks {
    /// Sees every 100 ms loudness step while decoding.
    var onLoudnessStep: (@Sendable (LoudnessStep) -> Void)?
}

/// A feature extractor at work on one input: the frames or buffers go in, and `finish` stores
/// the value in the input's ``SharedFeatures``.
struct RunningExtractor<Input> {
    /// Feeds the next frame or buffer.
    let consume: (Input) -> Void
    /// Frames before the first (centred on the zero padding) it wants to see; 0 for most.
    let prerollFrames: Int
    /// Ends the input and stores the feature.
    let finish: (inout SharedFeatures) -> Void
}

/// How one shared feature is made and where it is kept: the one place to declare a feature.
struct FeatureDefinition<Input>: Sendable {
    /// The ``Feature`` keys it serves (``Feature/melBands`` and ``Feature/mfcc`` share one).
    let serves: Set<Feature>
    /// Starts an extractor for an input, given every requested feature and the settings.
    let start: @Sendable (_ requested: Set<Feature>, _ settings: AnalysisConfiguration, _ hooks: ExtractorHooks) -> RunningExtractor<Input>
    /// Drops the finished value from a feature set.
    let clear: @Sendable (inout SharedFeatures) -> Void

    /// Declares a feature made by extractor `make`, kept at `store`.
    static func extractor<E: FeatureExtractor>(
        _ serves: Set<Feature>, store: WritableKeyPath<SharedFeatures, E.Value?> & Sendable,
        prerollFrames: @escaping @Sendable (AnalysisConfiguration) -> Int = { _ in 0 },
        consume: @escaping @Sendable (E, Input) -> Void,
        make: @escaping @Sendable (_ requested: Set<Feature>, _ settings: AnalysisConfiguration, _ hooks: ExtractorHooks) -> E
    ) -> FeatureDefinition {
        FeatureDefinition(
            serves: serves,
            start: { requested, settings, hooks in
                let extractor = make(requested, settings, hooks)
                return RunningExtractor(
                    consume: { consume(extractor, $0) }, prerollFrames: prerollFrames(settings),
                    finish: { $0[keyPath: store] = extractor.finish() })
            },
            clear: { $0[keyPath: store] = nil })
    }
}

extension FeatureDefinition where Input == SpectralFrame {
    /// Declares a feature computed from the shared STFT.
    static func spectral<E: SpectralFeatureExtractor>(
        _ serves: Set<Feature>, store: WritableKeyPath<SharedFeatures, E.Value?> & Sendable,
        prerollFrames: @escaping @Sendable (AnalysisConfiguration) -> Int = { _ in 0 },
        make: @escaping @Sendable (_ requested: Set<Feature>, _ settings: AnalysisConfiguration) -> E
    ) -> FeatureDefinition {
        extractor(
            serves, store: store, prerollFrames: prerollFrames, consume: { $0.consume($1) },
            make: { requested, settings, _ in make(requested, settings) })
    }
}

extension FeatureDefinition where Input == PCMBuffer {
    /// Declares a feature computed from the native-rate PCM.
    static func pcm<E: PCMFeatureExtractor>(
        _ serves: Set<Feature>, store: WritableKeyPath<SharedFeatures, E.Value?> & Sendable,
        make: @escaping @Sendable (_ requested: Set<Feature>, _ settings: AnalysisConfiguration, _ hooks: ExtractorHooks) -> E
    ) -> FeatureDefinition {
        extractor(serves, store: store, consume: { $0.consume($1) }, make: make)
    }
}

/// The shared features this version computes, beside ``AnalysisRegistry``: a feature is an
/// extractor, a ``Feature`` key, a ``SharedFeatures`` property and one line here. The pipeline
/// starts the extractors of the features the planned stages declare, and nothing else.
enum FeatureRegistry {
    /// Features of the shared STFT of the mono analysis signal, in the order they see each frame.
    static let spectral: [FeatureDefinition<SpectralFrame>] = [
        .spectral(
            [.onset], store: \.onset,
            prerollFrames: { OnsetStrengthAccumulator.prerollFrames($0.features, onset: $0.onset) },
            make: { _, s in OnsetStrengthAccumulator(configuration: s.features, onset: s.onset) }),
        .spectral(
            [.chroma], store: \.chroma,
            make: { _, s in ChromaAccumulator(configuration: s.features, settings: s.chroma) }),
        .spectral(
            [.melBands, .mfcc], store: \.mel,
            make: { requested, s in
                MelBandAccumulator(configuration: s.features, settings: s.mel, keepsBands: requested.contains(.melBands))
            }),
        .spectral(
            [.harmonicPercussive], store: \.harmonicPercussive,
            make: { _, s in HarmonicPercussiveAccumulator(configuration: s.features, settings: s.harmonicPercussive) }),
        .spectral(
            [.pitchFluctuation], store: \.pitchFluctuation,
            make: { _, s in PitchFluctuationAccumulator(configuration: s.features) }),
    ]

    /// Features of the native-rate, all-channel PCM.
    static let pcm: [FeatureDefinition<PCMBuffer>] = [
        .pcm(
            [.loudness], store: \.loudness,
            make: { _, s, hooks in LoudnessExtractor(configuration: s.loudness, onStep: hooks.onLoudnessStep) })
    ]

    /// Every feature's ``FeatureDefinition/clear``, with the keys it serves.
    static let all: [(serves: Set<Feature>, clear: @Sendable (inout SharedFeatures) -> Void)] =
        spectral.map { ($0.serves, $0.clear) } + pcm.map { ($0.serves, $0.clear) }
}

extension OnsetStrengthAccumulator: SpectralFeatureExtractor {}
extension ChromaAccumulator: SpectralFeatureExtractor {}
extension MelBandAccumulator: SpectralFeatureExtractor {}
extension HarmonicPercussiveAccumulator: SpectralFeatureExtractor {}
extension PitchFluctuationAccumulator: SpectralFeatureExtractor {}
