import Foundation

/// One line of output: the report of one analysed input, or an error record, as the report
/// contract (`schemaVersion` 1) defines it.
public struct Report: Sendable, Codable {
    /// The contract version written by this library.
    public static let schemaVersion = 1

    /// An error record's reason.
    public struct ErrorInfo: Sendable, Codable, Hashable {
        /// Stable machine-readable code, e.g. `fileNotFound`, `decodeFailed`, `analysisUnavailable`.
        public var code: String
        /// Human-readable reason naming the input.
        public var message: String
        /// Creates an error description.
        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// Always ``schemaVersion``.
    public var schemaVersion: Int = Report.schemaVersion
    /// What made the report: name, version, analyses and configuration (extra field). With
    /// ``SourceInfo/size`` and ``SourceInfo/modified`` it tells a resumed batch whether the report is current.
    public var analyzer: AnalyzerInfo?
    /// The input.
    public var source: SourceInfo
    /// Why the input could not be analysed; `nil` for a report.
    public var error: ErrorInfo?
    /// Set when the input was damaged but partly analysed (e.g. a truncated file). Extra field.
    public var warning: String?
    /// The analysis results; `nil` for an error record.
    public var result: SessionResult?

    /// A report of a successful analysis.
    public init(source: SourceInfo, result: SessionResult, warning: String? = nil) {
        self.source = source
        self.result = result
        self.warning = warning
    }

    /// An error record.
    public init(path: String, error: any Error) {
        self.source = SourceInfo(path: path)
        switch error {
        case let e as AnalysisError: self.error = ErrorInfo(code: e.code, message: e.description)
        case let e as AudioDecodingError: self.error = ErrorInfo(code: e.code, message: e.description)
        default: self.error = ErrorInfo(code: "internalError", message: "\(path): \(error)")
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: ReportMemberKey.self)
        schemaVersion = try c.decode(Int.self, forKey: ReportMemberKey("schemaVersion"))
        analyzer = try c.decodeIfPresent(AnalyzerInfo.self, forKey: ReportMemberKey("analyzer"))
        source = try c.decode(SourceInfo.self, forKey: ReportMemberKey("source"))
        error = try c.decodeIfPresent(ErrorInfo.self, forKey: ReportMemberKey("error"))
        warning = try c.decodeIfPresent(String.self, forKey: ReportMemberKey("warning"))
        if error == nil {
            var result = SessionResult()
            for stage in AnalysisRegistry.stages { try stage.decodeResult(from: c, into: &result) }
            self.result = result
        }
    }

    public func encode(to encoder: any Encoder) throws {
        // Members in key order (the order they are written in), so that no member moves: the fixed
        // fields and one member per registered analysis that has a result.
        typealias Member = (name: String, write: (inout KeyedEncodingContainer<ReportMemberKey>) throws -> Void)
        var members: [Member] = [
            ("analyzer", { try $0.encodeIfPresent(analyzer, forKey: ReportMemberKey("analyzer")) }),
            ("error", { try $0.encodeIfPresent(error, forKey: ReportMemberKey("error")) }),
            ("schemaVersion", { try $0.encode(schemaVersion, forKey: ReportMemberKey("schemaVersion")) }),
            ("source", { try $0.encode(source, forKey: ReportMemberKey("source")) }),
            ("warning", { try $0.encodeIfPresent(warning, forKey: ReportMemberKey("warning")) }),
        ]
        if let result {
            for stage in AnalysisRegistry.stages {
                members.append((stage.type.rawValue, { try stage.encodeResult(of: result, into: &$0) }))
            }
        }
        var c = encoder.container(keyedBy: ReportMemberKey.self)
        for member in members.sorted(by: { $0.name < $1.name }) { try member.write(&c) }
    }

    /// A report file read back (one JSON object, as `--output` writes it), with its bytes; `nil`
    /// when the file cannot be read or does not hold a report. `cadenza index` keeps the bytes,
    /// tagging needs only the report.
    static func read(file path: String) -> (report: Report, data: Data)? {
        guard let data = FilePath.contents(path), let report = try? JSONLineDecoder().decode(Report.self, from: data) else { return nil }
        return (report, data)
    }

    /// The report as one line of compact, deterministic JSON (sorted keys, no trailing newline).
    ///
    /// The document `encode(to:)` defines, written by ``JSONLineEncoder``: the same bytes as
    /// `JSONEncoder` with `[.sortedKeys, .withoutEscapingSlashes]`, streamed into one buffer so
    /// that long files' reports cost about their own size in memory.
    public func jsonLine() -> Data {
        do {
            return try JSONLineEncoder().encode(self)
        } catch {
            // Not reached: nothing in the report's `encode(to:)` throws with this encoder. Should
            // that change, the line is still a valid error record naming the input.
            let record = Report(path: source.path, error: error)
            return (try? JSONLineEncoder().encode(record))
                ?? Data(#"{"error":{"code":"internalError","message":"the report could not be encoded"},"schemaVersion":1,"source":{"path":""}}"#.utf8)
        }
    }
}
