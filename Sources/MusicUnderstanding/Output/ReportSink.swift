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
            self.init(
                path: path, reason: ReportSink.reason(error), errorNumber: code,
                isFatal: stream || code.map(fatalCodes.contains) == true)
        }
    }

    /// The output folder: that of ``directory(_:)``, or of a ``formatted(_:)`` writer into a folder
    /// (which gets the same collision naming, stale-temporary cleanup and resume); nil for a stream.
    public var folder: String? {
        switch self {
        case .ndjson: nil
        case .directory(let dir): dir
        case .formatted(let writer): writer.folder
        }
    }

    /// The file whose head tells a resumed batch whether the input of `reportPath` is current: the
    /// report itself, or the stamp file of a format whose files are no reports
    /// (``FormattedReportWriter/stampPath(forReportPath:)``).
    public func resumePath(forReportPath reportPath: String) -> String {
        if case .formatted(let writer) = self, writer.keepsStamps { return writer.stampPath(forReportPath: reportPath) }
        return reportPath
    }

    /// Writes one report. Throws ``WriteError`` when the output cannot be written (disk full, permissions).
    public func write(_ report: Report) throws(WriteError) {
        try write(report, reportPath: nil)
    }

    /// Writes one report; in a folder, to `reportPath` when given (``BatchJob`` passes the path it
    /// chose, see ``BatchJob/reportPath(for:)``), else to ``outputPath(for:in:)``.
    ///
    /// A folder's report is written to a temporary file beside it (``temporaryPath(for:)``) and
    /// renamed over the report, so a report file is always complete, even after a crash or
    /// `kill -9`; the temporary file of a killed writer is removed by the next batch
    /// (``removeStaleTemporaryFiles(in:olderThan:)``). Reports are not flushed with `fsync` one by one
    /// (about 10 ms each here, more than analysing a short file; a killed process loses nothing that
    /// was written). Should a power cut leave a report empty or cut short, it is no complete JSON
    /// object, and a resumed batch analyses its input again.
    public func write(_ report: Report, reportPath: String?) throws(WriteError) {
        if case .formatted(let writer) = self { return try writer.write(report, reportPath: reportPath) }
        var data = report.jsonLine()
        data.append(0x0A)
        switch self {
        case .ndjson(let fd):
            do { try Self.writeAll(data, to: fd) } catch { throw WriteError(path: "standard output", error: error, stream: true) }
        case .formatted: break
        case .directory(let dir):
            let target = reportPath ?? Self.outputPath(for: report.source.path, in: dir)
            try Self.writeAtomically(data, to: target)
        }
    }

    /// Writes `data` to the file `target` atomically: into ``temporaryPath(for:)`` beside it, then
    /// renamed over it, so `target` is never half written, and a failure leaves no temporary
    /// file. Creates the missing folders. The one atomic file writer of the library (reports,
    /// formatted reports, plots).
    static func writeAtomically(_ data: Data, to target: String) throws(WriteError) {
        let parent = (target as NSString).deletingLastPathComponent
        let folder = parent.isEmpty ? "." : parent
        // Names are handled as raw bytes (``FilePath``): a folder or file whose name is not UTF-8
        // is written where it says, not under the escaped characters' UTF-8.
        if let error = FilePath.createDirectories(folder) {
            if error.code == ENOTDIR || error.code == EEXIST { throw WriteError(path: folder, reason: "exists and is not a directory") }
            throw WriteError(path: folder, error: NSError(domain: NSPOSIXErrorDomain, code: Int(error.code)), stream: false)
        }
        let temporary = Self.temporaryPath(for: target)
        let fd = open(FilePath.cString(temporary), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw WriteError(path: target, reason: String(cString: strerror(errno))) }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: data)
            try handle.close()
        } catch {
            try? handle.close()
            unlink(FilePath.cString(temporary))
            throw WriteError(path: target, error: error, stream: false)
        }
        if rename(FilePath.cString(temporary), FilePath.cString(target)) != 0 {
            let code = errno
            unlink(FilePath.cString(temporary))
            throw WriteError(path: target, error: NSError(domain: NSPOSIXErrorDomain, code: Int(code)), stream: false)
        }
    }

    /// The temporary file a report is written to before it is renamed to `target`:
    /// `.<name>.tmp-<host>-<pid>` in the same folder (`.cadenza-<hash>.tmp-<host>-<pid>` for names
    /// so long that the suffix would not fit in a file name). Host and process id tell a later batch
    /// whether its writer is gone.
    public static func temporaryPath(for target: String) -> String {
        let folder = (target as NSString).deletingLastPathComponent
        let name = (target as NSString).lastPathComponent
        let suffix = ".tmp-\(hostName)-\(getpid())"
        let base = name.utf8.count + suffix.utf8.count < 250 ? name : "cadenza-" + String(FNV1a64.hash(name), radix: 16)
        return (folder.isEmpty ? "" : folder + "/") + "." + base + suffix
    }

    /// Removes temporary report files (``temporaryPath(for:)``) left in `dir` and its subfolders by
    /// writers that are gone: those of this host whose process no longer exists, and any older than
    /// `age` seconds (a report is renamed milliseconds after its temporary file is created, so an old
    /// one is stale whoever wrote it, e.g. another node of a cluster). Returns the removed paths.
    @discardableResult
    public static func removeStaleTemporaryFiles(in dir: String, olderThan age: TimeInterval = 600) -> [String] {
        var removed: [String] = []
        var stack = [dir]
        let now = Date().timeIntervalSince1970
        while let folder = stack.popLast() {
            guard let names = try? FilePath.contentsOfDirectory(folder).get() else { continue }
            for name in names {
                let path = folder + "/" + name
                var info = stat()
                guard lstat(FilePath.cString(path), &info) == 0 else { continue }
                if info.st_mode & S_IFMT == S_IFDIR { stack.append(path); continue }
                guard name.hasPrefix("."), info.st_mode & S_IFMT == S_IFREG,
                    let marker = name.range(of: ".tmp-", options: .backwards)
                else { continue }
                let owner = name[marker.upperBound...]
                guard let dash = owner.lastIndex(of: "-"), let pid = Int32(owner[owner.index(after: dash)...]) else { continue }
                let host = owner[..<dash]
                let old = now - (Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) * 1e-9) > age
                let writerGone = host == hostName && kill(pid, 0) != 0 && errno == ESRCH
                if (old || writerGone) && unlink(FilePath.cString(path)) == 0 { removed.append(path) }
            }
        }
        return removed.sorted()
    }

    /// This machine's host name as temporary file names carry it (`/` and `.` replaced by `_`).
    public static let hostName: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let cleaned = String(name.map { $0 == "/" || $0 == "." ? "_" : $0 })
        return cleaned.isEmpty ? "localhost" : cleaned
    }()

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

extension FilePath {
    /// The whole contents of the regular file at `path` (its raw name), or nil when it cannot be read.
    public static func contents(_ path: String) -> Data? {
        let fd = open(cString(path), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        return try? FileHandle(fileDescriptor: fd, closeOnDealloc: true).readToEnd() ?? Data()
    }
}
