// STUB: the key helper replaces this.

/// Key timeline from the shared chroma features.
public struct KeyAnalyzer: Sendable {
    /// Creates the analyzer.
    public init() {}

    /// Analyses the features of one input; `rhythm`, when given, lets the key follow the beat grid.
    public func analyze(_ features: SharedFeatures, rhythm: RhythmResult?) -> KeyResult {
        KeyResult(ranges: [])
    }
}
