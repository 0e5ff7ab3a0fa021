import Foundation

/// The six kinds of analysis.
public enum AnalysisType: String, Sendable, Hashable, Codable, CaseIterable {
    /// Key timeline; beats, bars and tempo; sections; pace; instrument activity; EBU R128 loudness
    /// (the report members of the same names).
    case key, rhythm, structure, pace, instrumentActivity, loudness

    /// The analyses this version implements (those with a stage in ``AnalysisRegistry``).
    public static let available: Set<AnalysisType> = Set(AnalysisRegistry.stages.map { $0.type })

    /// Whether this version implements the analysis.
    public var isAvailable: Bool { Self.available.contains(self) }
}
