// STUB: the loudness helper replaces this.

/// The state of a loudness measurement after each 100 ms of audio.
public struct LoudnessStep: Sendable, Hashable {
    /// End of the 100 ms step, seconds from the start.
    public var time: Double
    /// Momentary loudness (400 ms), LUFS; `-infinity` for silence.
    public var momentary: Float
    /// Short-term loudness (3 s), LUFS; `-infinity` for silence or before 3 s... see docs.
    public var shortTerm: Float
    /// Integrated loudness so far, LUFS.
    public var integrated: Float
    /// Loudness range so far, LU.
    public var loudnessRange: Float
    /// True peak so far, dBTP.
    public var truePeak: Float
    /// Sample peak so far, dBFS.
    public var samplePeak: Float
}

/// An EBU R128 / ITU-R BS.1770-4 loudness meter for any sample rate and channel layout.
public final class LoudnessMeter {
    /// Creates a meter for audio at `sampleRate` with the given channel positions.
    public init(sampleRate: Double, channels: [AudioChannel]) {}

    /// Adds interleaved samples (any count of whole frames); `onStep` is called after each
    /// completed 100 ms step.
    public func add(_ samples: [Float], onStep: ((LoudnessStep) -> Void)? = nil) {}

    /// The complete result for everything added so far.
    public func result() -> LoudnessResult {
        LoudnessResult(
            integrated: .init(time: 0, value: -.infinity), momentary: [], shortTerm: [],
            peak: .init(time: 0, value: -.infinity), loudnessRange: 0, truePeak: -.infinity)
    }
}
