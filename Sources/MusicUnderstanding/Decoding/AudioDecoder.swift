import Foundation

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
///
/// The first (best) audio stream is decoded with libavcodec and converted with libswresample to
/// packed 32-bit float at the stream's native sample rate and channel layout, both taken from the
/// first decoded frame. Should the decoder's output format change mid-stream, the converter is
/// rebuilt so that every buffer keeps the first frame's rate and layout. Memory stays bounded:
/// one chunk of a few hundred milliseconds is held at a time, whatever the length of the input.
///
/// Damaged input decodes as far as it can: undecodable packets are skipped (decoding gives up
/// after ``maximumConsecutiveErrors`` in a row), and a file that ends before its header says it
/// should is decoded to its end. Both are reported in ``damageNote``.
///
/// Not `Sendable`: it owns FFmpeg contexts and is used by one task at a time.
public final class AudioDecoder {
    /// Consecutive failed packets after which decoding stops, keeping what was decoded.
    public static let maximumConsecutiveErrors = 100
    /// Sample rates accepted (4 kHz … 768 kHz): a header outside is refused as damaged or hostile.
    public static let supportedSampleRates = FFmpeg.sampleRates

    /// What is known about the input; `duration` becomes exact once decoding has finished.
    public private(set) var source: SourceInfo
    /// Native sample rate.
    public let sampleRate: Int
    /// Channel positions in interleaving order.
    public let channels: [AudioChannel]
    /// Set when the data ended early or was damaged; what was decodable has been returned.
    public private(set) var damageNote: String?

    private let reader: FFmpegAudioReader

    /// The protocol or device `path` names when it is not a local file: `"http"` for
    /// `http://host/x.mp3`, `"lavfi"` for `lavfi:sine=f=1000`; `nil` for a file (existing or not)
    /// and for "-" (standard input).
    public static func inputScheme(_ path: String) -> String? {
        guard path != "-", (try? FilePath.status(path).get()) == nil else { return nil }
        if let range = path.range(of: "://"), range.lowerBound != path.startIndex {
            let scheme = path[..<range.lowerBound]
            if scheme.first?.isLetter == true,
                scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") })
            {
                return scheme.lowercased()
            }
        }
        if let colon = path.firstIndex(of: ":") {
            let name = path[..<colon].lowercased()
            // FFmpeg's own protocols that take no "//" (concat:, subfile:, data:, ...) and its devices.
            if FFmpeg.audioDevices.contains(name) || Self.colonProtocols.contains(name) { return name }
        }
        return nil
    }

    /// FFmpeg protocols written `name:` without `//`, which FFmpeg would open for a bare path.
    static let colonProtocols: Set<String> = [
        "concat", "concatf", "subfile", "data", "crypto", "cache", "async",
        "pipe", "fd", "file", "md5", "tee", "ffrtmphttp", "gopher", "hls",
    ]

    /// Whether `path` names an FFmpeg input device rather than a file: `alsa:default`,
    /// `pulse:default`, `jack:cadenza`, `oss:/dev/dsp`, or the virtual `lavfi:sine=f=1000:d=5`.
    /// A device that this FFmpeg lacks is still a device: opening it fails with
    /// ``AudioDecodingError/unreadable(path:reason:)`` saying so, not as a missing file.
    public static func isDevice(_ path: String) -> Bool { FFmpeg.deviceName(path) != nil }

    /// Opens `path` ("-" for standard input; "scheme://..." for a URL FFmpeg can open); with
    /// `rawFormat` the input is headerless PCM.
    ///
    /// Opening decodes the first frame, so the native format is known (and a file holding no
    /// decodable audio fails here, not on the first ``read()``). Errors name the input:
    /// ``AudioDecodingError/fileNotFound(path:)``, ``AudioDecodingError/permissionDenied(path:)``,
    /// ``AudioDecodingError/noAudioStream(path:)``, ``AudioDecodingError/unsupportedCodec(path:codec:)``,
    /// ``AudioDecodingError/corruptData(path:reason:)`` (also for an empty file, or a header claiming a
    /// sample rate outside 4000...768000 Hz or more than 64 channels) and
    /// ``AudioDecodingError/zeroLength(path:)``.
    ///
    /// With `interrupt`, a read that waits for data (a stalled pipe on standard input, a network
    /// source) gives up as soon as the token is cancelled, and the decoder reports no more audio.
    public init(path: String, rawFormat: RawPCMFormat? = nil, interrupt: CancellationToken? = nil) throws(AudioDecodingError) {
        let reader = try FFmpegAudioReader(
            path: path, rawFormat: rawFormat,
            maximumConsecutiveErrors: Self.maximumConsecutiveErrors, interrupt: interrupt)
        self.reader = reader
        sampleRate = reader.sampleRate
        channels = reader.channels
        source = SourceInfo(
            path: path, duration: reader.estimatedDuration, sampleRate: reader.sampleRate,
            channels: reader.channels.count, codec: reader.codecName)
    }

    /// The next chunk of audio at the native rate and layout, or `nil` at the end of the input.
    ///
    /// Chunks from files hold about 16k sample frames; with a raw PCM format (a live input) each
    /// chunk is handed out as soon as the demuxer delivers it (at most about 0.1 s of audio).
    public func read() throws(AudioDecodingError) -> PCMBuffer? {
        let samples = reader.readChunk()
        damageNote = reader.damageNote
        if reader.isFinished { source.duration = reader.decodedDuration }
        guard let samples else { return nil }
        return PCMBuffer(sampleRate: Double(sampleRate), channels: channels, samples: samples)
    }
}
