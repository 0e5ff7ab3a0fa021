import Foundation

/// Why a plot could not be made.
public enum PlotError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The report file could not be read.
    case unreadableReport(path: String, reason: String)
    /// The file is not a Cadenza report (not JSON, or not of the report contract).
    case notAReport(path: String, reason: String)
    /// The report is an error record: there is nothing to draw.
    case errorRecord(path: String, message: String)
    /// The output name ends in neither `.html` nor `.svg`.
    case unsupportedOutput(path: String)
    /// The picture could not be written.
    case writeFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadableReport(let path, let reason): "\(path): cannot read the report: \(reason)"
        case .notAReport(let path, let reason): "\(path): not a Cadenza report: \(reason)"
        case .errorRecord(_, let message): message
        case .unsupportedOutput(let path): "\(path): the output must end in .html or .svg"
        case .writeFailed(let path, let reason): "\(path): \(reason)"
        }
    }
}

extension ReportPlot {
    /// The kinds of picture file.
    public enum FileKind: String, Sendable {
        /// A self-contained HTML page, or an SVG picture.
        case html, svg

        /// The kind a file name asks for (`.html`, `.htm`, `.svg`), or `nil`.
        public init?(path: String) {
            switch (path as NSString).pathExtension.lowercased() {
            case "html", "htm": self = .html
            case "svg": self = .svg
            default: return nil
            }
        }
    }

    /// Whether `path` names an existing report rather than audio (`.json`, `.ndjson`, `.jsonl`).
    public static func isReportFile(_ path: String) -> Bool {
        ["json", "ndjson", "jsonl"].contains((path as NSString).pathExtension.lowercased())
    }

    /// The reports in a JSON file as `cadenza analyze` writes them: one report (`--output`, or
    /// `--format json --output`), an array of reports (`--format json`), or NDJSON lines.
    public static func reports(fromJSON data: Data, path: String) throws(PlotError) -> [Report] {
        let decoder = JSONLineDecoder()
        do {
            if let single = try? decoder.decode(Report.self, from: data) { return [single] }
            if let array = try? decoder.decode([Report].self, from: data) { return array }
            var reports: [Report] = []
            for line in data.split(separator: 0x0A) where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) {
                reports.append(try decoder.decode(Report.self, from: Data(line)))
            }
            if reports.isEmpty { throw PlotError.notAReport(path: path, reason: "no report in the file") }
            return reports
        } catch let error as PlotError {
            throw error
        } catch {
            throw .notAReport(path: path, reason: Self.decodingReason(error))
        }
    }

    /// The report to draw for `path`: read from it when it is a report file (the first report
    /// in it), else the analysis of the audio by `analyzer`.
    /// - Throws: ``PlotError`` for an unreadable or foreign report file, or an error record.
    public static func report(for path: String, analyzer: FileAnalyzer = FileAnalyzer()) throws(PlotError) -> Report {
        let report: Report
        if isReportFile(path) {
            let data: Data
            switch FilePath.status(path) {
            case .failure(let error): throw .unreadableReport(path: path, reason: error.description)
            case .success:
                guard let contents = FilePath.contents(path) else {
                    throw .unreadableReport(path: path, reason: FilePath.isReadable(path) ? "cannot be read" : FilePath.SystemError(EACCES).description)
                }
                data = contents
            }
            guard let first = try reports(fromJSON: data, path: path).first else {
                throw .notAReport(path: path, reason: "no report in the file")
            }
            report = first
        } else {
            report = analyzer.report(path: path)
        }
        if let error = report.error { throw .errorRecord(path: report.source.path, message: error.message) }
        return report
    }

    /// Writes the picture to `path` as HTML or SVG (by its extension), atomically (a temporary
    /// file, then rename), so an existing picture is never half overwritten.
    public func write(to path: String) throws(PlotError) {
        guard let kind = FileKind(path: path) else { throw .unsupportedOutput(path: path) }
        let text = kind == .html ? html() : svg()
        do {
            try ReportSink.writeAtomically(Data(text.utf8), to: path)
        } catch {
            throw .writeFailed(path: error.path, reason: error.reason)
        }
    }

    private static func decodingReason(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            "missing '\(key.stringValue)' at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "unexpected value at \(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        case DecodingError.dataCorrupted(let context):
            context.debugDescription
        default:
            "\(error)"
        }
    }
}
