import Foundation

/// Why a plot could not be made.
public enum PlotError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The report file could not be read.
    case unreadableReport(path: String, reason: String)
    /// The file is not a Cadenza report (not JSON, or not of the report contract).
    case notAReport(path: String, reason: String)
    /// The report is an error record: there is nothing to draw.
    case errorRecord(path: String, message: String)
    /// The output name ends in none of `.html`, `.svg`, `.png`.
    case unsupportedOutput(path: String)
    /// PNG output needs `rsvg-convert` (Debian: librsvg2-bin), which is missing or failed.
    case pngConversionFailed(path: String, reason: String)
    /// The picture could not be written.
    case writeFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadableReport(let path, let reason): "\(path): cannot read the report: \(reason)"
        case .notAReport(let path, let reason): "\(path): not a Cadenza report: \(reason)"
        case .errorRecord(_, let message): message
        case .unsupportedOutput(let path): "\(path): the output must end in .html, .svg or .png"
        case .pngConversionFailed(let path, let reason): "\(path): cannot make the PNG: \(reason)"
        case .writeFailed(let path, let reason): "\(path): \(reason)"
        }
    }
}

extension ReportPlot {
    /// The kinds of picture file.
    public enum FileKind: String, Sendable {
        /// A self-contained HTML page, an SVG picture, or a PNG image (the SVG rasterised by
        /// `rsvg-convert`).
        case html, svg, png

        /// The kind a file name asks for (`.html`, `.htm`, `.svg`, `.png`), or `nil`.
        public init?(path: String) {
            switch (path as NSString).pathExtension.lowercased() {
            case "html", "htm": self = .html
            case "svg": self = .svg
            case "png": self = .png
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

    /// Every report to draw for `path`: those in it when it is a report file (error records
    /// left out), else the analysis of the audio by `analyzer`.
    /// - Throws: ``PlotError`` for an unreadable or foreign report file, a file of error records
    ///   only, or audio that gives an error record.
    public static func reports(for path: String, analyzer: FileAnalyzer = FileAnalyzer()) throws(PlotError) -> [Report] {
        guard isReportFile(path) else { return [try report(for: path, analyzer: analyzer)] }
        let data: Data
        switch FilePath.status(path) {
        case .failure(let error): throw .unreadableReport(path: path, reason: error.description)
        case .success:
            guard let contents = FilePath.contents(path) else { throw .unreadableReport(path: path, reason: "cannot be read") }
            data = contents
        }
        let all = try reports(fromJSON: data, path: path)
        let drawable = all.filter { $0.error == nil }
        guard !drawable.isEmpty else {
            let first = all.first
            throw .errorRecord(path: first?.source.path ?? path, message: first?.error?.message ?? "\(path): no report to draw")
        }
        return drawable
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

    /// Writes the picture to `path` as HTML, SVG or PNG (by its extension), atomically (a
    /// temporary file, then rename), so an existing picture is never half overwritten.
    public func write(to path: String) throws(PlotError) {
        try Self.write([self], to: path)
    }

    /// Writes several plots as one picture: one HTML page (each plot under the other, with zoom
    /// links), or one SVG or PNG with the plots stacked.
    public static func write(_ plots: [ReportPlot], to path: String) throws(PlotError) {
        guard let kind = FileKind(path: path) else { throw .unsupportedOutput(path: path) }
        let data: Data
        switch kind {
        case .html: data = Data(page(plots).utf8)
        case .svg: data = Data(stackedSVG(plots).utf8)
        case .png: data = try png(fromSVG: stackedSVG(plots), path: path)
        }
        do {
            try ReportSink.writeAtomically(data, to: path)
        } catch {
            throw .writeFailed(path: error.path, reason: error.reason)
        }
    }

    /// The SVG rasterised by `rsvg-convert` (librsvg), at the SVG's own size.
    static func png(fromSVG svg: String, path: String) throws(PlotError) -> Data {
        let converter = ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let converter else {
            throw .pngConversionFailed(path: path, reason: "rsvg-convert is not installed (Debian: apt install librsvg2-bin); .svg and .html need nothing")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: converter)
        process.arguments = ["--format", "png"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch { throw .pngConversionFailed(path: path, reason: "\(error)") }
        // The SVG goes in on a thread of its own while the PNG is read, so neither pipe fills up.
        let svgData = Data(svg.utf8)
        let writer = Thread {
            try? input.fileHandleForWriting.write(contentsOf: svgData)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let png = output.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, png.starts(with: [0x89, 0x50, 0x4E, 0x47]) else {
            throw .pngConversionFailed(path: path, reason: "rsvg-convert: " + (message.isEmpty ? "exit status \(process.terminationStatus)" : message))
        }
        return png
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
