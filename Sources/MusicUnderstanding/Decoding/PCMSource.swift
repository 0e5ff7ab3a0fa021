/// Where the analysis pipeline's audio comes from: native-rate interleaved PCM, chunk by chunk.
///
/// ``AudioDecoder`` (files, standard input, devices) and the buffers a program hands to
/// ``MusicUnderstandingSession`` are the two inputs of this version; ``FileAnalyzer/analyze(_:cancellation:onLoudnessStep:onProgress:)``
/// is the one loop that drives the pipeline from either. To add an input, conform to this
/// protocol: every buffer must share the first one's sample rate and channel layout.
public protocol PCMSource: AnyObject {
    /// What is known about the input: its path or name, and as far as known its rate, channels
    /// and codec (the analysis sets the exact duration).
    var source: SourceInfo { get }
    /// Set when the input was damaged but partly read; `nil` otherwise.
    var damageNote: String? { get }
    /// The next chunk of audio, or `nil` at the end of the input.
    func read() throws(AudioDecodingError) -> PCMBuffer?
}

extension AudioDecoder: PCMSource {}
