/// Why an analysis could not run.
public enum AnalysisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The analysis is not implemented in this version.
    case unavailable(AnalysisType)
    /// The input could not be decoded.
    case decoding(AudioDecodingError)
    /// The audio provider delivered buffers whose format changed mid-stream.
    case inconsistentFormat(String)
    /// `analyze` was called while another analysis of the same session was running.
    case alreadyRunning
    /// `cancel()` was called.
    case cancelled

    /// A stable machine-readable code, used as `error.code` in error records.
    public var code: String {
        switch self {
        case .unavailable: "analysisUnavailable"
        case .decoding(let e): e.code
        case .inconsistentFormat: "inconsistentFormat"
        case .alreadyRunning: "alreadyRunning"
        case .cancelled: "cancelled"
        }
    }

    public var description: String {
        switch self {
        case .unavailable(let t): "\(t.rawValue) analysis is not available in this version"
        case .decoding(let e): e.description
        case .inconsistentFormat(let why): "audio provider changed format mid-stream: \(why)"
        case .alreadyRunning: "an analysis is already running on this session"
        case .cancelled: "analysis cancelled"
        }
    }
}
