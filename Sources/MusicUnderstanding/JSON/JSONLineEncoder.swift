import Foundation

/// Encodes any `Encodable` value as one line of compact JSON with sorted keys, streaming it into a
/// single byte buffer instead of building a tree first.
///
/// The output is byte for byte what `JSONEncoder` gives with default strategies and
/// `outputFormatting = [.sortedKeys, .withoutEscapingSlashes]` (or `[.sortedKeys]` when
/// ``escapesSlashes`` is set), with one deliberate difference: a `Double` or `Float` that is not
/// finite is written as `null`, where `JSONEncoder` throws. Numbers are written as their Swift
/// `description` (the shortest representation that reads back exactly) without a trailing `.0`;
/// strings escape `"`, `\`, and control characters as `JSONEncoder` does; `Data` is written as
/// Base64, `URL` as its absolute string and `Decimal` as a number, as `JSONEncoder` writes them.
///
/// How it streams: every value is written at the end of the one buffer as soon as it is
/// encoded, and each member of an object is written as `,"key":value`. An object remembers only
/// where each of its members starts; when its value is complete it puts its members into key
/// order in place (members that came in order are not moved; a member that has to move is
/// rotated past its neighbours using a scratch copy of the smaller side), then turns the first
/// comma into `{`. Arrays are written straight through and remember nothing per element, so the
/// 108,000-entry loudness curves of a 3-hour file stream element by element.
///
/// Memory: about the size of the output. The buffer grows by doubling (`realloc`, so pages
/// beyond the written end are not touched), is trimmed at the end and handed to the returned
/// `Data` without a copy; sorting an object's members needs at most a scratch copy of the
/// smaller side of one rotation (the report types write their members in key order, so none
/// move). Measured for a synthetic 3-hour
/// `LoudnessResult` (108,000 momentary and 108,000 short-term values, a 6.8 MB line) in an
/// optimised build on Linux: peak resident memory grows by 7.4 MB while encoding, and encoding
/// takes 0.17–0.22 s (2 shared cores); `JSONEncoder` with `.sortedKeys` grows it by 102 MB and takes 0.58 s.
///
/// Containers obtained with `nestedContainer`, `nestedUnkeyedContainer` or `superEncoder` may be
/// filled in any order before the enclosing value's `encode(to:)` returns (they are encoded
/// into their own buffer and spliced in when that value is complete). A container must not be
/// used after the `encode(to:)` call that created it has returned; doing so stops the program.
public struct JSONLineEncoder: Sendable {
    /// Whether `/` is written as `\/`, as `JSONEncoder` does by default. Off by default, so that
    /// paths in reports stay readable; both forms decode to the same string.
    public var escapesSlashes: Bool
    /// Contextual information handed to the values' `encode(to:)` as `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates an encoder.
    public init(escapesSlashes: Bool = false, userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.escapesSlashes = escapesSlashes
        self.userInfo = userInfo
    }

    /// Returns `value` as compact JSON with sorted keys (no trailing newline).
    ///
    /// Throws only what the value's own `encode(to:)` throws.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        let engine = JSONStreamEngine(escapesSlashes: escapesSlashes, userInfo: userInfo, basePath: [], capacity: 4096)
        try engine.encodeValue(value, key: nil)
        return engine.takeData()
    }
}

// MARK: - Engine

/// The buffer and the stack of values being encoded. Values nest strictly (a child's
/// `encode(to:)` returns before its parent writes on), so one stack serves them all; containers
/// that may be filled out of order get an engine of their own.
final class JSONStreamEngine {
    enum Kind: UInt8 { case empty, keyed, unkeyed, single }

    /// A value being encoded.
    struct Frame {
        var kind: Kind = .empty
        /// Where the value starts in the buffer.
        var start: Int
        /// `members.count` when the value started; its members are above.
        var memberBase: Int
        /// `detached.count` when the value started.
        var detachedBase: Int
        /// Elements written (unkeyed) or whether the value was written (single).
        var count = 0
        /// The key of this value in its parent, for `codingPath`.
        var key: (any CodingKey)?
        /// Distinguishes this frame from later ones at the same depth.
        var id: Int
    }

    /// A member of an open object: its key and where `,"key":value` starts.
    struct Member {
        var key: String
        var start: Int
    }

    /// A nested container or super encoder, encoded into its own engine.
    struct Detached {
        /// Its key, for a member of an object.
        var key: String
        /// Where it goes, for an element of an array.
        var offset: Int
        var engine: JSONStreamEngine
    }

