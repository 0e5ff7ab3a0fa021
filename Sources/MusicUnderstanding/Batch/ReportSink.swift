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
    public struct WriteError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The file that could not be written.
        public var path: String
        /// The reason, e.g. "No space left on device".
        public var reason: String
        /// The `errno` value behind it, when known.
        public var errorNumber: Int32?
        /// Whether the output as a whole is unusable, so every further report would fail too and
        /// the batch stops: any failure on the NDJSON stream (a closed pipe, a full disk), and for a
        /// folder a full disk or quota, a read-only or failing file system.
        public var isFatal = false
        public var description: String { "\(path): \(reason)" }

        init(path: String, reason: String, errorNumber: Int32? = nil, isFatal: Bool = false) {
            self.path = path
            self.reason = reason
            self.errorNumber = errorNumber
            self.isFatal = isFatal
        }

        init(path: String, error: any Error, stream: Bool) {
            let code = ReportSink.errorNumber(error)
            let fatalCodes: Set<Int32> = [ENOSPC, EDQUOT, EROFS, EIO]
            self.init(path: path, reason: ReportSink.reason(error), errorNumber: code,
                      isFatal: stream || code.map(fatalCodes.contains) == true)
        }
    }

    /// Writes one report. Throws ``WriteError`` when the output cannot be written (disk full, permissions).
    public func write(_ report: Report) throws(WriteError) {
        if case .formatted(let writer) = self { return try writer.write(report) }
        var data = report.jsonLine()
        data.append(0x0A)
        switch self {
        case .ndjson(let fd):
            do { try Self.writeAll(data, to: fd) } catch { throw WriteError(path: "standard output", error: error, stream: true) }
        case .formatted: break
        case .directory(let dir):
            let target = Self.outputPath(for: report.source.path, in: dir)
            let folder = (target as NSString).deletingLastPathComponent
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                var isDirectory: ObjCBool = false
                let inTheWay = FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) && !isDirectory.boolValue
                if inTheWay { throw WriteError(path: folder, reason: "exists and is not a directory") }
                throw WriteError(path: folder, error: error, stream: false)
            }
            let temporary = folder + "/." + (target as NSString).lastPathComponent + ".tmp-\(getpid())"
            do {
                try data.write(to: URL(fileURLWithPath: temporary))
            } catch {
                unlink(temporary)
                throw WriteError(path: target, error: error, stream: false)
            }
            if rename(temporary, target) != 0 {
                let code = errno
                unlink(temporary)
                throw WriteError(path: target, error: NSError(domain: NSPOSIXErrorDomain, code: Int(code)), stream: false)
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

    /// The POSIX error number inside a Foundation file error, when there is one.
    static func errorNumber(_ error: any Error) -> Int32? {
        var current = error as NSError
        while true {
            if current.domain == NSPOSIXErrorDomain { return Int32(current.code) }
            guard let underlying = current.userInfo[NSUnderlyingErrorKey] as? any Error else { return nil }
            current = underlying as NSError
        }
    }

    /// `x/y.mp3` → `DIR/x/y.mp3.json`; absolute paths and `..` are folded inside `DIR`;
    /// standard input (`-`) → `DIR/stdin.json`.
    public static func outputPath(for input: String, in dir: String) -> String {
        let parts = input.split(separator: "/").filter { $0 != "." && $0 != ".." && !$0.isEmpty }
        let relative = parts.isEmpty || input == "-" ? "stdin" : parts.joined(separator: "/")
        return (dir.hasSuffix("/") ? String(dir.dropLast()) : dir) + "/" + relative + ".json"
    }

    /// Writes the whole line or, when the output is a file, nothing: a write that fails half-way
    /// (a disk that fills up) is cut back to where the line began, so no half line is left.
    private static func writeAll(_ data: Data, to fd: Int32) throws {
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
        var info = stat()
        var start: UInt64?  // where the line begins in a regular file; nil for a pipe or terminal
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG {
            start = fcntl(fd, F_GETFL) & O_APPEND != 0 ? UInt64(info.st_size) : try? handle.offset()
        }
        do {
            try handle.write(contentsOf: data)
        } catch {
            if let start, fstat(fd, &info) == 0, UInt64(info.st_size) > start {
                try? handle.truncate(atOffset: start)
            }
            throw error
        }
    }
}
