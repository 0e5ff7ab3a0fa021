import Foundation
import MusicUnderstanding

/// A command-line mistake: printed with the usage line, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    var description: String
}

/// An option as parsing and `--help` see it, whatever its value type.
struct OptionSpec: Sendable {
    /// Names, long first: `["--jobs", "-j"]`.
    var names: [String]
    /// Name of the value (`n`, `dir`), or nil for a flag.
    var value: String?
    /// One-line help.
    var help: String
    /// Turns the text given into the typed value (nil for a flag); `name` is the name as written.
    var convert: (@Sendable (_ text: String, _ name: String) throws(UsageError) -> any Sendable)?
    var primary: String { names[0] }
}

/// Anything declared in an ``OptionGroup``.
protocol OptionDeclaration: Sendable {
    var spec: OptionSpec { get }
}

/// An option with a value of type `Value`, declared once: parsing, validation and `--help` come
/// from it, and the parsed value is read through it (`args[\.jobs]`), never by a string name.
struct Option<Value: Sendable>: OptionDeclaration {
    let spec: OptionSpec

    /// An option whose text is converted by `convert` (which throws a ``UsageError`` naming the option).
    init(
        names: [String], value: String, help: String,
        convert: @escaping @Sendable (_ text: String, _ name: String) throws(UsageError) -> Value
    ) {
        spec = OptionSpec(names: names, value: value, help: help) { (text, name) throws(UsageError) -> any Sendable in
            try convert(text, name)
        }
    }
}

extension Option where Value == String {
    /// An option whose value is the text as given.
    init(names: [String], value: String, help: String) {
        self.init(names: names, value: value, help: help) { text, _ in text }
    }
}

extension Option where Value == Int {
    /// An integer option; a value outside `range` is a usage error.
    init(names: [String], value: String, help: String, range: ClosedRange<Int>) {
        self.init(names: names, value: value, help: help) { (text, name) throws(UsageError) -> Int in
            guard let n = Int(text), range.contains(n) else {
                throw UsageError.invalidValue(text, for: name, expected: "an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            return n
        }
    }
}

extension Option where Value == Double {
    /// A positive, finite number of seconds; anything else is a usage error.
    static func positiveSeconds(names: [String], value: String, help: String) -> Option<Double> {
        Option(names: names, value: value, help: help) { (text, name) throws(UsageError) -> Double in
            guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
                throw UsageError.invalidValue(text, for: name, expected: "a positive number of seconds")
            }
            return seconds
        }
    }
}

extension Option where Value: RawRepresentable, Value.RawValue == String {
    /// An option whose text is one of `Value`'s raw values; other text is the usage error
    /// "`mistake` '<text>' for <name>: expected `expected`".
    init(names: [String], value: String, help: String, mistake: String = "invalid value", expected: String) {
        self.init(names: names, value: value, help: help) { (text, name) throws(UsageError) -> Value in
            guard let choice = Value(rawValue: text) else {
                throw UsageError(description: "\(mistake) '\(text)' for \(name): expected \(expected)")
            }
            return choice
        }
    }
}

extension Option {
    /// An option whose text is parsed by the library (`parse`); the library's error, as it
    /// describes itself, is the usage error.
    init<Failure: Error & CustomStringConvertible>(
        names: [String], value: String, help: String,
        parsing parse: @escaping @Sendable (String) throws(Failure) -> Value
    ) {
        self.init(names: names, value: value, help: help) { (text, _) throws(UsageError) -> Value in
            do throws(Failure) { return try parse(text) } catch { throw UsageError(description: error.description) }
        }
    }
}

extension Option where Value == Set<AnalysisType> {
    /// `--for <list>`: comma-separated analysis names (``parseAnalysisTypes(_:)``).
    static func analyses(help: String) -> Option<Set<AnalysisType>> {
        Option(names: ["--for"], value: "list", help: help) { (text, _) throws(UsageError) in try parseAnalysisTypes(text) }
    }
}

extension UsageError {
    /// "invalid value '`text`' for `name`: expected `expected`".
    static func invalidValue(_ text: String, for name: String, expected: String) -> UsageError {
        UsageError(description: "invalid value '\(text)' for \(name): expected \(expected)")
    }
}

/// An option without a value.
struct Flag: OptionDeclaration {
    let spec: OptionSpec

