import Foundation

/// Decodes any `Decodable` value from JSON straight from its bytes, without building a tree
/// first: the counterpart of ``JSONLineEncoder`` for large reports.
///
/// `JSONDecoder` first turns the whole document into an index of every value; for the 18 MB
/// report of a 3-hour file (650,000 timed values) that costs about 110 MB and 1.5 s. This decoder
/// keeps only the document's bytes and, while a value is decoded, the member list of each
/// object being decoded (key and offset of each member; report objects have at most a dozen).
/// Arrays are read element by element. Memory: the document plus the decoded value.
///
/// Accepted input is RFC 8259 JSON (one value, surrounded by optional whitespace). Numbers are
/// read as the type asked for (a `Float` member is parsed as a `Float`, so the shortest form
/// ``JSONLineEncoder`` wrote reads back to the same value); an integer type accepts only numbers
/// that are exact integers in its range. `null` where a value is required, a missing key or a
/// wrong type throws the `DecodingError` `JSONDecoder` would throw. `Data` is read from Base64
/// and `URL` from a string, as `JSONDecoder` reads them by default.
public struct JSONLineDecoder: Sendable {
    /// Contextual information handed to the values' `init(from:)` as `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]
    /// Deepest nesting of arrays and objects accepted (deeper input throws instead of
    /// exhausting the stack). Default 512.
    public var maximumDepth: Int

    /// Creates a decoder.
    public init(userInfo: [CodingUserInfoKey: any Sendable] = [:], maximumDepth: Int = 512) {
        self.userInfo = userInfo
        self.maximumDepth = maximumDepth
    }

    /// Decodes one `T` from `data`.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decode(type, from: [UInt8](data))
    }

    /// Decodes one `T` from `bytes`.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        let document = JSONDocument(bytes: bytes, maximumDepth: maximumDepth)
        let start = document.skipSpace(0)
        let end = try document.skipValue(start, path: [])
        guard document.skipSpace(end) == bytes.count else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "Unexpected bytes after the JSON value at offset \(end)"))
        }
        return try document.decode(type, at: start, path: [], userInfo: userInfo)
    }
}

// MARK: - Document

/// The bytes of one JSON document and the scanning and parsing of its tokens.
final class JSONDocument {
    let bytes: [UInt8]
    let maximumDepth: Int

    init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")

