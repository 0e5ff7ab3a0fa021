import Foundation

/// The key timeline of a piece.
public struct KeyResult: Sendable, Codable {
    /// The tonic of a key, in the 17 spellings of the report contract.
    public enum Tonic: String, Sendable, Codable, CaseIterable {
        /// C, C♯, D♭, D, D♯, E♭, E, F, F♯, G♭, G, G♯, A♭, A, A♯, B♭, B (`"cSharp"`, `"dFlat"` ... in reports).
        case c, cSharp, dFlat, d, dSharp, eFlat, e, f, fSharp, gFlat, g, gSharp, aFlat, a, aSharp, bFlat, b

        /// Pitch class, 0 = C ... 11 = B.
        public var pitchClass: Int {
            switch self {
            case .c: 0
            case .cSharp, .dFlat: 1
            case .d: 2
            case .dSharp, .eFlat: 3
            case .e: 4
            case .f: 5
            case .fSharp, .gFlat: 6
            case .g: 7
            case .gSharp, .aFlat: 8
            case .a: 9
            case .aSharp, .bFlat: 10
            case .b: 11
            }
        }
    }

    /// Major or minor.
    public enum Mode: String, Sendable, Codable {
        /// The major or the minor mode.
        case major, minor
    }

    /// A key: tonic and mode.
    public struct KeySignature: Sendable, Codable, Hashable {
        /// The tonic, spelled as the key signature with fewer accidentals spells it.
        public var tonic: Tonic
        /// The mode.
        public var mode: Mode
        /// Creates a key signature.
        public init(tonic: Tonic, mode: Mode) {
            self.tonic = tonic
            self.mode = mode
        }
    }

    /// Contiguous ranges covering the music, each with its key.
    public var ranges: [MusicUnderstandingSession.RangedValue<KeySignature>]
    /// How clearly the whole input is in its global key (the key of the longest range), 0 … 1:
    /// the key strength of ``KeyAnalyzer`` (README, "Key"). Extra field; `nil` when no key
    /// was found.
    public var confidence: Double?
    /// The key strength of each range's own material, one value per entry of ``ranges``, 0 … 1.
    /// Extra field; `nil` when no key was found.
    public var rangeConfidences: [Double]?

    /// Creates a key result.
    public init(
        ranges: [MusicUnderstandingSession.RangedValue<KeySignature>],
        confidence: Double? = nil, rangeConfidences: [Double]? = nil
    ) {
        self.ranges = ranges
        self.confidence = confidence
        self.rangeConfidences = rangeConfidences
    }

    enum CodingKeys: String, CodingKey { case ranges, confidence, rangeConfidences }

    /// Writes the optional confidences (rounded to 0.001) and the ranges in key order.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(confidence.map(ReportRounding.level), forKey: .confidence)
        try c.encodeIfPresent(rangeConfidences?.map(ReportRounding.level), forKey: .rangeConfidences)
        try c.encode(ranges, forKey: .ranges)
    }
}
