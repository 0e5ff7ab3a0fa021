import Foundation
import MusicUnderstanding

/// The options of `cadenza plot`, declared once.
struct PlotOptions: OptionGroup {
    let output = Option<String>(
        names: ["--output", "-o"], value: "file",
        help: "The picture: FILE.html (a self-contained page) or FILE.svg (default: <input name>.html).")
}

/// `cadenza plot FILE -o report.html`: analyses an audio file (all analyses) or reads an existing
/// report, and draws it (``ReportPlot``).
enum PlotCommand {
    static let spec = CommandSpec<PlotOptions>(
        name: "plot",
        abstract: "Draw a report: loudness, beats and bars, sections, key, instrument activity and pace over time.",
        operands: "<file>",
        discussion: """
            <file> is audio (analysed with every analysis) or a report that 'cadenza analyze' wrote \
            (.json, .ndjson or .jsonl: one report, an array, or NDJSON; the first report is drawn), so \
            nothing is analysed twice. The HTML page embeds the SVG and needs nothing else (no scripts, \
            no network, no fonts). Exit status: 0 drawn, 1 the input could not be analysed or read, 2 usage error.
            """)

    static func run(_ arguments: [String]) async -> Int32 {
        let args = Cadenza.parse(arguments, spec)
        guard args.positionals.count == 1, let input = args.positionals.first else {
            Cadenza.usageFailure("plot takes exactly one input file", spec)
        }
        let output = args[\.output] ?? (((input as NSString).lastPathComponent as NSString).deletingPathExtension + ".html")
        if ReportPlot.FileKind(path: output) == nil {
            Cadenza.usageFailure(PlotError.unsupportedOutput(path: output).description, spec)
        }
        do throws(PlotError) {
            let report = try ReportPlot.report(for: input)
            try ReportPlot(report: report).write(to: output)
            return 0
        } catch {
            printError("error: \(error)")
            return 1
        }
    }
}