    func corrupt(_ path: [any CodingKey], _ text: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: path, debugDescription: text))
    }

    @inline(__always) func skipSpace(_ from: Int) -> Int {
        var i = from
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return i
            }
        }
        return i
    }

    /// The offset just after the value starting at `i` (which must not be whitespace), checked
    /// against the JSON grammar; containers are stepped through recursively, at most
    /// ``maximumDepth`` deep.
    func skipValue(_ i: Int, path: [any CodingKey], depth: Int = 0) throws -> Int {
        guard i < bytes.count else { throw corrupt(path, "Unexpected end of the JSON document") }
        switch bytes[i] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard depth < maximumDepth else { throw corrupt(path, "JSON nested deeper than \(maximumDepth) levels") }
            let isObject = bytes[i] == UInt8(ascii: "{")
            let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
            var j = skipSpace(i + 1)
            if j < bytes.count, bytes[j] == close { return j + 1 }
            while true {
                if isObject {
                    guard j < bytes.count, bytes[j] == Self.quote else { throw corrupt(path, "Expected a key at offset \(j)") }
                    j = skipSpace(try stringEnd(j, path: path))
                    guard j < bytes.count, bytes[j] == UInt8(ascii: ":") else { throw corrupt(path, "Expected ':' at offset \(j)") }
                    j = skipSpace(j + 1)
                }
                j = skipSpace(try skipValue(j, path: path, depth: depth + 1))
                guard j < bytes.count else { throw corrupt(path, "Unexpected end of the JSON document") }
                if bytes[j] == close { return j + 1 }
                guard bytes[j] == UInt8(ascii: ",") else { throw corrupt(path, "Expected ',' or a closing bracket at offset \(j)") }
                j = skipSpace(j + 1)
            }
        case Self.quote: return try stringEnd(i, path: path)
        case UInt8(ascii: "t"): return try literal(i, "true", path: path)
        case UInt8(ascii: "f"): return try literal(i, "false", path: path)
        case UInt8(ascii: "n"): return try literal(i, "null", path: path)
        default: return try numberEnd(i, path: path)
        }
    }

    private func literal(_ i: Int, _ text: StaticString, path: [any CodingKey]) throws -> Int {
        let n = text.utf8CodeUnitCount
        guard i + n <= bytes.count else { throw corrupt(path, "Unexpected end of the JSON document") }
        var k = 0
        let match = text.withUTF8Buffer { t in
            while k < n, bytes[i + k] == t[k] { k += 1 }
            return k == n
        }
        guard match else { throw corrupt(path, "Invalid literal at offset \(i)") }
        return i + n
    }

    /// The offset after the string token starting at `i` (a quote).
    func stringEnd(_ i: Int, path: [any CodingKey]) throws -> Int {
        var j = i + 1
        while j < bytes.count {
            let b = bytes[j]
            if b == Self.quote { return j + 1 }
            if b == Self.backslash { j += 2; continue }
            guard b >= 0x20 else { throw corrupt(path, "Unescaped control character in a string at offset \(j)") }
            j += 1
        }
        throw corrupt(path, "Unterminated string")
    }

    /// The offset after the number token starting at `i`, checked against the JSON grammar.
    func numberEnd(_ i: Int, path: [any CodingKey]) throws -> Int {
        var j = i
        func digits() -> Int {
            let s = j
            while j < bytes.count, bytes[j] >= 0x30, bytes[j] <= 0x39 { j += 1 }
            return j - s
        }
        if j < bytes.count, bytes[j] == UInt8(ascii: "-") { j += 1 }
        guard j < bytes.count, bytes[j] >= 0x30, bytes[j] <= 0x39 else { throw corrupt(path, "Invalid value at offset \(i)") }
        if bytes[j] == 0x30 { j += 1 } else { _ = digits() }
        if j < bytes.count, bytes[j] == UInt8(ascii: ".") {
            j += 1
            guard digits() > 0 else { throw corrupt(path, "Invalid number at offset \(i)") }
        }
        if j < bytes.count, bytes[j] == UInt8(ascii: "e") || bytes[j] == UInt8(ascii: "E") {
            j += 1
            if j < bytes.count, bytes[j] == UInt8(ascii: "+") || bytes[j] == UInt8(ascii: "-") { j += 1 }
            guard digits() > 0 else { throw corrupt(path, "Invalid number at offset \(i)") }
        }
        return j
    }

    // MARK: Values

    func isNull(_ i: Int) -> Bool {
        i + 4 <= bytes.count && bytes[i] == UInt8(ascii: "n") && bytes[i + 1] == UInt8(ascii: "u")
            && bytes[i + 2] == UInt8(ascii: "l") && bytes[i + 3] == UInt8(ascii: "l")
    }

    func typeMismatch<T>(_ type: T.Type, at i: Int, path: [any CodingKey]) -> DecodingError {
        if isNull(i) {
            return .valueNotFound(type, .init(codingPath: path, debugDescription: "Expected \(type) value but found null instead."))
        }
        return .typeMismatch(type, .init(codingPath: path, debugDescription: "Expected to decode \(type) at offset \(i)."))
    }

    func bool(at i: Int, path: [any CodingKey]) throws -> Bool {
        if i < bytes.count, bytes[i] == UInt8(ascii: "t") { _ = try literal(i, "true", path: path); return true }
        if i < bytes.count, bytes[i] == UInt8(ascii: "f") { _ = try literal(i, "false", path: path); return false }
        throw typeMismatch(Bool.self, at: i, path: path)
    }

    func string(at i: Int, path: [any CodingKey]) throws -> String {
        guard i < bytes.count, bytes[i] == Self.quote else { throw typeMismatch(String.self, at: i, path: path) }
        let end = try stringEnd(i, path: path)
        let body = bytes[(i + 1)..<(end - 1)]
        guard body.contains(Self.backslash) else {
            guard let text = String(validating: body, as: UTF8.self) else { throw corrupt(path, "A string is not valid UTF-8") }
            return text
        }
        var out: [UInt8] = []
        out.reserveCapacity(body.count)
        var j = body.startIndex
        while j < body.endIndex {
            let b = bytes[j]
            guard b == Self.backslash else { out.append(b); j += 1; continue }
            guard j + 1 < body.endIndex else { throw corrupt(path, "Invalid escape in a string") }
            let e = bytes[j + 1]
            j += 2
            switch e {
            case Self.quote, Self.backslash, UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4(j, end: body.endIndex, path: path)
                j += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    // A high surrogate must be followed by an escaped low one.
                    guard j + 6 <= body.endIndex, bytes[j] == Self.backslash, bytes[j + 1] == UInt8(ascii: "u") else {
                        throw corrupt(path, "Unpaired surrogate in a string")
                    }
                    let low = try hex4(j + 2, end: body.endIndex, path: path)
                    guard (0xDC00..<0xE000).contains(low) else { throw corrupt(path, "Unpaired surrogate in a string") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    j += 6
                }
                guard let u = Unicode.Scalar(scalar) else { throw corrupt(path, "Unpaired surrogate in a string") }
                out.append(contentsOf: UTF8.encode(u).map { Array($0) } ?? [])
            default: throw corrupt(path, "Invalid escape in a string")
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else { throw corrupt(path, "A string is not valid UTF-8") }
        return text
    }

    private func hex4(_ j: Int, end: Int, path: [any CodingKey]) throws -> UInt32 {
        guard j + 4 <= end else { throw corrupt(path, "Invalid \\u escape in a string") }
        var v: UInt32 = 0
        for k in j..<(j + 4) {
            let b = bytes[k]
            let d: UInt8
            switch b {
            case 0x30...0x39: d = b - 0x30
            case 0x41...0x46: d = b - 0x41 + 10
            case 0x61...0x66: d = b - 0x61 + 10
            default: throw corrupt(path, "Invalid \\u escape in a string")
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }

    /// The number token at `i` as text (ASCII; short tokens need no allocation).
    private func numberText<T>(_ type: T.Type, at i: Int, path: [any CodingKey]) throws -> (text: String, integral: Bool) {
        guard i < bytes.count, bytes[i] == UInt8(ascii: "-") || (bytes[i] >= 0x30 && bytes[i] <= 0x39) else {
            throw typeMismatch(type, at: i, path: path)
        }
        let end = try numberEnd(i, path: path)
        let token = bytes[i..<end]
        let integral = !token.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        return (String(decoding: token, as: UTF8.self), integral)
    }

    func floatingPoint<F: BinaryFloatingPoint & LosslessStringConvertible>(_ type: F.Type, at i: Int, path: [any CodingKey]) throws -> F {
        let (text, _) = try numberText(type, at: i, path: path)
        guard let value = F(text), value.isFinite else {
            throw corrupt(path, "Parsed JSON number <\(text)> does not fit in \(type).")
        }
        return value
    }

    func integer<I: FixedWidthInteger>(_ type: I.Type, at i: Int, path: [any CodingKey]) throws -> I {
        let (text, integral) = try numberText(type, at: i, path: path)
        if integral, let value = I(text) { return value }
        if !integral, let d = Double(text), d.rounded() == d, let value = I(exactly: d) { return value }
        throw corrupt(path, "Parsed JSON number <\(text)> does not fit in \(type).")
    }

    /// Members of the object at `i`: each key and the offset of its value, in document order.
    func members(at i: Int, path: [any CodingKey]) throws -> [(key: String, value: Int)] {
        var out: [(key: String, value: Int)] = []
        var j = skipSpace(i + 1)
        if j < bytes.count, bytes[j] == UInt8(ascii: "}") { return out }
        while true {
            guard j < bytes.count, bytes[j] == Self.quote else { throw corrupt(path, "Expected a key at offset \(j)") }
            let key = try string(at: j, path: path)
            j = skipSpace(try stringEnd(j, path: path))
            guard j < bytes.count, bytes[j] == UInt8(ascii: ":") else { throw corrupt(path, "Expected ':' at offset \(j)") }
            j = skipSpace(j + 1)
            out.append((key, j))
            j = skipSpace(try skipValue(j, path: path))
            guard j < bytes.count else { throw corrupt(path, "Unexpected end of the JSON document") }
            if bytes[j] == UInt8(ascii: "}") { return out }
            guard bytes[j] == UInt8(ascii: ",") else { throw corrupt(path, "Expected ',' or '}' at offset \(j)") }
            j = skipSpace(j + 1)
        }
    }

    /// Decodes `T` from the value at `i`.
    func decode<T: Decodable>(_ type: T.Type, at i: Int, path: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) throws -> T {
        func cast(_ value: Any) throws -> T {
            guard let t = value as? T else { throw typeMismatch(type, at: i, path: path) }
            return t
        }
        if type == Double.self { return try cast(floatingPoint(Double.self, at: i, path: path)) }
        if type == Float.self { return try cast(floatingPoint(Float.self, at: i, path: path)) }
        if type == String.self { return try cast(string(at: i, path: path)) }
        if type == Bool.self { return try cast(bool(at: i, path: path)) }
        if let integerType = type as? any FixedWidthInteger.Type { return try cast(integer(integerType, at: i, path: path)) }
        if type == Data.self {
            guard let data = Data(base64Encoded: try string(at: i, path: path)) else {
                throw corrupt(path, "Encountered Data is not valid Base64.")
            }
            return try cast(data)
        }
        if type == URL.self {
            guard let url = URL(string: try string(at: i, path: path)) else { throw corrupt(path, "Invalid URL string.") }
            return try cast(url)
        }
        return try T(from: DocumentDecoder(document: self, start: i, codingPath: path, userInfo: userInfo))
    }
}

// MARK: - Decoder

/// The `Decoder` of one value of a ``JSONDocument``.
struct DocumentDecoder: Decoder {
    let document: JSONDocument
    let start: Int
    let codingPath: [any CodingKey]
    let sendableUserInfo: [CodingUserInfoKey: any Sendable]
    var userInfo: [CodingUserInfoKey: Any] { sendableUserInfo }

    init(document: JSONDocument, start: Int, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.document = document
        self.start = start
        self.codingPath = codingPath
        self.sendableUserInfo = userInfo
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard start < document.bytes.count, document.bytes[start] == UInt8(ascii: "{") else {
            throw document.typeMismatch([String: Any].self, at: start, path: codingPath)
        }
        let members = try document.members(at: start, path: codingPath)
        return KeyedDecodingContainer(DocumentKeyedContainer<Key>(decoder: self, members: members))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard start < document.bytes.count, document.bytes[start] == UInt8(ascii: "[") else {
            throw document.typeMismatch([Any].self, at: start, path: codingPath)
        }
        return try DocumentUnkeyedContainer(decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { DocumentSingleValue(decoder: self) }

    func child(at offset: Int, key: any CodingKey) -> DocumentDecoder {
        DocumentDecoder(document: document, start: offset, codingPath: codingPath + [key], userInfo: sendableUserInfo)
    }
}

struct DocumentKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: DocumentDecoder
    let members: [(key: String, value: Int)]

    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { offset(key) != nil }

    /// The last member with this key (as `JSONDecoder`, a repeated key's last value counts).
    private func offset(_ key: Key) -> Int? {
        let name = key.stringValue
        return members.last { $0.key == name }?.value
    }

    private func require(_ key: Key) throws -> Int {
        guard let i = offset(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
        }
        return i
    }

    func decodeNil(forKey key: Key) throws -> Bool { decoder.document.isNull(try require(key)) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.document.decode(type, at: try require(key), path: codingPath + [key], userInfo: decoder.sendableUserInfo)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.child(at: try require(key), key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(at: try require(key), key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let key = SuperKey()
        guard let i = members.last(where: { $0.key == "super" })?.value else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value associated with key super."))
        }
        return decoder.child(at: i, key: key)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { decoder.child(at: try require(key), key: key) }
}

struct DocumentUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: DocumentDecoder
    /// Offset of the next element (or of the closing bracket).
    private var next: Int
    private(set) var currentIndex = 0
    private(set) var isAtEnd: Bool

    init(decoder: DocumentDecoder) throws {
        self.decoder = decoder
        next = decoder.document.skipSpace(decoder.start + 1)
        let bytes = decoder.document.bytes
        guard next < bytes.count else { throw decoder.document.corrupt(decoder.codingPath, "Unexpected end of the JSON document") }
        isAtEnd = bytes[next] == UInt8(ascii: "]")
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { nil }

    private func ended<T>(_ type: T.Type) -> DecodingError {
        .valueNotFound(type, .init(codingPath: codingPath + [IndexKey(intValue: currentIndex)], debugDescription: "Unkeyed container is at end."))
    }

    /// Moves past the element that ends at `end`.
    private mutating func advance(past end: Int) throws {
        let document = decoder.document
        var j = document.skipSpace(end)
        guard j < document.bytes.count else { throw document.corrupt(codingPath, "Unexpected end of the JSON document") }
        currentIndex += 1
        switch document.bytes[j] {
        case UInt8(ascii: "]"): isAtEnd = true
        case UInt8(ascii: ","):
            j = document.skipSpace(j + 1)
            guard j < document.bytes.count, document.bytes[j] != UInt8(ascii: "]") else {
                throw document.corrupt(codingPath, "Expected a value after ',' at offset \(j)")
            }
        default: throw document.corrupt(codingPath, "Expected ',' or ']' at offset \(j)")
        }
        next = j
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw ended(Never.self) }
        guard decoder.document.isNull(next) else { return false }
        try advance(past: next + 4)
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard !isAtEnd else { throw ended(type) }
        let path = codingPath + [IndexKey(intValue: currentIndex)]
        let end = try decoder.document.skipValue(next, path: path)
        let value = try decoder.document.decode(type, at: next, path: path, userInfo: decoder.sendableUserInfo)
        try advance(past: end)
        return value
    }

    private mutating func element() throws -> DocumentDecoder {
        guard !isAtEnd else { throw ended(Any.self) }
        let child = decoder.child(at: next, key: IndexKey(intValue: currentIndex))
        try advance(past: try decoder.document.skipValue(next, path: child.codingPath))
        return child
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try element().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try element().unkeyedContainer() }

    mutating func superDecoder() throws -> any Decoder { try element() }
}

struct DocumentSingleValue: SingleValueDecodingContainer {
    let decoder: DocumentDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.document.isNull(decoder.start) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.document.decode(type, at: decoder.start, path: codingPath, userInfo: decoder.sendableUserInfo)
    }
}
