// STUB: the rhythm helper replaces this.

/// Beat tracking, tempo and downbeats from the shared onset features.
public struct RhythmAnalyzer: Sendable {
    /// Creates the analyzer.
    public init() {}

    /// Analyses the features of one input.
    public func analyze(_ features: SharedFeatures) -> RhythmResult {
        RhythmResult(beats: [], bars: [], beatsPerMinute: nil)
    }
}
