import Foundation
import MusicUnderstanding

/// The options of `cadenza plot`, declared once.
struct PlotOptions: OptionGroup {
    let output = Option<String>(
        names: ["--output", "-o"], value: "file",
        help: "The picture: FILE.html (a self-contained page), FILE.svg or FILE.png (default: <first input name>.html).")
}

/// `cadenza plot FILE -o report.html`: analyses an audio file (all analyses) or reads an existing
/// report, and draws it (``ReportPlot``).
enum PlotCommand {
    static let spec = CommandSpec<PlotOptions>(
        name: "plot",
        abstract: "Draw reports: loudness, beats and bars, sections, key, instrument activity and pace over time.",
        operands: "<file>...",
        discussion: """
            Each <file> is audio (analysed with every analysis) or a report file that 'cadenza analyze' \
            wrote (.json, .ndjson or .jsonl: one report, an array, or NDJSON; every report in it is drawn, \
            error records left out), so nothing is analysed twice. Several plots go on one page (or one \
            SVG or PNG), one under the other, at most \(maximumPlots). The HTML page embeds the SVGs, offers \
            zoom links (2x, 4x, 8x, scrolled sideways) and needs nothing else (no scripts, no network, no \
            fonts). PNG needs rsvg-convert (Debian: librsvg2-bin). Exit status: 0 drawn, 1 an input could \
            not be analysed or read (the others are drawn), 2 usage error.
            """)

    /// The most plots one picture holds (a 10,000-line NDJSON would make a page no browser opens).
    static let maximumPlots = 64

    static func run(_ arguments: [String]) async -> Int32 {
        let args = Cadenza.parse(arguments, spec)
        guard let first = args.positionals.first else {
            Cadenza.usageFailure("plot needs at least one input file", spec)
        }
        let output = args[\.output] ?? (((first as NSString).lastPathComponent as NSString).deletingPathExtension + ".html")
        if ReportPlot.FileKind(path: output) == nil {
            Cadenza.usageFailure(PlotError.unsupportedOutput(path: output).description, spec)
        }
        var plots: [ReportPlot] = []
        var failed = false
        for input in args.positionals {
            do throws(PlotError) {
                plots += try ReportPlot.reports(for: input).map { ReportPlot(report: $0) }
            } catch {
                printError("error: \(sanitized(error.description))")
                failed = true
            }
        }
        if plots.count > maximumPlots {
            printError("warning: \(plots.count) reports: the first \(maximumPlots) are drawn")
            plots = Array(plots.prefix(maximumPlots))
        }
        guard !plots.isEmpty else { return 1 }
        do throws(PlotError) {
            try ReportPlot.write(plots, to: output)
        } catch {
            printError("error: \(sanitized(error.description))")
            return 1
        }
        return failed ? 1 : 0
    }
}
