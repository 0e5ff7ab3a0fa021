import Foundation

/// What made a report (the report's extra `analyzer` object): the library's name and version,
/// the analyses that were asked for, and which configuration they ran with.
///
/// A resumed batch (``BatchJob`` with a folder sink) keeps a report only when its `analyzer` equals
/// the one the batch would write now, so a new version, other analyses or other settings redo it.
public struct AnalyzerInfo: Sendable, Codable, Hashable {
    /// The library's name, `cadenza`.
    public static let libraryName = "cadenza"
    /// The library's version. It changes whenever a report of the same input can change.
    public static let libraryVersion = "0.8.21"

    /// Name of the analyser (``libraryName``).
    public var name: String
    /// Its version (``libraryVersion``).
    public var version: String
    /// The analyses asked for, in contract order (`key`, `rhythm`, `structure`, `pace`,
    /// `instrumentActivity`, `loudness`).
    public var analyses: [String]
    /// `default` for ``AnalysisConfiguration``'s defaults; otherwise `custom-` and a 64-bit
    /// FNV-1a hash of every setting, so two runs with other settings never share a report.
    public var configuration: String

    /// The analyser that runs `types` with `configuration` in this version.
    public init(types: Set<AnalysisType>, configuration: AnalysisConfiguration = .init()) {
        name = Self.libraryName
        version = Self.libraryVersion
        analyses = AnalysisType.allCases.filter(types.contains).map(\.rawValue)
        self.configuration =
            configuration == AnalysisConfiguration()
            ? "default"
            : "custom-" + String(FNV1a64.hash(String(reflecting: configuration)), radix: 16)
    }

    /// Creates an analyser description from its parts (e.g. read back from a report).
    public init(name: String, version: String, analyses: [String], configuration: String) {
        self.name = name
        self.version = version
        self.analyses = analyses
        self.configuration = configuration
    }
}

/// The 64-bit FNV-1a hash (Fowler, Noll & Vo; the IETF draft-eastlake-fnv reference): stable
/// across runs, machines and Swift versions, unlike `Hasher`. Used for shards and fingerprints.
public enum FNV1a64 {
    /// The hash of `bytes`.
    public static func hash<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01b3
        }
        return h
    }

    /// The hash of the UTF-8 bytes of `text`.
    public static func hash(_ text: String) -> UInt64 { hash(text.utf8) }
}
