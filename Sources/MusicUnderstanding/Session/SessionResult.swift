import Foundation

/// The results of one analysis run; fields that were not requested are `nil`.
public struct SessionResult: Sendable, Codable {
    /// Key timeline.
    public var key: KeyResult?
    /// Beats, bars and tempo.
    public var rhythm: RhythmResult?
    /// Sections, segments and phrases.
    public var structure: StructureResult?
    /// Pace over time.
    public var pace: PaceResult?
    /// Instrument activity.
    public var instrumentActivity: InstrumentActivityResult?
    /// Loudness.
    public var loudness: LoudnessResult?
    /// What was analysed: path, exact duration, native rate, channels and codec. Extra field,
    /// set by `analyze`.
    public var source: SourceInfo?
    /// Set when the input was damaged (e.g. truncated) and only what could be decoded was
    /// analysed. Extra field, set by `analyze`.
    public var warning: String?

    /// Creates an empty result.
    public init(
        key: KeyResult? = nil, rhythm: RhythmResult? = nil, structure: StructureResult? = nil,
        pace: PaceResult? = nil, instrumentActivity: InstrumentActivityResult? = nil, loudness: LoudnessResult? = nil,
        source: SourceInfo? = nil, warning: String? = nil
    ) {
        self.key = key
        self.rhythm = rhythm
        self.structure = structure
        self.pace = pace
        self.instrumentActivity = instrumentActivity
        self.loudness = loudness
        self.source = source
        self.warning = warning
    }
}
