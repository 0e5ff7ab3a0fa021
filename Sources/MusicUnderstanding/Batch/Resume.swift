import Foundation

/// What a resumed batch reads from an existing report: who made it, from which file (path, size,
/// modification time) and whether it is an error record. The rest of the report is skipped over
/// without being decoded, so checking 10,000 reports takes a second, not minutes.
public struct ReportHead: Sendable, Hashable, Decodable {
    /// The report's `analyzer` (nil in reports written before it existed).
    public var analyzer: AnalyzerInfo?
    /// The report's `source`.
    public var source: SourceInfo
    /// The report's `error`, when it is an error record.
    public var error: Report.ErrorInfo?

    /// Creates a head from its parts.
    public init(analyzer: AnalyzerInfo?, source: SourceInfo, error: Report.ErrorInfo?) {
        self.analyzer = analyzer
        self.source = source
        self.error = error
    }

    /// The head of the report in `data` (one JSON object, as ``ReportSink`` writes it), or nil when
    /// `data` is not a complete JSON object with a `source` (a foreign or damaged file).
    ///
    /// The top-level members are delimited by a small scanner that steps over strings, objects and
    /// arrays; only `analyzer`, `source` and `error` are decoded.
    public static func read(from data: Data) -> ReportHead? {
        let bytes = [UInt8](data)
        var scanner = TopLevelScanner(bytes: bytes)
        guard let members = scanner.members(wanted: ["analyzer", "source", "error"]) else { return nil }
        var document: [UInt8] = [UInt8(ascii: "{")]
        for (index, member) in members.enumerated() {
            if index > 0 { document.append(UInt8(ascii: ",")) }
            document += Array("\"\(member.key)\":".utf8)
            document += bytes[member.value]
        }
        document.append(UInt8(ascii: "}"))
        return try? JSONDecoder().decode(ReportHead.self, from: Data(document))
    }

    /// The head of the report file at `path`, or nil when there is none or it cannot be read.
    public static func read(path: String) -> ReportHead? {
        guard let data = FilePath.contents(path) else { return nil }
        return read(from: data)
    }
}

/// Whether an existing report may be kept instead of analysing its input again.
public enum ResumePolicy {
    /// Error codes that describe the file's content, so the same file gives them again: such an
    /// error record is kept like a report. Every other error record (a missing or unreadable file,
    /// an interruption, an internal error) is redone.
    public static let contentErrorCodes: Set<String> = ["decodeFailed", "noAudioStream", "unsupportedCodec", "zeroLength"]

    /// A report is current when it was made from `input` as spelt now, by `analyzer` (same name,
    /// version, analyses and configuration), from a file of the same size and modification time
    /// (`stamp`, nil for standard input: never current), and it is not an error record that may
    /// not happen again.
    public static func isCurrent(_ head: ReportHead, input: String, stamp: FileStamp?, analyzer: AnalyzerInfo) -> Bool {
        guard let stamp, head.source.path == input, head.analyzer == analyzer,
            head.source.size == stamp.size, head.source.modified == stamp.modified
        else { return false }
        if let error = head.error { return contentErrorCodes.contains(error.code) }
        return true
    }
}
