import Foundation
import MusicUnderstanding

/// The options of `cadenza completions` (none besides `--help`).
struct CompletionsOptions: OptionGroup {}

/// `cadenza completions bash|zsh|fish`: a completion script generated from the commands' option
/// declarations (``OptionGroup/specs``), so it never lags behind them.
enum CompletionsCommand {
    static let spec = CommandSpec<CompletionsOptions>(
        name: "completions",
        abstract: "Print a shell completion script (bash, zsh or fish), generated from the option declarations.",
        operands: "bash|zsh|fish",
        discussion: """
            bash: cadenza completions bash > ~/.local/share/bash-completion/completions/cadenza
            zsh:  cadenza completions zsh > ~/.zfunc/_cadenza  (with fpath+=~/.zfunc before compinit)
            fish: cadenza completions fish > ~/.config/fish/completions/cadenza.fish
            """)

    /// A command as completion sees it.
    struct Command {
        var name: String
        var abstract: String
        var options: [OptionSpec]
        /// Whether its positional arguments are files.
        var takesFiles = true
        /// The generated usage line.
        var usage = ""
        /// The help's discussion (exit status, examples).
        var discussion = ""
    }

    /// The public commands, in the overview's order.
    static var commands: [Command] {
        [
            Command(
                name: "analyze", abstract: AnalyzeCommand.spec.abstract, options: AnalyzeOptions.specs, usage: AnalyzeCommand.spec.usage,
                discussion: AnalyzeCommand.spec.discussion),
            Command(
                name: "export", abstract: ExportCommand.spec.abstract, options: ExportCommandOptions.specs, usage: ExportCommand.spec.usage,
                discussion: ExportCommand.spec.discussion),
            Command(
                name: "plot", abstract: PlotCommand.spec.abstract, options: PlotOptions.specs, usage: PlotCommand.spec.usage,
                discussion: PlotCommand.spec.discussion),
            Command(
                name: "meter", abstract: MeterCommand.spec.abstract, options: MeterOptions.specs, usage: MeterCommand.spec.usage,
                discussion: MeterCommand.spec.discussion),
            Command(
                name: "bench", abstract: BenchCommand.spec.abstract, options: BenchOptions.specs, usage: BenchCommand.spec.usage,
                discussion: BenchCommand.spec.discussion),
            Command(
                name: "index", abstract: IndexCommand.spec.abstract, options: IndexOptions.specs, usage: IndexCommand.spec.usage,
                discussion: IndexCommand.spec.discussion),
            Command(
                name: "query", abstract: QueryCommand.spec.abstract, options: QueryOptions.specs, usage: QueryCommand.spec.usage,
                discussion: QueryCommand.spec.discussion),
            Command(name: "completions", abstract: spec.abstract, options: [], takesFiles: false, usage: spec.usage, discussion: spec.discussion),
            Command(
                name: "man", abstract: ManCommand.spec.abstract, options: [], takesFiles: false, usage: ManCommand.spec.usage,
                discussion: ManCommand.spec.discussion),
        ]
    }

    /// The values an option takes, when they are a fixed list.
    static func choices(_ option: OptionSpec, command: String) -> [String]? {
        switch option.primary {
        case "--format":
            switch command {
            case "query": CatalogFormat.allCases.map(\.rawValue)
            case "meter": RawPCMFormat.SampleFormat.allCases.map(\.rawValue)
            default: reportFormatNames
            }
        case "--for": AnalysisType.allCases.filter(\.isAvailable).map(\.rawValue)
        case "--key-notation": TagWriter.KeyNotation.allCases.map(\.rawValue)
        case "--markers": MarkerKind.allCases.map(\.rawValue)
        case "--sort": CatalogSort.allCases.map(\.rawValue)
        default: nil
        }
    }

    /// Whether an option's value is a path.
    static func takesPath(_ option: OptionSpec) -> Bool {
        ["dir", "file", "db"].contains(option.value ?? "") || option.primary == "--db"
    }

    static func run(_ arguments: [String]) async -> Int32 {
        let args = Cadenza.parse(arguments, spec)
        guard args.positionals.count == 1, let shell = args.positionals.first else {
            Cadenza.usageFailure("give one shell: bash, zsh or fish", spec)
        }
        let script: String
        switch shell {
        case "bash": script = bash()
        case "zsh": script = zsh()
        case "fish": script = fish()
        default: Cadenza.usageFailure("unknown shell '\(shell)': expected bash, zsh or fish", spec)
        }
        if let reason = StandardStreams.writeOutput(script) {
            printError("error: cannot write the script: \(reason)")
            return StandardStreams.outputFailedStatus
        }
        return 0
    }

