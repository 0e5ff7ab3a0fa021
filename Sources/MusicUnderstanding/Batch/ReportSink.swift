import Foundation

/// Where finished reports go: NDJSON lines on a file descriptor, or one file per input.
public enum ReportSink: Sendable {
    /// One compact JSON line per report, flushed as soon as it is complete.
    case ndjson(fileDescriptor: Int32)
    /// `DIR/<input path>.json` for each input, written atomically (temporary file, then rename).
    case directory(String)

    /// Writes one report. Throws when the output cannot be written (disk full, permissions).
    public func write(_ report: Report) throws {
        var data = report.jsonLine()
        switch self {
        case .ndjson(let fd):
            data.append(0x0A)
            try Self.writeAll(data, to: fd)
        case .directory(let dir):
            let target = Self.outputPath(for: report.source.path, in: dir)
            let folder = (target as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let temporary = folder + "/." + (target as NSString).lastPathComponent + ".tmp-\(getpid())"
            data.append(0x0A)
            try data.write(to: URL(fileURLWithPath: temporary))
            if rename(temporary, target) != 0 {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(target): \(reason)"])
            }
        }
    }

    /// `x/y.mp3` → `DIR/x/y.mp3.json`; absolute paths and `..` are folded inside `DIR`.
    public static func outputPath(for input: String, in dir: String) -> String {
        let parts = input.split(separator: "/").filter { $0 != "." && $0 != ".." && !$0.isEmpty }
        let relative = parts.isEmpty ? "stdin" : parts.joined(separator: "/")
        return (dir.hasSuffix("/") ? String(dir.dropLast()) : dir) + "/" + relative + ".json"
    }

    private static func writeAll(_ data: Data, to fd: Int32) throws {
        try FileHandle(fileDescriptor: fd, closeOnDealloc: false).write(contentsOf: data)
    }
}
