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
    /// Final Cut Pro XML markers (``MarkerExport/fcpxml(_:options:)``): one document, a project per input.
    case fcpxml
    /// A CMX3600 EDL of DaVinci Resolve markers (``MarkerExport/edl(_:options:)``), one per input.
    case edl
    /// Kdenlive guides as JSON (``MarkerExport/kdenliveGuides(_:options:)``), one list per input.
    case kdenlive
    /// A rekordbox collection XML (``DJCollection/rekordboxDocument(tracks:)``): one collection of all inputs.
    case rekordbox
    /// A Traktor collection NML (``DJCollection/traktorDocument(entries:)``): one collection of all inputs.
    case traktor

    /// Whether a stream of this format holds one input only (several would run into one track):
    /// label tracks, EDL and Kdenlive guides.
    public var isSingleTrack: Bool { self == .labels || self == .edl || self == .kdenlive }

    /// The file name suffix (replacing `.json`) of an input's file in a folder, for formats of one
    /// file per input.
    public var folderSuffix: String? {
        switch self {
        case .ndjson, .json: ".json"
        case .csv: ".csv"
        case .jams: ".jams"
        case .labels: nil
        case .fcpxml: ".fcpxml"
        case .edl: ".edl"
        case .kdenlive: ".guides.json"
        case .rekordbox: ".rekordbox.xml"
        case .traktor: ".nml"
        }
    }
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
/// | `fcpxml` | one document, a project per input (at ``finish()``) | `DIR/<input>.fcpxml` |
/// | `edl` | one EDL per input | `DIR/<input>.edl` |
/// | `kdenlive` | one guide list per input | `DIR/<input>.guides.json` |
/// | `rekordbox` | one collection of all inputs (at ``finish()``) | `DIR/<input>.rekordbox.xml` |
/// | `traktor` | one collection of all inputs (at ``finish()``) | `DIR/<input>.nml` |
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
    /// Frame rate, markers and key notation of the formats that use them.
    public let options: ExportOptions
    private let started = Locked(false)
    /// The parts of a document written whole at ``finish()`` (FCPXML, rekordbox, Traktor on a stream).
    private let collected = Locked<[String]>([])

    /// A writer of `format` to `destination`.
    public init(format: ReportFormat, destination: Destination, options: ExportOptions = ExportOptions()) {
        self.format = format
        self.destination = destination
        self.options = options
    }

    /// The folder files go to, or nil for a stream.
    public var folder: String? {
        if case .directory(let dir) = destination { return dir }
        return nil
    }

    /// Writes one report (reports may arrive from several threads; each is written whole).
    /// - Throws: ``ReportSink/WriteError`` naming the file (or standard output) and the reason.
    public func write(_ report: Report) throws(ReportSink.WriteError) {
        try write(report, reportPath: nil)
    }

    /// Writes one report; in a folder, its files are named after `reportPath` (the `.json` report
    /// path a ``BatchJob`` chose, collision names included) when given, else after
    /// ``ReportSink/outputPath(for:in:)``.
    public func write(_ report: Report, reportPath: String?) throws(ReportSink.WriteError) {
        switch destination {
        case .stream(let fd):
            if format == .fcpxml || format == .rekordbox || format == .traktor {
                collected.withLock { parts in
                    switch format {
                    case .rekordbox:
                        if let track = DJCollection.rekordboxTrack(report, id: parts.count + 1, options: options) { parts.append(track) }
                    case .traktor:
                        if let entry = DJCollection.traktorEntry(report, options: options) { parts.append(entry) }
                    default:
                        if let project = MarkerExport.fcpxmlProject(report, options: options) { parts.append(project) }
                    }
                }
                return
            }
            try started.withLock { (first: inout Bool) throws(ReportSink.WriteError) in
                let isFirst = !first
                first = true
                try Self.write(streamText(report, isFirst: isFirst), to: fd)
            }
        case .directory(let dir):
            let base = reportPath ?? ReportSink.outputPath(for: report.source.path, in: dir)
            for (suffix, data) in files(report) {
                try ReportSink.writeAtomically(data, to: String(base.dropLast(".json".count)) + suffix)
            }
            if keepsStamps {
                // After the files: a crash in between leaves no stamp, and the input is analysed again.
                var head = report
                head.result = nil
                head.warning = nil
                try ReportSink.writeAtomically(head.jsonLine() + Data([0x0A]), to: stampPath(forReportPath: base))
            }
        }
    }

    /// Whether a folder of this format gets a stamp file per input (``stampPath(forReportPath:)``):
    /// every format but `ndjson` and `json`, whose files are reports carrying their own stamp.
    public var keepsStamps: Bool { folder != nil && format != .ndjson && format != .json }

    /// The hidden stamp file of an input whose report would be `reportPath` (`DIR/a/x.wav.json` →
    /// `DIR/a/.x.wav.edl-1f3a9c0e.stamp.json`): the report's `analyzer`, `source` (size,
    /// modification time) and `error`, with which a rerun into the folder resumes
    /// (``ResumePolicy``) as it does for reports. The name holds the format and a hash of the
    /// options, so a rerun with another format, frame rate, markers or key notation writes anew.
    public func stampPath(forReportPath reportPath: String) -> String {
        let folder = (reportPath as NSString).deletingLastPathComponent
        let name = (reportPath as NSString).lastPathComponent
        let stem = name.hasSuffix(".json") ? String(name.dropLast(".json".count)) : name
        let settings =
            "\(options.frameRate.frameDurationNumerator)/\(options.frameRate.frameDurationDenominator)|"
            + options.markers.map(\.rawValue).sorted().joined(separator: ",") + "|\(options.keyNotation.rawValue)"
        let hex = String(FNV1a64.hash(settings) & 0xFFFF_FFFF, radix: 16)
        return (folder.isEmpty ? "" : folder + "/") + "." + stem + ".\(format.rawValue)-" + String(repeating: "0", count: 8 - hex.count) + hex + ".stamp.json"
    }

    /// Completes a stream: closes the JSON array (`[]` when no report came), writes the CSV
    /// header when no row came. Does nothing for a folder.
    public func finish() throws(ReportSink.WriteError) {
        guard case .stream(let fd) = destination else { return }
        try started.withLock { (first: inout Bool) throws(ReportSink.WriteError) in
            switch format {
            case .json: try Self.write(Data((first ? "\n]\n" : "[]\n").utf8), to: fd)
            case .csv where !first: try Self.write(Data(CSVTable.header.utf8), to: fd)
            case .fcpxml, .rekordbox, .traktor:
                let parts = collected.withLock { $0 }
                let text: String
                switch format {
                case .rekordbox: text = DJCollection.rekordboxDocument(tracks: parts)
                case .traktor: text = DJCollection.traktorDocument(entries: parts)
                default: text = MarkerExport.fcpxmlDocument(projects: parts, options: options)
                }
                if !first { try Self.write(Data(text.utf8), to: fd) }
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
        case .edl:
            return report.error == nil ? Data(MarkerExport.edl(report, options: options).utf8) : Data()
        case .kdenlive:
            return report.error == nil ? Data(MarkerExport.kdenliveGuides(report, options: options).utf8) : Data()
        case .fcpxml, .rekordbox, .traktor:
            return Data()  // collected, written by finish()
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
        case .fcpxml:
            guard report.error == nil else { return [] }
            return [(".fcpxml", Data(MarkerExport.fcpxml([report], options: options).utf8))]
        case .edl:
            guard report.error == nil else { return [] }
            return [(".edl", Data(MarkerExport.edl(report, options: options).utf8))]
        case .kdenlive:
            guard report.error == nil else { return [] }
            return [(".guides.json", Data(MarkerExport.kdenliveGuides(report, options: options).utf8))]
        case .rekordbox:
            return DJCollection.rekordboxTrack(report, id: 1, options: options).map {
                [(".rekordbox.xml", Data(DJCollection.rekordboxDocument(tracks: [$0]).utf8))]
            } ?? []
        case .traktor:
            return DJCollection.traktorEntry(report, options: options).map {
                [(".nml", Data(DJCollection.traktorDocument(entries: [$0]).utf8))]
            } ?? []
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
