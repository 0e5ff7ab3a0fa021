import Foundation
import MusicUnderstanding

/// `cadenza`: the command-line front end. It parses arguments and formats output; every
/// analysis lives in the MusicUnderstanding library.
@main
struct Cadenza {
    static let version = AnalyzerInfo.libraryVersion

    static let overview = """
        OVERVIEW: Cadenza \(version): music understanding for Linux (\(availableAnalyses)).

        USAGE: cadenza <command> [options]

        COMMANDS:
          analyze     Analyse audio files and folders; NDJSON reports on stdout or one JSON per input.
          export      Convert saved reports into another format (csv, labels, fcpxml, rekordbox...).
          plot        Draw a report (HTML page or SVG) from audio or an existing report.
          meter       Live EBU R128 loudness of a stream (stdin or anything FFmpeg opens).
          bench       Measure analysis speed on a file beside ffmpeg's ebur128 filter.
          index       Build or update a SQLite index of report folders.
          query       List indexed tracks by tempo and key (harmonic mixing).
          completions Print a bash, zsh or fish completion script.
          man         Print the manual page (man -l <(cadenza man)).

        See 'cadenza <command> --help' for the options of a command.
        """

    static func main() async {
        var arguments = Array(FilePath.commandLineArguments.dropFirst())  // non-UTF-8 names kept (escaped)
        guard let command = arguments.first else {
            printError(overview)
            exit(2)
        }
        arguments.removeFirst()
        let status: Int32
        switch command {
        case "analyze": status = await AnalyzeCommand.run(arguments)
        case "export": status = await ExportCommand.run(arguments)
        case "plot": status = await PlotCommand.run(arguments)
        case "meter": status = await MeterCommand.run(arguments)
        case "bench": status = await BenchCommand.run(arguments)
        case "index": status = await IndexCommand.run(arguments)
        case "query": status = await QueryCommand.run(arguments)
        case "completions": status = await CompletionsCommand.run(arguments)
        case "man": status = await ManCommand.run(arguments)
        case "worker": status = WorkerCommand.run(arguments)  // hidden: analyze's worker processes
        case "--help", "-h", "help":
            print(overview)
            status = 0
        case "--version", "-V":
            print(version)
            status = 0
        default:
            printError("error: unknown command '\(command)'\n\n" + overview)
            status = 2
        }
        exit(status)
    }

    /// Parses `arguments` for `spec`; prints help (exit 0) or the usage error (exit 2) itself.
    static func parse<Options>(_ arguments: [String], _ spec: CommandSpec<Options>) -> ParsedArguments<Options> {
        do {
            let parsed = try ParsedArguments(arguments, spec: spec)
            if parsed.wantsHelp {
                print(spec.help)
                exit(0)
            }
            return parsed
        } catch {
            usageFailure(error.description, spec)
        }
    }

    static func usageFailure<Options>(_ message: String, _ spec: CommandSpec<Options>) -> Never {
        printError("error: \(message)\nUSAGE: \(spec.usage)\nSee 'cadenza \(spec.name) --help'.")
        exit(2)
    }
}
