/// Why an input could not be decoded. Every case names the input.
public enum AudioDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No file at the path.
    case fileNotFound(path: String)
    /// The file exists but cannot be read.
    case permissionDenied(path: String)
    /// The container holds no audio stream (for example a video-only file or an image).
    case noAudioStream(path: String)
    /// FFmpeg cannot decode the audio codec.
    case unsupportedCodec(path: String, codec: String)
    /// The data is not a recognisable audio file, or it is corrupt. `reason` says what FFmpeg reported.
    case corruptData(path: String, reason: String)
    /// The file decodes to no audio at all.
    case zeroLength(path: String)
    /// Decoding was cancelled.
    case cancelled(path: String)
    /// The file system refuses the path for another reason than permissions or absence (a name
    /// too long for the system, a loop of symbolic links, an I/O error). `reason` is the system's.
    case unreadable(path: String, reason: String)
    /// The input names a network protocol or an FFmpeg device (`http://…`, `lavfi:…`), which the
    /// batch was not allowed to open.
    case protocolNotAllowed(path: String, scheme: String)

    /// A stable machine-readable code, used as `error.code` in error records.
    public var code: String {
        switch self {
        case .fileNotFound: "fileNotFound"
        case .permissionDenied: "permissionDenied"
        case .noAudioStream: "noAudioStream"
        case .unsupportedCodec: "unsupportedCodec"
        case .corruptData: "decodeFailed"
        case .zeroLength: "zeroLength"
        case .cancelled: "cancelled"
        case .unreadable: "unreadable"
        case .protocolNotAllowed: "protocolNotAllowed"
        }
    }

    /// The input the error is about.
    public var path: String {
        switch self {
        case .fileNotFound(let p), .permissionDenied(let p), .noAudioStream(let p), .corruptData(let p, _),
            .zeroLength(let p), .cancelled(let p), .unsupportedCodec(let p, _), .unreadable(let p, _),
            .protocolNotAllowed(let p, _):
            p
        }
    }

    public var description: String {
        switch self {
        case .fileNotFound(let p): "\(p): no such file"
        case .permissionDenied(let p): "\(p): permission denied"
        case .noAudioStream(let p): "\(p): no audio stream in the file"
        case .unsupportedCodec(let p, let c): "\(p): unsupported audio codec '\(c)'"
        case .corruptData(let p, let r): "\(p): not decodable audio (\(r))"
        case .zeroLength(let p): "\(p): the file contains no audio samples"
        case .cancelled(let p): "\(p): decoding cancelled"
        case .unreadable(let p, let r): "\(p): cannot be read (\(r))"
        case .protocolNotAllowed(let p, let scheme):
            "\(p): not a file but a '\(scheme)' input, which this batch does not open (files, folders and '-' only unless the protocol is allowed)"
        }
    }
}
