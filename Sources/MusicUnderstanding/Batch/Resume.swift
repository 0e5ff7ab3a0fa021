import Foundation

/// What a resumed batch reads from an existing report: who made it, from which file (path, size,
/// modification time) and whether it is an error record. The rest of the report is skipped over
/// without being decoded, so checking 10,000 reports takes a second, not minutes.
public struct ReportHead: Sendable, Hashable, Decodable {
    /// The report's `analyzer` (nil in reports written before it existed).
    public var analyzer: AnalyzerInfo?
    /// The report's `source`.
    public var source: SourceInfo
    /// The report's `error`, when it is an error record.
    public var error: Report.ErrorInfo?

    /// Creates a head from its parts.
    public init(analyzer: AnalyzerInfo?, source: SourceInfo, error: Report.ErrorInfo?) {
        self.analyzer = analyzer
        self.source = source
        self.error = error
    }

    /// The head of the report in `data` (one JSON object, as ``ReportSink`` writes it), or nil when
    /// `data` is not a complete JSON object with a `source` (a foreign or damaged file).
    ///
    /// The top-level members are delimited by a small scanner that steps over strings, objects and
    /// arrays; only `analyzer`, `source` and `error` are decoded.
    public static func read(from data: Data) -> ReportHead? {
        let bytes = [UInt8](data)
        var scanner = TopLevelScanner(bytes: bytes)
        guard let members = scanner.members(wanted: ["analyzer", "source", "error"]) else { return nil }
        var document: [UInt8] = [UInt8(ascii: "{")]
        for (index, member) in members.enumerated() {
            if index > 0 { document.append(UInt8(ascii: ",")) }
            document += Array("\"\(member.key)\":".utf8)
            document += bytes[member.value]
        }
        document.append(UInt8(ascii: "}"))
        return try? JSONDecoder().decode(ReportHead.self, from: Data(document))
    }

    /// The head of the report file at `path`, or nil when there is none or it cannot be read.
    public static func read(path: String) -> ReportHead? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return read(from: data)
    }
}

/// Whether an existing report may be kept instead of analysing its input again.
public enum ResumePolicy {
    /// Error codes that describe the file's content, so the same file gives them again: such an
    /// error record is kept like a report. Every other error record (a missing or unreadable file,
    /// an interruption, an internal error) is redone.
    public static let contentErrorCodes: Set<String> = ["decodeFailed", "noAudioStream", "unsupportedCodec", "zeroLength"]

    /// A report is current when it was made from `input` as spelt now, by `analyzer` (same name,
    /// version, analyses and configuration), from a file of the same size and modification time
    /// (`stamp`, nil for standard input: never current), and it is not an error record that may
    /// not happen again.
    public static func isCurrent(_ head: ReportHead, input: String, stamp: FileStamp?, analyzer: AnalyzerInfo) -> Bool {
        guard let stamp, head.source.path == input, head.analyzer == analyzer,
              head.source.size == stamp.size, head.source.modified == stamp.modified else { return false }
        if let error = head.error { return contentErrorCodes.contains(error.code) }
        return true
    }
}

/// Finds the byte ranges of chosen top-level members of a JSON object without decoding it.
struct TopLevelScanner {
    let bytes: [UInt8]
    var i = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// The wanted members found, in document order, with the range of each value; nil when the
    /// bytes are not one complete JSON object (trailing whitespace allowed) or `source` is missing.
    mutating func members(wanted: Set<String>) -> [(key: String, value: Range<Int>)]? {
        var found: [(key: String, value: Range<Int>)] = []
        skipSpace()
        guard take(UInt8(ascii: "{")) else { return nil }
        skipSpace()
        if take(UInt8(ascii: "}")) { return nil }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\""), let keyEnd = stringEnd(from: i) else { return nil }
            let key = String(decoding: bytes[(i + 1)..<(keyEnd - 1)], as: UTF8.self)
            i = keyEnd
            skipSpace()
            guard take(UInt8(ascii: ":")) else { return nil }
            skipSpace()
            let start = i
            guard skipValue() else { return nil }
            if wanted.contains(key) { found.append((key, start..<i)) }
            skipSpace()
            if take(UInt8(ascii: ",")) { continue }
            guard take(UInt8(ascii: "}")) else { return nil }
            break
        }
        skipSpace()
        guard i == bytes.count, found.contains(where: { $0.key == "source" }) else { return nil }
        return found
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard i < bytes.count, bytes[i] == byte else { return false }
        i += 1
        return true
    }

    private mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    /// The index after the closing quote of the string opening at `start`.
    private func stringEnd(from start: Int) -> Int? {
        var j = start + 1
        while j < bytes.count {
            switch bytes[j] {
            case UInt8(ascii: "\\"): j += 2
            case UInt8(ascii: "\""): return j + 1
            default: j += 1
            }
        }
        return nil
    }

    /// Steps over one value (string, object, array or scalar); false when it is malformed.
    private mutating func skipValue() -> Bool {
        guard i < bytes.count else { return false }
        switch bytes[i] {
        case UInt8(ascii: "\""):
            guard let end = stringEnd(from: i) else { return false }
            i = end
            return true
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while i < bytes.count {
                switch bytes[i] {
                case UInt8(ascii: "\""):
                    guard let end = stringEnd(from: i) else { return false }
                    i = end
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { i += 1; return true }
                default: break
                }
                i += 1
            }
            return false
        default:
            let start = i
            while i < bytes.count {
                let b = bytes[i]
                if b == UInt8(ascii: ",") || b == UInt8(ascii: "}") || b == UInt8(ascii: "]") || b == 0x20 || b == 0x0A { break }
                i += 1
            }
            return i > start
        }
    }
}
