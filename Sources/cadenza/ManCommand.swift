import Foundation
import MusicUnderstanding

/// The options of `cadenza man` (none besides `--help`).
struct ManOptions: OptionGroup {}

/// `cadenza man`: the manual page `cadenza(1)` in troff, generated from the commands' declarations
/// (abstract, usage line, options with their help, discussion), so it never lags behind them.
/// The repository keeps a copy in `docs/cadenza.1`, which a test compares with this output.
enum ManCommand {
    static let spec = CommandSpec<ManOptions>(
        name: "man",
        abstract: "Print the manual page cadenza(1) (troff), generated from the option declarations.",
        operands: "",
        discussion: """
            Read it with: man -l <(cadenza man)
            Install it with: cadenza man | gzip > ~/.local/share/man/man1/cadenza.1.gz
            """)

    static func run(_ arguments: [String]) async -> Int32 {
        let args = Cadenza.parse(arguments, spec)
        if !args.positionals.isEmpty { Cadenza.usageFailure("man takes no arguments", spec) }
        return StandardStreams.writeOutput(page) == nil ? 0 : 3
    }

    /// The whole page.
    static var page: String {
        var lines = [
            #".TH CADENZA 1 "" "cadenza \#(escaped(Cadenza.version))" "User Commands""#,
            ".SH NAME",
            #"cadenza \- music understanding for Linux: key, rhythm, structure, pace, instruments and loudness of audio files"#,
            ".SH SYNOPSIS",
            ".B cadenza",
            ".I command",
            "[options] [operands]",
            ".SH DESCRIPTION",
            escaped(
                "Cadenza reads any audio file FFmpeg can decode and tells, offline, what is in the music: "
                    + "its key (as a timeline), its rhythm (beats, bars, tempo), its structure (sections, segments, phrases), "
                    + "its pace, which instruments play when (vocal, drum, bass, other) and its loudness (EBU R128). "
                    + "Results are JSON reports (one schema-valid object per input) or the formats of DJ software and video editors."),
            ".SH COMMANDS",
        ]
        for command in CompletionsCommand.commands {
            lines += [".SS \(command.name)", escaped(command.abstract), ".PP", ".B " + escaped(command.usage)]
            for option in command.options {
                let value = option.value.map { #" \fI"# + escaped($0) + #"\fR"# } ?? ""
                lines += [".TP", option.names.map { #"\fB"# + escaped($0) + #"\fR"# }.joined(separator: ", ") + value, escaped(option.help)]
            }
            for paragraph in command.discussion.split(separator: "\n", omittingEmptySubsequences: true) {
                lines += [".PP", escaped(String(paragraph))]
            }
        }
        lines += [
            ".SH FILES",
            escaped("A folder given to --output holds one report per input (DIR/<input>.json); a rerun keeps the current ones."),
            ".SH SEE ALSO",
            escaped("The README and docs/ of the Cadenza repository: docs/cli.md (every command), docs/formats.md, docs/configuration.md."),
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` safe in troff: backslashes doubled as `\e`, hyphens as `\-`, and a leading `.` or
    /// `'` (a request) neutralised with `\&`.
    static func escaped(_ text: String) -> String {
        var out = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }
}
