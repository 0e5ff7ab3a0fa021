/// One of `count` deterministic shares of a catalog (`--shard K/N`), so that N machines on the
/// same catalog split it with no overlap and no gap, whatever order their file systems list it in.
///
/// An input belongs to shard `index` (1 … `count`) when the 64-bit FNV-1a hash of its path
/// relative to the catalog root (the folder it was found in, as given on the command line; a
/// file named directly is taken as given, without `.` components) is `index - 1` modulo `count`.
///
/// ```swift
/// let shard = try Shard(parsing: "2/8")
/// shard.contains(relativePath: "Artist/Album/01.flac")   // the same answer on every machine
/// ```
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// Which share, 1 … ``count``.
    public let index: Int
    /// How many shares.
    public let count: Int

    /// Why a shard specification is invalid.
    public enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Not `K/N` with 1 ≤ K ≤ N.
        case invalid(String)

        public var description: String {
            switch self {
            case .invalid(let text): "invalid shard '\(text)': expected K/N with 1 <= K <= N (e.g. 1/4)"
            }
        }
    }

    /// Shard `index` of `count`; nil unless 1 ≤ `index` ≤ `count`.
    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// Parses `K/N`, e.g. `3/8`.
    public init(parsing text: String) throws(ParseError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), let shard = Shard(index: k, count: n) else {
            throw .invalid(text)
        }
        self = shard
    }

    /// `K/N`.
    public var description: String { "\(index)/\(count)" }

    /// Whether the input at `relativePath` (relative to its catalog root) is in this shard.
    public func contains(relativePath: String) -> Bool {
        Int(FNV1a64.hash(relativePath) % UInt64(count)) == index - 1
    }

    /// `input`'s path relative to the first of `roots` (folders, as given) that it lies in;
    /// otherwise `input` without empty and `.` components.
    public static func relativePath(of input: String, roots: [String]) -> String {
        for root in roots {
            let prefix = root.hasSuffix("/") ? root : root + "/"
            if input.utf8.starts(with: prefix.utf8) { return String(decoding: input.utf8.dropFirst(prefix.utf8.count), as: UTF8.self) }
        }
        return input.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
    }
}
