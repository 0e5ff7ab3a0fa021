import Foundation
import MusicUnderstanding

/// The `--format` values, as help and errors list them (generated from ``ReportFormat``).
let reportFormatNames = ReportFormat.allCases.map(\.rawValue)

/// Option declarations shared by `analyze` and `export` (each command declares its own copy, so
/// each `--help` lists them).
enum SharedOptions {
    /// `--format`.
    static func format() -> Option<ReportFormat> {
        Option<ReportFormat>(
            names: ["--format", "-f"], value: "format",
            help: "Output format: \(reportFormatNames.joined(separator: ", ")) (default ndjson; docs/formats.md).",
            mistake: "unknown format", expected: reportFormatNames.joined(separator: ", "))
    }

    /// `--frame-rate`.
    static func frameRate() -> Option<FrameRate> {
        Option<FrameRate>(
            names: ["--frame-rate"], value: "fps",
            help: "Frame rate of fcpxml, edl and kdenlive markers: 25 (default), 29.97, 30, 23.976, 30000/1001..."
        ) { (text, name) throws(UsageError) in
            guard let rate = FrameRate(parsing: text) else {
                throw UsageError.invalidValue(text, for: name, expected: "1 to 1000 frames per second, such as 25, 29.97 or 30000/1001")
            }
            return rate
        }
    }

    /// `--markers`.
    static func markers() -> Option<Set<MarkerKind>> {
        Option<Set<MarkerKind>>(
            names: ["--markers"], value: "list",
            help: "Markers of fcpxml, edl and kdenlive: comma-separated sections, bars, beats (default sections,bars)."
        ) { (text, name) throws(UsageError) in
            var kinds = Set<MarkerKind>()
            for word in text.split(separator: ",") {
                guard let kind = MarkerKind(rawValue: word.trimmingCharacters(in: .whitespaces)) else {
                    throw UsageError.invalidValue(text, for: name, expected: "a list of sections, bars, beats")
                }
                kinds.insert(kind)
            }
            if kinds.isEmpty { throw UsageError.invalidValue(text, for: name, expected: "a list of sections, bars, beats") }
            return kinds
        }
    }

    /// `--key-notation`.
    static func keyNotation(_ help: String) -> Option<TagWriter.KeyNotation> {
        Option<TagWriter.KeyNotation>(
            names: ["--key-notation"], value: "notation", help: help,
            mistake: "unknown notation", expected: "standard, camelot or openkey")
    }
}

/// The options of `cadenza export`, declared once.
struct ExportCommandOptions: OptionGroup {
    let format = SharedOptions.format()
    let output = Option<String>(
        names: ["--output", "-o"], value: "dir",
        help: "Write DIR/<input>.<suffix> per report (as analyze --output names them) instead of stdout.")
    let frameRate = SharedOptions.frameRate()
    let markers = SharedOptions.markers()
    let keyNotation = SharedOptions.keyNotation("Key in rekordbox and traktor: standard (Am; default), camelot (8A) or openkey (1m).")
}

/// `cadenza export REPORT.json|DIR... --format F [-o DIR]`: converts saved reports into another
/// format without analysing again; the output equals what `analyze --format F` writes for them.
enum ExportCommand {
    static let spec = CommandSpec<ExportCommandOptions>(
        name: "export",
        abstract: "Convert saved reports (from analyze) into another format without analysing again.",
        operands: "<report.json|dir>...", required: ["--format"],
        discussion: """
            Inputs are report files as analyze writes them (one report, a JSON array, or NDJSON lines: \
            .json, .ndjson, .jsonl) or folders of them (walked recursively, e.g. an analyze --output folder). \
            The output is what 'analyze --format F' writes for the same reports: on stdout, or with --output \
            one file per report named after its input. Formats of one track (labels, edl, kdenlive) need \
            --output when there are several reports. Formats: docs/formats.md.
            Exit status: 0 all converted, 1 a report file could not be read or an output not written, 2 usage error.
            """)

    static func run(_ arguments: [String]) async -> Int32 {
        let args = Cadenza.parse(arguments, spec)
        guard let format = args[\.format] else { Cadenza.usageFailure("--format <format> is required", spec) }
        if args.positionals.isEmpty { Cadenza.usageFailure("no input: give at least one report file or folder", spec) }
        var failed = false
        var reports: [Report] = []
        for file in reportFiles(args.positionals, excluding: args[\.output], failed: &failed) {
            do throws(PlotError) {
                guard let data = FilePath.contents(file) else {
                    throw PlotError.unreadableReport(path: file, reason: "cannot be read")
                }
                reports += try ReportPlot.reports(fromJSON: data, path: file)
            } catch {
                printError("error: \(sanitized(error.description))")
                failed = true
            }
        }
        if format.isSingleTrack, reports.count > 1, args[\.output] == nil {
            Cadenza.usageFailure("--format \(format.rawValue) holds one track: give --output <dir> for \(reports.count) reports", spec)
        }
        let options = ExportOptions(
            frameRate: args[\.frameRate] ?? .pal, markers: args[\.markers] ?? [.sections, .bars],
            keyNotation: args[\.keyNotation] ?? .standard)
        let writer: FormattedReportWriter
        var paths: [String: String] = [:]
        if let dir = args[\.output] {
            do throws(BatchError) { try BatchJob.prepareOutputFolder(dir) } catch {
                Cadenza.usageFailure(error.description.replacingOccurrences(of: "cannot write to ", with: "cannot write to --output "), spec)
            }
            writer = FormattedReportWriter(format: format, destination: .directory(dir), options: options)
            paths = BatchJob.reportPaths(for: reports.map(\.source.path), in: dir)
        } else {
            writer = FormattedReportWriter(format: format, destination: .stream(fileDescriptor: STDOUT_FILENO), options: options)
        }
        for report in reports {
            do throws(ReportSink.WriteError) { try writer.write(report, reportPath: paths[report.source.path]) } catch {
                printError("error: \(sanitized(report.source.path)): cannot write: \(sanitized(error.description))")
                failed = true
                if error.isFatal { return 1 }
            }
        }
        do throws(ReportSink.WriteError) { try writer.finish() } catch {
            printError("error: cannot write output: \(sanitized(error.description))")
            return 1
        }
        return failed ? 1 : 0
    }

    /// The report files named or inside the folders named, folders walked recursively in name
    /// order (hidden files, e.g. temporary reports, and the output folder skipped).
    static func reportFiles(_ paths: [String], excluding output: String?, failed: inout Bool) -> [String] {
        var files: [String] = []
        let excluded = output.map { ($0 as NSString).standardizingPath }
        for path in paths {
            guard let status = try? FilePath.status(path).get() else {
                printError("error: \(sanitized(path)): no such file or folder")
                failed = true
                continue
            }
            guard status.isDirectory else { files.append(path); continue }
            var found: [String] = []
            var stack = [path]
            while let folder = stack.popLast() {
                if let excluded, (folder as NSString).standardizingPath == excluded, folder != path { continue }
                // Raw names (FilePath): reports of inputs whose names are not UTF-8 are named so too.
                guard let names = try? FilePath.contentsOfDirectory(folder).get() else { continue }
                for name in names where !name.hasPrefix(".") {
                    let child = folder + "/" + name
                    guard let status = try? FilePath.status(child).get() else { continue }
                    if status.isDirectory { stack.append(child) } else if ReportPlot.isReportFile(child) { found.append(child) }
                }
            }
            files += found.sorted()
        }
        return files
    }
}
