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
