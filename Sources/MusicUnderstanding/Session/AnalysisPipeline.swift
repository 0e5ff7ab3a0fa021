import Synchronization

/// A flag that `cancel()` sets and the pipeline polls between chunks.
final class CancellationFlag: Sendable {
    private let state = Atomic<Bool>(false)
    var isCancelled: Bool { state.load(ordering: .relaxed) }
    func cancel() { state.store(true, ordering: .relaxed) }
}

/// One pass over one input: decoded PCM goes once through the loudness meter and once through
/// the mono resampler into the shared feature stage; the analyses then consume the features.
///
/// Data flows one way: PCM → (loudness) and PCM → mono → STFT → features → analyses.
final class AnalysisPipeline {
    let types: Set<AnalysisType>
    private let featureConfiguration: FeatureConfiguration
    private var meter: LoudnessMeter?
    private var resampler: MonoResampler?
    private var featureStage: FeatureStage?
    private var format: (rate: Double, channels: [AudioChannel])?
    private let onLoudnessStep: (@Sendable (LoudnessStep) -> Void)?
    private(set) var framesIn = 0

    /// Creates a pipeline computing `types`; `onLoudnessStep` sees each 100 ms loudness step.
    init(types: Set<AnalysisType>, featureConfiguration: FeatureConfiguration = .init(),
         onLoudnessStep: (@Sendable (LoudnessStep) -> Void)? = nil) {
        self.types = types
        self.featureConfiguration = featureConfiguration
        self.onLoudnessStep = onLoudnessStep
    }

    private var needsFeatures: Bool { types.contains(.rhythm) || types.contains(.key) }

    /// Feeds one buffer. All buffers must share rate and layout.
    func consume(_ buffer: PCMBuffer, path: String) throws(AnalysisError) {
        if let format {
            guard format.rate == buffer.sampleRate, format.channels == buffer.channels else {
                throw .inconsistentFormat("\(path): buffer format changed from \(format.rate) Hz × \(format.channels.count) to \(buffer.sampleRate) Hz × \(buffer.channelCount)")
            }
        } else {
            guard buffer.sampleRate > 0, buffer.channelCount > 0 else {
                throw .inconsistentFormat("\(path): buffer with \(buffer.sampleRate) Hz and \(buffer.channelCount) channels")
            }
            format = (buffer.sampleRate, buffer.channels)
            if types.contains(.loudness) {
                meter = LoudnessMeter(sampleRate: buffer.sampleRate, channels: buffer.channels)
            }
            if needsFeatures {
                do {
                    resampler = try MonoResampler(inputRate: buffer.sampleRate, channels: buffer.channels,
                                                  outputRate: featureConfiguration.sampleRate)
                } catch {
                    throw .decoding(error)
                }
                featureStage = FeatureStage(configuration: featureConfiguration, onset: true,
                                            chroma: types.contains(.key))
            }
        }
        framesIn += buffer.frameCount
        meter?.add(buffer.samples, onStep: onLoudnessStep)
        if let resampler, let featureStage {
            featureStage.append(resampler.process(buffer))
        }
    }

    /// Ends the input and runs the analyses.
    func finish() -> SessionResult {
        var result = SessionResult()
        if let meter { result.loudness = meter.result() }
        if let resampler, let featureStage {
            featureStage.append(resampler.flush())
            let features = featureStage.finish()
            var rhythm: RhythmResult?
            if types.contains(.rhythm) || types.contains(.key) {
                rhythm = RhythmAnalyzer().analyze(features)
            }
            if types.contains(.rhythm) { result.rhythm = rhythm }
            if types.contains(.key) { result.key = KeyAnalyzer().analyze(features, rhythm: rhythm) }
        } else if needsFeatures {
            // No audio at all: empty results rather than invented ones.
            if types.contains(.rhythm) { result.rhythm = RhythmResult(beats: [], bars: [], beatsPerMinute: nil) }
            if types.contains(.key) { result.key = KeyResult(ranges: []) }
        }
        return result
    }
}
