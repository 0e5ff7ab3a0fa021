import Foundation

/// Where finished reports go: NDJSON lines on a file descriptor, or one file per input.
public enum ReportSink: Sendable {
    /// One compact JSON line per report, flushed as soon as it is complete.
    case ndjson(fileDescriptor: Int32)
    /// `DIR/<input path>.json` for each input, written atomically (temporary file, then rename).
    case directory(String)
    /// Another format (CSV, JAMS, labels, pretty JSON) to a stream or a folder (`Output/ReportFormat.swift`).
    case formatted(FormattedReportWriter)

    /// Why a report could not be written: the file (or "standard output") and the system's reason.
    public struct WriteError: Error, Sendable, CustomStringConvertible {
        /// The file that could not be written.
        public var path: String
        /// The reason, e.g. "No space left on device".
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// Writes one report. Throws ``WriteError`` when the output cannot be written (disk full, permissions).
    public func write(_ report: Report) throws(WriteError) {
        if case .formatted(let writer) = self { return try writer.write(report) }
        var data = report.jsonLine()
        data.append(0x0A)
        switch self {
        case .ndjson(let fd):
            do { try Self.writeAll(data, to: fd) } catch { throw WriteError(path: "standard output", reason: Self.reason(error)) }
        case .formatted: break
        case .directory(let dir):
            let target = Self.outputPath(for: report.source.path, in: dir)
            let folder = (target as NSString).deletingLastPathComponent
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                var isDirectory: ObjCBool = false
                let inTheWay = FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) && !isDirectory.boolValue
                throw WriteError(path: folder, reason: inTheWay ? "exists and is not a directory" : Self.reason(error))
            }
            let temporary = folder + "/." + (target as NSString).lastPathComponent + ".tmp-\(getpid())"
            do {
                try data.write(to: URL(fileURLWithPath: temporary))
            } catch {
                unlink(temporary)
                throw WriteError(path: target, reason: Self.reason(error))
            }
            if rename(temporary, target) != 0 {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw WriteError(path: target, reason: reason)
            }
        }
    }

    /// The system's reason inside a Foundation file error (its underlying POSIX error), for messages.
    public static func reason(_ error: any Error) -> String {
        var current = error as NSError
        while true {
            if current.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(current.code))) }
            guard let underlying = current.userInfo[NSUnderlyingErrorKey] as? any Error else { break }
            current = underlying as NSError
        }
        return "\(error)"
    }

    /// `x/y.mp3` → `DIR/x/y.mp3.json`; absolute paths and `..` are folded inside `DIR`;
    /// standard input (`-`) → `DIR/stdin.json`.
    public static func outputPath(for input: String, in dir: String) -> String {
        let parts = input.split(separator: "/").filter { $0 != "." && $0 != ".." && !$0.isEmpty }
        let relative = parts.isEmpty || input == "-" ? "stdin" : parts.joined(separator: "/")
        return (dir.hasSuffix("/") ? String(dir.dropLast()) : dir) + "/" + relative + ".json"
    }

    private static func writeAll(_ data: Data, to fd: Int32) throws {
        try FileHandle(fileDescriptor: fd, closeOnDealloc: false).write(contentsOf: data)
    }
}