    /// Single-quoted for a shell (`'` written as `'\''`).
    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    static func bash() -> String {
        var s = "# bash completion for cadenza \(Cadenza.version), generated by 'cadenza completions bash'\n"
        s += "_cadenza() {\n  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" opts=\"\"\n"
        s +=
            "  if [[ $COMP_CWORD -eq 1 ]]; then\n    COMPREPLY=($(compgen -W \(quoted(commands.map(\.name).joined(separator: " ") + " --help --version -V")) -- \"$cur\"))\n    return\n  fi\n"
        s += "  case \"${COMP_WORDS[1]}\" in\n"
        for command in commands {
            s += "    \(command.name))\n      case \"$prev\" in\n"
            for option in command.options where option.value != nil {
                let names = option.names.joined(separator: "|")
                if let values = choices(option, command: command.name) {
                    s += "        \(names)) COMPREPLY=($(compgen -W \(quoted(values.joined(separator: " "))) -- \"$cur\")); return;;\n"
                } else if takesPath(option) {
                    s += "        \(names)) COMPREPLY=($(compgen -f -- \"$cur\")); return;;\n"
                } else {
                    s += "        \(names)) COMPREPLY=(); return;;\n"
                }
            }
            s += "      esac\n"
            s += "      opts=\(quoted((command.options.flatMap(\.names) + ["--help"]).joined(separator: " ")))\n"
            if !command.takesFiles {
                s += "      [[ \"$cur\" != -* ]] && { COMPREPLY=($(compgen -W 'bash zsh fish' -- \"$cur\")); return; }\n"
            }
            s += "      ;;\n"
        }
        s += "  esac\n"
        s += "  if [[ \"$cur\" == -* ]]; then COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")); else COMPREPLY=($(compgen -f -- \"$cur\")); fi\n}\n"
        s += "complete -o filenames -F _cadenza cadenza\n"
        return s
    }

    /// Text for inside a zsh `_arguments` spec's brackets or a `_describe` item.
    static func zshText(_ text: String) -> String {
        text.replacingOccurrences(of: "'", with: "").replacingOccurrences(of: "[", with: "(").replacingOccurrences(of: "]", with: ")")
            .replacingOccurrences(of: ":", with: " -")
    }

    static func zsh() -> String {
        var s = "#compdef cadenza\n# zsh completion for cadenza \(Cadenza.version), generated by 'cadenza completions zsh'\n"
        s += "_cadenza() {\n  local -a commands\n  commands=(\n"
        for command in commands { s += "    '\(command.name):\(zshText(command.abstract))'\n" }
        s += "  )\n  if (( CURRENT == 2 )); then\n    _describe 'command' commands\n    return\n  fi\n"
        s += "  (( CURRENT-- )); shift words\n  case $words[1] in\n"
        for command in commands {
            s += "    \(command.name))\n      _arguments -s \\\n"
            for option in command.options {
                let exclusive = option.names.count > 1 ? "'(\(option.names.joined(separator: " ")))'" : ""
                let names = option.names.count > 1 ? "{\(option.names.joined(separator: ","))}" : option.names[0]
                var action = ""
                if let value = option.value {
                    if let values = choices(option, command: command.name) {
                        action = ":\(value):(\(values.joined(separator: " ")))"
                    } else {
                        action = ":\(value):" + (takesPath(option) ? "_files" : " ")
                    }
                }
                s += "        \(exclusive)\(names)'[\(zshText(option.help))]\(action)' \\\n"
            }
            s += "        '(- *)'{--help,-h}'[Show help]' \\\n"
            s += command.takesFiles ? "        '*:file:_files'\n" : "        '1:shell:(bash zsh fish)'\n"
            s += "      ;;\n"
        }
        s += "  esac\n}\n_cadenza \"$@\"\n"
        return s
    }

    static func fish() -> String {
        var s = "# fish completion for cadenza \(Cadenza.version), generated by 'cadenza completions fish'\n"
        s += "complete -c cadenza -f\n"
        for command in commands {
            s += "complete -c cadenza -n __fish_use_subcommand -a \(command.name) -d \(quoted(command.abstract))\n"
        }
        for command in commands {
            let condition = "-n \(quoted("__fish_seen_subcommand_from \(command.name)"))"
            for option in command.options {
                var line = "complete -c cadenza \(condition)"
                for name in option.names {
                    line += name.hasPrefix("--") ? " -l \(name.dropFirst(2))" : " -s \(name.dropFirst(1))"
                }
                if option.value != nil {
                    if let values = choices(option, command: command.name) {
                        line += " -x -a \(quoted(values.joined(separator: " ")))"
                    } else {
                        line += takesPath(option) ? " -r -F" : " -x"
                    }
                }
                s += line + " -d \(quoted(option.help))\n"
            }
            s += command.takesFiles ? "complete -c cadenza \(condition) -F\n" : "complete -c cadenza \(condition) -x -a 'bash zsh fish'\n"
        }
        return s
    }
}
