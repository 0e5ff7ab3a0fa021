import Foundation

/// ITU-R BS.1770-4 / EBU R128 loudness.
public struct LoudnessResult: Sendable, Codable {
    /// Integrated (gated) loudness in LUFS, timed at the end of the measured audio.
    public var integrated: MusicUnderstandingSession.TimedValue<Float>
    /// Momentary loudness (400 ms window) every 100 ms, `time` = window end; LUFS.
    public var momentary: [MusicUnderstandingSession.TimedValue<Float>]
    /// Short-term loudness (3 s window) every 100 ms, `time` = window end; LUFS.
    public var shortTerm: [MusicUnderstandingSession.TimedValue<Float>]
    /// Sample peak in dBFS, with the time it occurs.
    public var peak: MusicUnderstandingSession.TimedValue<Float>
    /// Loudness range in LU (EBU Tech 3342).
    public var loudnessRange: Float
    /// True peak in dBTP (ITU-R BS.1770-4 Annex 2).
    public var truePeak: Float

    /// Creates a loudness result.
    public init(
        integrated: MusicUnderstandingSession.TimedValue<Float>,
        momentary: [MusicUnderstandingSession.TimedValue<Float>],
        shortTerm: [MusicUnderstandingSession.TimedValue<Float>],
        peak: MusicUnderstandingSession.TimedValue<Float>,
        loudnessRange: Float,
        truePeak: Float
    ) {
        self.integrated = integrated
        self.momentary = momentary
        self.shortTerm = shortTerm
        self.peak = peak
        self.loudnessRange = loudnessRange
        self.truePeak = truePeak
    }

    enum CodingKeys: String, CodingKey { case integrated, momentary, shortTerm, peak, loudnessRange, truePeak }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        integrated = try c.decode(MusicUnderstandingSession.TimedValue<Float>.self, forKey: .integrated)
        momentary = try c.decode([MusicUnderstandingSession.TimedValue<Float>].self, forKey: .momentary)
        shortTerm = try c.decode([MusicUnderstandingSession.TimedValue<Float>].self, forKey: .shortTerm)
        peak = try c.decode(MusicUnderstandingSession.TimedValue<Float>.self, forKey: .peak)
        // `null` (what a non-finite value is written as) reads back as minus infinity, as in
        // `TimedValue`; a missing field keeps the old defaults.
        if !c.contains(.loudnessRange) { loudnessRange = 0 } else { loudnessRange = try c.decodeIfPresent(Float.self, forKey: .loudnessRange) ?? -.infinity }
        truePeak = try c.decodeIfPresent(Float.self, forKey: .truePeak) ?? -.infinity
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(integrated, forKey: .integrated)
        try NumericNull.encode(loudnessRange, forKey: .loudnessRange, in: &c)
        try c.encode(momentary, forKey: .momentary)
        try c.encode(peak, forKey: .peak)
        try c.encode(shortTerm, forKey: .shortTerm)
        try NumericNull.encode(truePeak, forKey: .truePeak, in: &c)
    }
}
