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
    /// `other`; `silence` for the silence before the music starts and after it stops (the raw
    /// values of ``SectionFunction``; ``function(ofSection:)`` reads one). Extra field; `nil`
    /// when absent.
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

    /// The role of section `index`, or `nil` when the result has no functions, the index is out
    /// of range or the name is not one of ``SectionFunction`` (a report written by a newer
    /// version).
    public func function(ofSection index: Int) -> SectionFunction? {
        guard let functions = sectionFunctions, functions.indices.contains(index) else { return nil }
        return SectionFunction(rawValue: functions[index])
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

/// The role of a section in a song (``StructureResult/sectionFunctions`` holds the raw values; the
/// report schema lists the same names).
public enum SectionFunction: String, Sendable, Hashable, CaseIterable, Codable {
    /// The opening, before the first verse or chorus.
    case intro
    /// Repeated material that is not the most repeated (the verse).
    case verse
    /// The most repeated material.
    case chorus
    /// Material heard once, in the second half.
    case bridge
    /// The ending, after the last verse or chorus.
    case outro
    /// Anything else.
    case other
    /// The silence before the music starts or after it stops.
    case silence
}
