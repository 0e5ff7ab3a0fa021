/// One pass over one input: decoded PCM goes once through the PCM-level feature extractors
/// (loudness) and once through the mono resampler into the shared feature stage (the STFT
/// extractors); then the planned stages run in dependency order, each on its declared features
/// and its dependencies' results.
///
/// Data flows one way: PCM → (loudness) and PCM → mono → STFT → features → analyses → result.
/// The extractors are those of ``FeatureRegistry`` whose features the planned stages declare.
final class AnalysisPipeline {
    /// The analyses whose results are returned.
    let types: Set<AnalysisType>
    /// The stages run, each after those it depends on (the requested ones and their dependencies).
    let stages: [any AnalysisStage.Type]
    /// The shared features the stages declared.
    let features: Set<Feature>
    private let configuration: AnalysisConfiguration
    private var pcmExtractors: [RunningExtractor<PCMBuffer>] = []
    private var resampler: MonoResampler?
    private var featureStage: FeatureStage?
    private var format: (rate: Double, channels: [AudioChannel])?
    private let onLoudnessStep: (@Sendable (LoudnessStep) -> Void)?
    /// Native-rate frames consumed so far.
    private(set) var framesIn = 0

    /// Creates a pipeline computing `types`; `onLoudnessStep` sees each 100 ms loudness step.
    ///
    /// - Throws: ``AnalysisError/unavailable(_:)`` for an analysis this version does not have.
    init(
        types: Set<AnalysisType>, configuration: AnalysisConfiguration = .init(),
        onLoudnessStep: (@Sendable (LoudnessStep) -> Void)? = nil
    ) throws(AnalysisError) {
        self.types = types
        self.configuration = configuration
        self.onLoudnessStep = onLoudnessStep
        stages = try AnalysisRegistry.plan(for: types)
        features = stages.reduce(into: Set<Feature>()) { $0.formUnion($1.features) }
    }

    /// The input's duration so far, seconds (native frames over the native rate).
    var duration: Double {
        guard let format, format.rate > 0 else { return 0 }
        return Double(framesIn) / format.rate
    }

    /// Native sample rate and channel count, once the first buffer arrived.
    var nativeFormat: (sampleRate: Double, channels: Int)? {
        format.map { ($0.rate, $0.channels.count) }
    }

    /// Feeds one buffer. All buffers must share rate and layout.
    func consume(_ buffer: PCMBuffer, path: String) throws(AnalysisError) {
        if let format {
            guard format.rate == buffer.sampleRate, format.channels == buffer.channels else {
                throw .inconsistentFormat(
                    "\(path): buffer format changed from \(format.rate) Hz × \(format.channels.count) to \(buffer.sampleRate) Hz × \(buffer.channelCount)")
            }
        } else {
            guard buffer.sampleRate > 0, buffer.sampleRate.isFinite, buffer.channelCount > 0 else {
                throw .inconsistentFormat("\(path): buffer with \(buffer.sampleRate) Hz and \(buffer.channelCount) channels")
            }
            guard (Double(FFmpeg.minimumSampleRate)...Double(FFmpeg.maximumSampleRate)).contains(buffer.sampleRate) else {
                throw .decoding(.corruptData(path: path, reason: "sample rate \(buffer.sampleRate) Hz is outside \(FFmpeg.sampleRateText)"))
            }
            format = (buffer.sampleRate, buffer.channels)
            let hooks = ExtractorHooks(onLoudnessStep: onLoudnessStep)
            pcmExtractors = FeatureRegistry.pcm
                .filter { !$0.serves.isDisjoint(with: features) }
                .map { $0.start(features, configuration, hooks) }
            if features.contains(where: \.needsSpectrum) {
                do {
                    resampler = try MonoResampler(
                        inputRate: buffer.sampleRate, channels: buffer.channels,
                        outputRate: configuration.features.sampleRate)
                } catch {
                    throw .decoding(error)
                }
                featureStage = FeatureStage(features: features, configuration: configuration)
            }
        }
        framesIn += buffer.frameCount
        var buffer = buffer
        sanitize(&buffer.samples)
        for extractor in pcmExtractors { extractor.consume(buffer) }
        if let resampler, let featureStage {
            featureStage.append(resampler.process(buffer))
        }
    }

