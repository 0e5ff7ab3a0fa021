import Foundation
import MusicUnderstanding

/// A command-line mistake: printed with the usage line, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    var description: String
}

/// One option of a command, declared once: parsing and `--help` both come from it.
struct OptionSpec {
    /// Names, long first: `["--jobs", "-j"]`.
    var names: [String]
    /// Name of the value (`N`, `DIR`), or nil for a flag.
    var value: String?
    /// One-line help.
    var help: String
    var primary: String { names[0] }
}

/// A subcommand's declaration.
struct CommandSpec {
    var name: String
    var abstract: String
    var usage: String
    var options: [OptionSpec]
    var discussion: String = ""

    var help: String {
        var s = "OVERVIEW: \(abstract)\n\nUSAGE: \(usage)\n\nOPTIONS:\n"
        for o in options + [OptionSpec(names: ["--help", "-h"], value: nil, help: "Show help for this command.")] {
            let left = o.names.joined(separator: ", ") + (o.value.map { " <\($0)>" } ?? "")
            s += "  " + left.padding(toLength: max(24, left.count + 2), withPad: " ", startingAt: 0) + o.help + "\n"
        }
        if !discussion.isEmpty { s += "\n" + discussion + "\n" }
        return s
    }
}

/// The parsed arguments of one command.
struct ParsedArguments {
    var values: [String: String] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
    var wantsHelp = false

    func value(_ name: String) -> String? { values[name] }
    func flag(_ name: String) -> Bool { flags.contains(name) }

    func int(_ name: String, range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = values[name] else { return nil }
        guard let n = Int(text), range.contains(n) else {
            throw UsageError(description: "invalid value '\(text)' for \(name): expected an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return n
    }

    init(_ arguments: [String], spec: CommandSpec) throws(UsageError) {
        var i = 0
        var onlyPositionals = false
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if onlyPositionals || arg == "-" || !arg.hasPrefix("-") {
                positionals.append(arg)
                continue
            }
            if arg == "--" { onlyPositionals = true; continue }
            if arg == "--help" || arg == "-h" { wantsHelp = true; continue }
            var name = arg
            var inline: String?
            if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            guard let option = spec.options.first(where: { $0.names.contains(name) }) else {
                throw UsageError(description: "unknown option '\(name)' for '\(spec.name)'")
            }
            if option.value != nil {
                if let inline {
                    values[option.primary] = inline
                } else {
                    guard i < arguments.count else { throw UsageError(description: "missing value for \(name)") }
                    values[option.primary] = arguments[i]
                    i += 1
                }
            } else {
                if inline != nil { throw UsageError(description: "\(name) takes no value") }
                flags.insert(option.primary)
            }
        }
    }
}

/// Writes to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Parses the `--for` list of analysis names.
func parseAnalysisTypes(_ text: String?) throws(UsageError) -> Set<AnalysisType> {
    guard let text else { return [] }
    var set = Set<AnalysisType>()
    for part in text.split(separator: ",") {
        let name = part.trimmingCharacters(in: .whitespaces)
        if name.isEmpty { continue }
        guard let t = AnalysisType(rawValue: name) else {
            throw UsageError(description: "unknown analysis '\(name)' in --for: expected key, rhythm, structure, pace, instrumentActivity, loudness")
        }
        set.insert(t)
    }
    if set.isEmpty { throw UsageError(description: "--for needs at least one analysis name") }
    return set
}
