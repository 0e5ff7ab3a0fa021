/// EBU R128 loudness as a shared feature of the native-rate PCM (``Feature/loudness``): the
/// meter is made on the first buffer, whose rate and channel layout it measures, and sees every
/// buffer as it is decoded.
final class LoudnessExtractor: PCMFeatureExtractor {
    private let configuration: LoudnessMeter.Configuration
    private let onStep: (@Sendable (LoudnessStep) -> Void)?
    private var meter: LoudnessMeter?

    /// An extractor measuring with `configuration`; `onStep` sees each 100 ms step.
    init(configuration: LoudnessMeter.Configuration, onStep: (@Sendable (LoudnessStep) -> Void)?) {
        self.configuration = configuration
        self.onStep = onStep
    }

    func consume(_ buffer: PCMBuffer) {
        let meter =
            self.meter
            ?? LoudnessMeter(
                sampleRate: buffer.sampleRate, channels: buffer.channels,
                configuration: configuration)
        self.meter = meter
        meter.add(buffer.samples, onStep: onStep)
    }

    /// The loudness of everything consumed (of silence when nothing was: ``LoudnessResult/ofNoAudio``).
    func finish() -> LoudnessResult {
        meter?.result() ?? LoudnessResult.ofNoAudio
    }
}

extension LoudnessResult {
    /// The loudness of an input that holds no audio: what a meter that saw no samples reports
    /// (integrated and range of silence, peaks of zero).
    static var ofNoAudio: LoudnessResult { LoudnessMeter(sampleRate: 48_000, channels: [.frontLeft]).result() }
}