    /// Largest sample magnitude analysed (+36.1 dBFS). Float files may legitimately exceed full
    /// scale a little; beyond this a sample is damage, and its square would overflow `Float` sums
    /// (one 1e30 sample reads as a 600 dB true peak).
    static let sampleLimit: Float = 64

    /// Samples that were NaN or ±infinity (analysed as 0, silence).
    private(set) var nonFiniteSamples = 0
    /// Finite samples beyond ±``sampleLimit`` (analysed as 0, silence).
    private(set) var hugeSamples = 0

    /// What was done to unusable samples, for the report's `warning`; nil when there were none.
    var sampleNote: String? {
        var notes: [String] = []
        if nonFiniteSamples > 0 {
            notes.append("\(nonFiniteSamples) non-finite sample\(nonFiniteSamples == 1 ? "" : "s") (NaN or infinity)")
        }
        if hugeSamples > 0 {
            notes.append("\(hugeSamples) sample\(hugeSamples == 1 ? "" : "s") beyond ±\(Int(Self.sampleLimit)) (+36.1 dBFS)")
        }
        return notes.isEmpty ? nil : notes.joined(separator: " and ") + " analysed as silence"
    }

    /// Replaces NaN, infinities and samples beyond ±``sampleLimit`` by 0 (silence), counting them,
    /// so that one damaged sample cannot poison the loudness of the rest. One comparison per sample
    /// when everything is in range (the array is copied only otherwise).
    private func sanitize(_ samples: inout [Float]) {
        let limit = Self.sampleLimit
        guard !samples.allSatisfy({ $0.magnitude <= limit }) else { return }
        for i in samples.indices where !(samples[i].magnitude <= limit) {
            if samples[i].isFinite { hugeSamples += 1 } else { nonFiniteSamples += 1 }
            samples[i] = 0
        }
    }

    /// Runs one stage; its context ends with the call.
    ///
    /// The context holds only what the stage declared: its ``AnalysisStage/features`` (the others
    /// are `nil` in its copy of the features) and the results of its
    /// ``AnalysisStage/dependencies`` (the others are `nil`), so that an undeclared read finds
    /// nothing instead of depending on the order the stages happen to run in.
    private static func run(
        _ stage: any AnalysisStage.Type, on features: SharedFeatures, configuration: AnalysisConfiguration,
        into all: inout SessionResult, cancellation: CancellationToken
    ) throws(AnalysisError) {
        var declared = features
        declared.keepOnly(stage.features)
        var dependencies = SessionResult()
        for type in stage.dependencies { AnalysisRegistry.stage(for: type)?.copyResult(from: all, into: &dependencies) }
        let context = AnalysisContext(
            features: declared, configuration: configuration,
            results: dependencies, cancellation: cancellation)
        try stage.run(in: context, into: &all)
    }

    /// Ends the input and runs the stages; only the requested results are returned.
    /// Call it once: the pipeline's buffers are freed as it goes.
    func finish(cancellation: CancellationToken) throws(AnalysisError) -> SessionResult {
        try cancellation.check()
        var shared: SharedFeatures
        if let resampler, let featureStage {
            featureStage.append(resampler.flush())
            shared = featureStage.finish(duration: duration)
        } else {
            shared = SharedFeatures(configuration: configuration.features, duration: duration)
        }
        for extractor in pcmExtractors { extractor.finish(&shared) }
        // The STFT stage and every extractor are done: free their buffers before the analyses
        // run, and each feature once the last stage that declares it has run.
        featureStage = nil
        resampler = nil
        pcmExtractors = []
        var all = SessionResult()
        for (index, stage) in stages.enumerated() {
            try Self.run(stage, on: shared, configuration: configuration, into: &all, cancellation: cancellation)
            shared.keepOnly(stages[(index + 1)...].reduce(into: Set<Feature>()) { $0.formUnion($1.features) })
        }
        try cancellation.check()
        var result = SessionResult()
        for stage in stages where types.contains(stage.type) { stage.copyResult(from: all, into: &result) }
        return result
    }
}
