import Foundation

/// Three nested levels of structure, coarse to fine.
public struct StructureResult: Sendable, Codable {
    /// Intro/verse/chorus/bridge-scale sections.
    public var sections: [TimeRange]
    /// Segments within sections.
    public var segments: [TimeRange]
    /// Phrases of a few bars.
    public var phrases: [TimeRange]
    /// A repetition label per section ("A", "B", "A", ...; the same letter = the same
    /// material). Extra field; `nil` when absent.
    public var sectionLabels: [String]?
    /// A guess of each section's role: `intro`, `verse`, `chorus`, `bridge`, `outro` or
    /// `other`; `silence` for the silence before the music starts and after it stops. Extra
    /// field; `nil` when absent.
    public var sectionFunctions: [String]?

    /// Creates a structure result.
    public init(
        sections: [TimeRange], segments: [TimeRange], phrases: [TimeRange],
        sectionLabels: [String]? = nil, sectionFunctions: [String]? = nil
    ) {
        self.sections = sections
        self.segments = segments
        self.phrases = phrases
        self.sectionLabels = sectionLabels
        self.sectionFunctions = sectionFunctions
    }

    enum CodingKeys: String, CodingKey { case sections, segments, phrases, sectionLabels, sectionFunctions }

    /// Writes the levels and the optional labels in key order (`phrases`, `sectionFunctions`,
    /// `sectionLabels`, `sections`, `segments`), the order of the output, so that a streaming
    /// encoder moves nothing.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(phrases, forKey: .phrases)
        try c.encodeIfPresent(sectionFunctions, forKey: .sectionFunctions)
        try c.encodeIfPresent(sectionLabels, forKey: .sectionLabels)
        try c.encode(sections, forKey: .sections)
        try c.encode(segments, forKey: .segments)
    }
}