    let escapesSlashes: Bool
    let userInfo: [CodingUserInfoKey: Any]
    let basePath: [any CodingKey]

    /// The output so far: a plain bounds-checked array (no raw memory).
    private(set) var storage: [UInt8]

    private(set) var frames: [Frame] = []
    private var members: [Member] = []
    private var detached: [Detached] = []
    private var nextID = 0

    init(escapesSlashes: Bool, userInfo: [CodingUserInfoKey: Any], basePath: [any CodingKey], capacity: Int) {
        self.escapesSlashes = escapesSlashes
        self.userInfo = userInfo
        self.basePath = basePath
        storage = []
        storage.reserveCapacity(max(capacity, 64))
    }

    /// Bytes written so far; setting a smaller value drops the bytes after it (rollback).
    var count: Int {
        get { storage.count }
        set {
            precondition(newValue >= 0 && newValue <= storage.count, "JSONLineEncoder: rollback beyond the output")
            storage.removeLast(storage.count - newValue)
        }
    }

    /// The output as `Data`.
    func takeData() -> Data { Data(storage) }

    // MARK: Bytes

    @inline(__always) func append(_ byte: UInt8) {
        storage.append(byte)
    }

    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        storage.append(contentsOf: bytes)
    }

    func append(_ literal: StaticString) {
        literal.withUTF8Buffer { append($0) }
    }

    /// Moves the bytes `[mid, end)` in front of `[start, mid)`.
    private func rotate(start: Int, mid: Int, end: Int) {
        guard start < mid, mid < end else { return }
        let moved = Array(storage[mid..<end])
        storage.replaceSubrange(start..<end, with: moved + storage[start..<mid])
    }

    // MARK: Scalars

    func writeNull() { append("null") }

    func writeBool(_ value: Bool) { value ? append("true") : append("false") }

    func writeInteger<I: BinaryInteger>(_ value: I) {
        var magnitude = UInt64(truncatingIfNeeded: value.magnitude)
        if value < 0 { append(UInt8(ascii: "-")) }
        if magnitude < 10 { append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)); return }
        var digits = 0
        var probe = magnitude
        while probe > 0 { digits += 1; probe /= 10 }
        let first = storage.count
        storage.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
        var i = first + digits - 1
        while magnitude > 0 {
            storage[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
            i -= 1
        }
    }

    /// `description`, without the `.0` of integral values; `null` when not finite.
    func writeFloat<F: BinaryFloatingPoint & CustomStringConvertible>(_ value: F) {
        guard value.isFinite else { writeNull(); return }
        var text = value.description
        text.withUTF8 { utf8 in
            var n = utf8.count
            if n >= 2, utf8[n - 2] == UInt8(ascii: "."), utf8[n - 1] == UInt8(ascii: "0") { n -= 2 }
            append(UnsafeBufferPointer(rebasing: utf8[0..<n]))
        }
    }

    func writeString(_ value: String) {
        append(UInt8(ascii: "\""))
        var text = value
        text.withUTF8 { utf8 in
            var run = 0
            for i in 0..<utf8.count {
                let b = utf8[i]
                guard b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || (b == UInt8(ascii: "/") && escapesSlashes) else {
                    continue
                }
                append(UnsafeBufferPointer(rebasing: utf8[run..<i]))
                run = i + 1
                append(UInt8(ascii: "\\"))
                switch b {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): append(b)
                case 0x08: append(UInt8(ascii: "b"))
                case 0x0C: append(UInt8(ascii: "f"))
                case 0x0A: append(UInt8(ascii: "n"))
                case 0x0D: append(UInt8(ascii: "r"))
                case 0x09: append(UInt8(ascii: "t"))
                default:
                    append("u00")
                    append(Self.hex[Int(b >> 4)])
                    append(Self.hex[Int(b & 0x0F)])
                }
            }
            append(UnsafeBufferPointer(rebasing: utf8[run..<utf8.count]))
        }
        append(UInt8(ascii: "\""))
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    // MARK: Values

    /// Encodes one value at the end of the buffer.
    func encodeValue<T: Encodable>(_ value: T, key: (any CodingKey)?) throws {
        // The types JSONEncoder writes specially, and fast paths for common scalars.
        if T.self == Double.self, let v = value as? Double { writeFloat(v); return }
        if T.self == Float.self, let v = value as? Float { writeFloat(v); return }
        if T.self == String.self, let v = value as? String { writeString(v); return }
        if T.self == Int.self, let v = value as? Int { writeInteger(v); return }
        if T.self == Bool.self, let v = value as? Bool { writeBool(v); return }
        if T.self == Data.self, let v = value as? Data { writeString(v.base64EncodedString()); return }
        if T.self == URL.self, let v = value as? URL { writeString(v.absoluteString); return }
        if T.self == Decimal.self, let v = value as? Decimal {
            if v.isNaN { writeNull() } else { var text = v.description; text.withUTF8 { append($0) } }
            return
        }
        let depth = frames.count
        nextID += 1
        frames.append(Frame(start: count, memberBase: members.count, detachedBase: detached.count, key: key, id: nextID))
        do {
            try value.encode(to: StreamEncoder(engine: self, depth: depth, frameID: nextID))
        } catch {
            let frame = frames[depth]
            frames.removeSubrange(depth...)
            members.removeSubrange(frame.memberBase...)
            detached.removeSubrange(frame.detachedBase...)
            count = frame.start
            throw error
        }
        closeFrame()
    }

    /// Stops the program when a container outlives the value it was made for.
    @inline(__always) func check(_ depth: Int, _ frameID: Int) {
        precondition(
            depth == frames.count - 1 && frames[depth].id == frameID,
            "JSONLineEncoder: a container was used after its value finished encoding")
    }

    /// Makes the value at `depth` a keyed, unkeyed or single value.
    func begin(_ kind: Kind, depth: Int, frameID: Int) {
        check(depth, frameID)
        switch frames[depth].kind {
        case .empty: frames[depth].kind = kind
        case kind: break
        default: preconditionFailure("JSONLineEncoder: a value asked for two different kinds of container")
        }
    }

    /// Writes `,"key":` for a member of the object at `depth`.
    func beginMember(_ key: String, depth: Int, frameID: Int) {
        check(depth, frameID)
        members.append(Member(key: key, start: count))
        append(UInt8(ascii: ","))
        writeString(key)
        append(UInt8(ascii: ":"))
    }

    /// Forgets the member just begun, after its value failed to encode.
    func abandonMember() {
        if let last = members.popLast() { count = last.start }
    }

    /// Writes `,` for an element of the array at `depth` and returns its index.
    func beginElement(depth: Int, frameID: Int) -> Int {
        check(depth, frameID)
        append(UInt8(ascii: ","))
        frames[depth].count += 1
        return frames[depth].count - 1
    }

    /// Forgets the element just begun (which started at `start`), after it failed to encode.
    func abandonElement(depth: Int, start: Int) {
        count = start
        frames[depth].count -= 1
    }

    /// Marks the single value at `depth` written.
    func beginSingle(depth: Int, frameID: Int) {
        check(depth, frameID)
        precondition(frames[depth].count == 0, "JSONLineEncoder: a single value container was asked to encode two values")
        frames[depth].count = 1
    }

    func elementCount(depth: Int) -> Int { frames[depth].count }

    /// An engine for a container that may be filled out of order; spliced in when the value at
    /// `depth` is complete. `key` names an object member; an array element takes the next index.
    func detach(depth: Int, frameID: Int, key: (any CodingKey)?) -> JSONStreamEngine {
        check(depth, frameID)
        let pathKey: any CodingKey
        if let key {
            pathKey = key
        } else {
            pathKey = IndexKey(intValue: frames[depth].count)
            frames[depth].count += 1
        }
        let engine = JSONStreamEngine(
            escapesSlashes: escapesSlashes, userInfo: userInfo,
            basePath: codingPath(depth: depth) + [pathKey], capacity: 256)
        engine.nextID = 1
        engine.frames.append(Frame(start: 0, memberBase: 0, detachedBase: 0, key: nil, id: 1))
        detached.append(Detached(key: key?.stringValue ?? "", offset: count, engine: engine))
        return engine
    }

    /// Completes a detached engine's value.
    func finishDetached() {
        if frames.count == 1 { closeFrame() }
    }

    func codingPath(depth: Int) -> [any CodingKey] {
        var path = basePath
        if depth >= 1 { for frame in frames[1...depth] { if let key = frame.key { path.append(key) } } }
        return path
    }

    // MARK: Closing values

    private func closeFrame() {
        guard let frame = frames.last else { return }
        switch frame.kind {
        case .empty:
            append("{}")
        case .single:
            if frame.count == 0 { append("{}") }
        case .unkeyed:
            closeArray(frame)
        case .keyed:
            closeObject(frame)
        }
        detached.removeSubrange(frame.detachedBase...)
        members.removeSubrange(frame.memberBase...)
        frames.removeLast()
    }

    private func closeArray(_ frame: Frame) {
        // Splice detached elements, last first, so earlier offsets stay valid.
        for item in detached[frame.detachedBase...].reversed() {
            item.engine.finishDetached()
            storage.insert(contentsOf: [UInt8(ascii: ",")] + item.engine.storage, at: item.offset)
        }
        if count == frame.start {
            append("[]")
        } else {
            storage[frame.start] = UInt8(ascii: "[")
            append(UInt8(ascii: "]"))
        }
    }

    private func closeObject(_ frame: Frame) {
        for item in detached[frame.detachedBase...] {
            item.engine.finishDetached()
            members.append(Member(key: item.key, start: count))
            append(UInt8(ascii: ","))
            writeString(item.key)
            append(UInt8(ascii: ":"))
            storage.append(contentsOf: item.engine.storage)
        }
        if members.count == frame.memberBase {
            append("{}")
            return
        }
        sortMembers(frame)
        storage[frame.start] = UInt8(ascii: "{")
        append(UInt8(ascii: "}"))
    }

    @inline(__always) private static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// Puts the members of the object (the end of the buffer) into key order in place; of
    /// members with the same key, the last one encoded stays, as with `JSONEncoder`.
    private func sortMembers(_ frame: Frame) {
        let first = frame.memberBase
        let k = members.count - first
        guard k > 1 else { return }
        var inOrder = true
        for i in (first + 1)..<members.count where !Self.precedes(members[i - 1].key, members[i].key) {
            inOrder = false
            break
        }
        if inOrder { return }
        if k == 2 {
            let a = members[first], b = members[first + 1]
            if a.key == b.key {
                rotate(start: a.start, mid: b.start, end: count)
                count -= b.start - a.start
            } else {
                rotate(start: a.start, mid: b.start, end: count)
            }
            return
        }
        var lengths = [Int](repeating: 0, count: k)
        for i in 0..<k { lengths[i] = (i + 1 < k ? members[first + i + 1].start : count) - members[first + i].start }
        let sorted = (0..<k).sorted { a, b in
            let ka = members[first + a].key, kb = members[first + b].key
            if ka == kb { return a < b }
            return Self.precedes(ka, kb)
        }
        var keep: [Int] = []
        keep.reserveCapacity(k)
        for (j, id) in sorted.enumerated() where !(j + 1 < k && members[first + sorted[j + 1]].key == members[first + id].key) {
            keep.append(id)
        }
        var layout = Array(0..<k)
        var position = frame.start
        for (p, id) in keep.enumerated() {
            guard let q = layout[p...].firstIndex(of: id) else { continue }
            if q != p {
                var mid = position
                for j in p..<q { mid += lengths[layout[j]] }
                rotate(start: position, mid: mid, end: mid + lengths[id])
                layout.remove(at: q)
                layout.insert(id, at: p)
            }
            position += lengths[id]
        }
        count = position  // members dropped as duplicates are behind the kept ones
    }
}