    init(names: [String], help: String) {
        spec = OptionSpec(names: names, value: nil, help: help, convert: nil)
    }
}

/// A command's options as stored properties of `Option` and `Flag`: the declaration order is the
/// order in `--help`, and every declared option is parsed (found by reflection, so none can be
/// forgotten in a separate list).
protocol OptionGroup: Sendable {
    init()
}

extension OptionGroup {
    /// The declared options, in declaration order.
    static var specs: [OptionSpec] {
        Mirror(reflecting: Self()).children.compactMap { ($0.value as? any OptionDeclaration)?.spec }
    }
}

/// A subcommand's declaration.
struct CommandSpec<Options: OptionGroup>: Sendable {
    var name: String
    var abstract: String
    /// What follows the options on the usage line (`<path>...`).
    var operands: String
    /// Options the command needs, by their primary name: shown without brackets.
    var required: Set<String> = []
    var discussion: String = ""

    /// The usage line, generated from the option declarations in their order, so it lists every
    /// option: `cadenza analyze [--for <list>] ... <path>...`.
    var usage: String {
        let options = Options.specs.map { o in
            let text = o.primary + (o.value.map { " <\($0)>" } ?? "")
            return required.contains(o.primary) ? text : "[\(text)]"
        }
        return (["cadenza", name] + options + (operands.isEmpty ? [] : [operands])).joined(separator: " ")
    }

    var help: String {
        var s = "OVERVIEW: \(abstract)\n\nUSAGE: \(usage)\n\nOPTIONS:\n"
        for o in Options.specs + [Flag(names: ["--help", "-h"], help: "Show help for this command.").spec] {
            let left = o.names.joined(separator: ", ") + (o.value.map { " <\($0)>" } ?? "")
            s += "  " + left.padding(toLength: max(24, left.count + 2), withPad: " ", startingAt: 0) + o.help + "\n"
        }
        if !discussion.isEmpty { s += "\n" + discussion + "\n" }
        return s
    }
}

/// The parsed arguments of one command; values are read through the declarations.
struct ParsedArguments<Options: OptionGroup> {
    private var values: [String: any Sendable] = [:]
    private var flags: Set<String> = []
    var positionals: [String] = []
    var wantsHelp = false

    /// The value given for `option`, converted; nil when it was not given.
    subscript<Value>(_ option: KeyPath<Options, Option<Value>>) -> Value? {
        values[Options()[keyPath: option].spec.primary] as? Value
    }

    /// Whether `flag` was given.
    subscript(_ flag: KeyPath<Options, Flag>) -> Bool {
        flags.contains(Options()[keyPath: flag].spec.primary)
    }

    init(_ arguments: [String], spec: CommandSpec<Options>) throws(UsageError) {
        let options = Options.specs
        var invalidValue: UsageError?  // reported after the loop: `--help` wins, as before values were checked
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
            guard let option = options.first(where: { $0.names.contains(name) }) else {
                throw UsageError(description: "unknown option '\(name)' for '\(spec.name)'")
            }
            if let convert = option.convert {
                let text: String
                if let inline {
                    text = inline
                } else {
                    guard i < arguments.count else { throw UsageError(description: "missing value for \(name)") }
                    text = arguments[i]
                    i += 1
                }
                do throws(UsageError) {
                    values[option.primary] = try convert(text, name)
                } catch {
                    invalidValue = invalidValue ?? error
                }
            } else {
                if inline != nil { throw UsageError(description: "\(name) takes no value") }
                flags.insert(option.primary)
            }
        }
        if let invalidValue, !wantsHelp { throw invalidValue }
    }
}

/// Writes a line to standard error (a failure to do so is ignored, never a crash).
func printError(_ text: String) {
    StandardStreams.writeError(text + "\n")
}

/// Parses the `--for` list of analysis names.
func parseAnalysisTypes(_ text: String) throws(UsageError) -> Set<AnalysisType> {
    var set = Set<AnalysisType>()
    for part in text.split(separator: ",") {
        let name = part.trimmingCharacters(in: .whitespaces)
        if name.isEmpty { continue }
        // `instrument-activity`, `instrument_activity`, `InstrumentActivity` name `instrumentActivity` too.
        let folded = name.lowercased().filter { $0 != "-" && $0 != "_" }
        guard let t = AnalysisType(rawValue: name) ?? AnalysisType.allCases.first(where: { $0.rawValue.lowercased() == folded }) else {
            throw UsageError(description: "unknown analysis '\(name)' in --for: expected key, rhythm, structure, pace, instrumentActivity, loudness")
        }
        set.insert(t)
    }
    if set.isEmpty { throw UsageError(description: "--for needs at least one analysis name") }
    return set
}
