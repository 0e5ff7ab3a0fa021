import Foundation
import Synchronization

/// The output formats of `cadenza analyze --format`.
public enum ReportFormat: String, Sendable, CaseIterable {
    /// One compact JSON report per line (the default).
    case ndjson
    /// Pretty-printed JSON: on a stream one array of all reports, in a folder one document per input.
    case json
    /// The headline values, one row per input (``CSVTable``).
    case csv
    /// JAMS annotations (``JAMSDocument``): on a stream one compact document per line.
    case jams
    /// Audacity / Sonic Visualiser label tracks (``LabelTracks``): one file per track in a folder,
    /// all tracks merged into one on a stream.
    case labels
}

/// Writes reports in a ``ReportFormat`` to a stream or into a folder; plug it into a batch with
/// ``ReportSink/formatted(_:)`` and call ``finish()`` when the batch has returned.
///
/// | format | stream (standard output) | folder `DIR` |
/// |---|---|---|
/// | `ndjson` | one line per report | `DIR/<input>.json` (compact) |
/// | `json` | `[` reports `]`, pretty, one array | `DIR/<input>.json`, pretty |
/// | `csv` | header, one row per input | `DIR/<input>.csv` (header and row) |
/// | `jams` | one compact JAMS document per line | `DIR/<input>.jams` |
/// | `labels` | one merged label track per input | `DIR/<input>.beats.txt`, `.bars.txt`, `.sections.txt`, `.key.txt` |
///
/// Error records are rows of the CSV and elements of the JSON; JAMS and label outputs have no
/// place for them and skip them (the batch still counts them as failed). Files in a folder are
/// written atomically (a temporary file, then rename).
public final class FormattedReportWriter: Sendable {
    /// Where the output goes.
    public enum Destination: Sendable {
        /// A file descriptor (standard output); written in the order reports arrive.
        case stream(fileDescriptor: Int32)
        /// One or more files per input inside a folder.
        case directory(String)
    }

    /// The format written.
    public let format: ReportFormat
    /// Where it goes.
    public let destination: Destination
    private let started = Locked(false)

    /// A writer of `format` to `destination`.
    public init(format: ReportFormat, destination: Destination) {
        self.format = format
        self.destination = destination
    }

    /// Writes one report (reports may arrive from several threads; each is written whole).
    /// - Throws: ``ReportSink/WriteError`` naming the file (or standard output) and the reason.
    public func write(_ report: Report) throws(ReportSink.WriteError) {
        switch destination {
        case .stream(let fd):
            try started.withLock { (first: inout Bool) throws(ReportSink.WriteError) in
                let isFirst = !first
                first = true
                try Self.write(streamText(report, isFirst: isFirst), to: fd)
            }
        case .directory(let dir):
            for (suffix, data) in files(report) {
                let base = ReportSink.outputPath(for: report.source.path, in: dir)
                try ReportSink.writeAtomically(data, to: String(base.dropLast(".json".count)) + suffix)
            }
        }
    }

    /// Completes a stream: closes the JSON array (`[]` when no report came), writes the CSV
    /// header when no row came. Does nothing for a folder.
    public func finish() throws(ReportSink.WriteError) {
        guard case .stream(let fd) = destination else { return }
        try started.withLock { (first: inout Bool) throws(ReportSink.WriteError) in
            switch format {
            case .json: try Self.write(Data((first ? "\n]\n" : "[]\n").utf8), to: fd)
            case .csv where !first: try Self.write(Data(CSVTable.header.utf8), to: fd)
            default: break
            }
            first = true
        }
    }

    /// What one report adds to a stream.
    private func streamText(_ report: Report, isFirst: Bool) -> Data {
        switch format {
        case .ndjson:
            return report.jsonLine() + Data([0x0A])
        case .json:
            return Data((isFirst ? "[\n  " : ",\n  ").utf8) + PrettyJSON.format(report.jsonLine(), level: 1)
        case .csv:
            return Data(((isFirst ? CSVTable.header : "") + CSVTable.row(report)).utf8)
        case .jams:
            return JAMSDocument.data(report).map { $0 + Data([0x0A]) } ?? Data()
        case .labels:
            return report.result.map { Data(LabelTracks.combinedText(of: $0).utf8) } ?? Data()
        }
    }

    /// The files of one report in a folder: suffix (replacing `.json`) and contents.
    private func files(_ report: Report) -> [(String, Data)] {
        switch format {
        case .ndjson: return [(".json", report.jsonLine() + Data([0x0A]))]
        case .json: return [(".json", PrettyJSON.format(report.jsonLine()) + Data([0x0A]))]
        case .csv: return [(".csv", Data((CSVTable.header + CSVTable.row(report)).utf8))]
        case .jams: return JAMSDocument.data(report).map { [(".jams", PrettyJSON.format($0) + Data([0x0A]))] } ?? []
        case .labels:
            guard report.error == nil, let result = report.result else { return [] }
            return LabelTracks.Track.allCases.compactMap { track in
                let labels = LabelTracks.labels(track, of: result)
                return labels.isEmpty ? nil : (".\(track.rawValue).txt", Data(LabelTracks.text(labels).utf8))
            }
        }
    }

    private static func write(_ data: Data, to fd: Int32) throws(ReportSink.WriteError) {
        do {
            try FileHandle(fileDescriptor: fd, closeOnDealloc: false).write(contentsOf: data)
        } catch {
            throw ReportSink.WriteError(path: "standard output", error: error, stream: true)
        }
    }
}