/// The coding key of an array element.
struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

/// The key `JSONEncoder` gives `superEncoder()`.
struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { if stringValue != "super" { return nil } }
    init?(intValue: Int) { nil }
}

// MARK: - Encoder and containers

struct StreamEncoder: Encoder {
    let engine: JSONStreamEngine
    let depth: Int
    let frameID: Int

    var codingPath: [any CodingKey] { engine.codingPath(depth: depth) }
    var userInfo: [CodingUserInfoKey: Any] { engine.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        engine.begin(.keyed, depth: depth, frameID: frameID)
        return KeyedEncodingContainer(StreamKeyedContainer<Key>(engine: engine, depth: depth, frameID: frameID))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        engine.begin(.unkeyed, depth: depth, frameID: frameID)
        return StreamUnkeyedContainer(engine: engine, depth: depth, frameID: frameID)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        engine.begin(.single, depth: depth, frameID: frameID)
        return StreamSingleValueContainer(engine: engine, depth: depth, frameID: frameID)
    }
}

/// A detached engine's root as an `Encoder` (what `superEncoder` returns).
private func rootEncoder(_ engine: JSONStreamEngine) -> StreamEncoder {
    StreamEncoder(engine: engine, depth: 0, frameID: 1)
}

struct StreamKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let engine: JSONStreamEngine
    let depth: Int
    let frameID: Int

    var codingPath: [any CodingKey] { engine.codingPath(depth: depth) }

    @inline(__always) private func begin(_ key: Key) { engine.beginMember(key.stringValue, depth: depth, frameID: frameID) }

    mutating func encodeNil(forKey key: Key) throws { begin(key); engine.writeNull() }
    mutating func encode(_ value: Bool, forKey key: Key) throws { begin(key); engine.writeBool(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { begin(key); engine.writeString(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { begin(key); engine.writeFloat(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { begin(key); engine.writeFloat(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { begin(key); engine.writeInteger(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { begin(key); engine.writeInteger(value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { begin(key); engine.writeInteger(value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { begin(key); engine.writeInteger(value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { begin(key); engine.writeInteger(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { begin(key); engine.writeInteger(value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { begin(key); engine.writeInteger(value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { begin(key); engine.writeInteger(value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { begin(key); engine.writeInteger(value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { begin(key); engine.writeInteger(value) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        begin(key)
        do { try engine.encodeValue(value, key: key) } catch { engine.abandonMember(); throw error }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        rootEncoder(engine.detach(depth: depth, frameID: frameID, key: key)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        rootEncoder(engine.detach(depth: depth, frameID: frameID, key: key)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        rootEncoder(engine.detach(depth: depth, frameID: frameID, key: SuperKey()))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        rootEncoder(engine.detach(depth: depth, frameID: frameID, key: key))
    }
}

/// What the unkeyed and the single-value container share: each primitive value is `begin()`
/// (the next element, or the single value) and one write of the engine.
protocol StreamValueContainer {
    var engine: JSONStreamEngine { get }
    /// Starts the next value.
    func begin()
}

extension StreamValueContainer {
    mutating func encodeNil() throws { begin(); engine.writeNull() }
    mutating func encode(_ value: Bool) throws { begin(); engine.writeBool(value) }
    mutating func encode(_ value: String) throws { begin(); engine.writeString(value) }
    mutating func encode(_ value: Double) throws { begin(); engine.writeFloat(value) }
    mutating func encode(_ value: Float) throws { begin(); engine.writeFloat(value) }
    mutating func encode(_ value: Int) throws { begin(); engine.writeInteger(value) }
    mutating func encode(_ value: Int8) throws { begin(); engine.writeInteger(value) }
    mutating func encode(_ value: Int16) throws { begin(); engine.writeInteger(value) }
    mutating func encode(_ value: Int32) throws { begin(); engine.writeInteger(value) }
    mutating func encode(_ value: Int64) throws { begin(); engine.writeInteger(value) }
    mutating func encode(_ value: UInt) throws { begin(); engine.writeInteger(value) }
    mutating func encode(_ value: UInt8) throws { begin(); engine.writeInteger(value) }
    mutating func encode(_ value: UInt16) throws { begin(); engine.writeInteger(value) }
    mutating func encode(_ value: UInt32) throws { begin(); engine.writeInteger(value) }
    mutating func encode(_ value: UInt64) throws { begin(); engine.writeInteger(value) }
}

struct StreamUnkeyedContainer: UnkeyedEncodingContainer, StreamValueContainer {
    let engine: JSONStreamEngine
    let depth: Int
    let frameID: Int

    var codingPath: [any CodingKey] { engine.codingPath(depth: depth) }
    var count: Int { engine.elementCount(depth: depth) }

    @inline(__always) func begin() { _ = engine.beginElement(depth: depth, frameID: frameID) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let start = engine.count
        let index = engine.beginElement(depth: depth, frameID: frameID)
        do {
            try engine.encodeValue(value, key: IndexKey(intValue: index))
        } catch {
            engine.abandonElement(depth: depth, start: start)
            throw error
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        rootEncoder(engine.detach(depth: depth, frameID: frameID, key: nil)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        rootEncoder(engine.detach(depth: depth, frameID: frameID, key: nil)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        rootEncoder(engine.detach(depth: depth, frameID: frameID, key: nil))
    }
}

struct StreamSingleValueContainer: SingleValueEncodingContainer, StreamValueContainer {
    let engine: JSONStreamEngine
    let depth: Int
    let frameID: Int

    var codingPath: [any CodingKey] { engine.codingPath(depth: depth) }

    @inline(__always) func begin() { engine.beginSingle(depth: depth, frameID: frameID) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        begin()
        do { try engine.encodeValue(value, key: nil) } catch { engine.abandonSingle(depth: depth); throw error }
    }
}

extension JSONStreamEngine {
    /// Forgets the single value just begun, after it failed to encode.
    func abandonSingle(depth: Int) {
        frames[depth].count = 0
    }
}
