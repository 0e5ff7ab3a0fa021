import Foundation
import MusicUnderstanding

/// Standard output and error as the commands write them: a failed write (a full disk, a closed
/// pipe with SIGPIPE ignored) is reported to the caller, never a crash.
enum StandardStreams {
    /// Exit status of a command that stopped because its output could not be written.
    static let outputFailedStatus: Int32 = 3

    /// Writes `text` to standard output; the system's reason when it cannot be written.
    static func writeOutput(_ text: String) -> String? {
        do {
            try FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
            return nil
        } catch {
            return ReportSink.reason(error)
        }
    }

    /// Writes `text` to standard error; a failure is ignored (there is nowhere left to report it).
    static func writeError(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
    }
}
