// STUB: the decoding helper replaces this file with the FFmpeg implementation.

/// Raw PCM on an input without a container (for `cadenza meter` on a pipe).
public struct RawPCMFormat: Sendable, Hashable {
    /// Sample encoding of raw PCM.
    public enum SampleFormat: String, Sendable, CaseIterable {
        /// 32-bit float, little-endian.
        case f32le
        /// 16-bit signed integer, little-endian.
        case s16le
    }
    /// Sample encoding.
    public var sampleFormat: SampleFormat
    /// Samples per second.
    public var sampleRate: Int
    /// Interleaved channels.
    public var channels: Int

    /// Creates a raw PCM description.
    public init(sampleFormat: SampleFormat, sampleRate: Int, channels: Int) {
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channels = channels
    }
}

/// Decodes any file or stream FFmpeg can open to interleaved float PCM, chunk by chunk.
public final class AudioDecoder {
    /// What is known about the input; `duration` becomes exact once decoding has finished.
    public private(set) var source: SourceInfo
    /// Native sample rate.
    public let sampleRate: Int
    /// Channel positions in interleaving order.
    public let channels: [AudioChannel]
    /// Set when the data ended early or was damaged; what was decodable has been returned.
    public private(set) var damageNote: String?

    /// Opens `path` ("-" for standard input); with `rawFormat` the input is headerless PCM.
    public init(path: String, rawFormat: RawPCMFormat? = nil) throws(DecodingError) {
        throw .corruptData(path: path, reason: "decoder not implemented")
    }

    /// The next chunk of audio at the native rate and layout, or `nil` at the end of the input.
    public func read() throws(DecodingError) -> PCMBuffer? { nil }
}

/// Downmixes interleaved PCM to mono and resamples it to the analysis rate (libswresample).
public final class MonoResampler {
    /// Creates a resampler from `inputRate` with `channelCount` channels to mono at `outputRate`.
    public init(inputRate: Double, channels: [AudioChannel], outputRate: Double) throws(DecodingError) {}

    /// Converts one buffer; the output may lag the input by the filter delay.
    public func process(_ buffer: PCMBuffer) -> [Float] { [] }

    /// Returns the samples still held in the filter at the end of the input.
    public func flush() -> [Float] { [] }
}
