import Foundation

/// A span of time in seconds: `{"start": s, "duration": d}` in reports.
public struct TimeRange: Sendable, Hashable, Codable {
    /// Start of the range, seconds from the start of the audio.
    public var start: Double
    /// Length of the range in seconds.
    public var duration: Double
    /// End of the range (`start + duration`).
    public var end: Double { start + duration }

    /// Creates a range from its start and duration.
    public init(start: Double, duration: Double) {
        self.start = start
        self.duration = duration
    }

    /// Creates a range from its start and end.
    public init(start: Double, end: Double) {
        self.start = start
        self.duration = max(0, end - start)
    }

    /// Written as the rounded start and the difference of the rounded end and start, so that
    /// ranges that meet still meet in the report (`start + duration` of one is the next `start`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        let roundedDuration = ReportRounding.time(ReportRounding.time(end) - ReportRounding.time(start))
        try c.encode(roundedDuration, forKey: .duration)
        try c.encode(ReportRounding.time(start), forKey: .start)
    }
}

/// Rounding applied when encoding reports, so output is compact and deterministic.
enum ReportRounding {
    /// Times to 0.1 ms.
    /// (`+ 0` turns a rounded minus zero into zero, so that `-0` is never written.)
    static func time(_ t: Double) -> Double { (t * 10_000).rounded() / 10_000 + 0 }
    /// Levels (LUFS, dB, LU) to 0.001.
    static func level(_ v: Double) -> Double { (v * 1000).rounded() / 1000 + 0 }
}

extension MusicUnderstandingSession {
    /// A value at a point in time: `{"time": s, "value": V}`.
    ///
    /// A `Float` or `Double` value that is not finite (the loudness of digital silence is
    /// minus infinity) is written as JSON `null` and read back as minus infinity.
    public struct TimedValue<Value: Sendable & Codable>: Sendable, Codable {
        /// Seconds from the start of the audio.
        public var time: Double
        /// The value at `time`.
        public var value: Value

        /// Creates a timed value.
        public init(time: Double, value: Value) {
            self.time = time
            self.value = value
        }

        enum CodingKeys: String, CodingKey { case time, value }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            time = try c.decode(Double.self, forKey: .time)
            if try c.decodeNil(forKey: .value), let v = NumericNull.negativeInfinity(as: Value.self) {
                value = v
            } else {
                value = try c.decode(Value.self, forKey: .value)
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(ReportRounding.time(time), forKey: .time)
            try NumericNull.encode(value, forKey: .value, in: &c)
        }
    }

    /// A value over a range of time: `{"range": {...}, "value": V}`.
    public struct RangedValue<Value: Sendable & Codable>: Sendable, Codable {
        /// The time span the value holds for.
        public var range: TimeRange
        /// The value over `range`.
        public var value: Value

        /// Creates a ranged value.
        public init(range: TimeRange, value: Value) {
            self.range = range
            self.value = value
        }

        enum CodingKeys: String, CodingKey { case range, value }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            range = try c.decode(TimeRange.self, forKey: .range)
            value = try c.decode(Value.self, forKey: .value)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(range, forKey: .range)
            try NumericNull.encode(value, forKey: .value, in: &c)
        }
    }
}

/// Encodes non-finite floating-point values as JSON `null` (the contract's "minus infinity").
enum NumericNull {
    static func encode<V: Encodable, K: CodingKey>(_ value: V, forKey key: K, in c: inout KeyedEncodingContainer<K>) throws {
        if let f = value as? Float {
            if f.isFinite { try c.encode(ReportRounding.level(Double(f)), forKey: key) } else { try c.encodeNil(forKey: key) }
        } else if let d = value as? Double {
            if d.isFinite { try c.encode(d, forKey: key) } else { try c.encodeNil(forKey: key) }
        } else {
            try c.encode(value, forKey: key)
        }
    }

    static func negativeInfinity<V>(as type: V.Type) -> V? {
        if V.self == Float.self { return (-Float.infinity) as? V }
        if V.self == Double.self { return (-Double.infinity) as? V }
        return nil
    }
}

/// The key timeline of a piece.
public struct KeyResult: Sendable, Codable {
    /// The tonic of a key, in the 17 spellings of the report contract.
    public enum Tonic: String, Sendable, Codable, CaseIterable {
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
    public init(ranges: [MusicUnderstandingSession.RangedValue<KeySignature>],
                confidence: Double? = nil, rangeConfidences: [Double]? = nil) {
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

/// Beats, bars and tempo.
public struct RhythmResult: Sendable, Codable {
    /// Every beat time, seconds.
    public var beats: [Double]
    /// Every downbeat (bar start) time, seconds.
    public var bars: [Double]
    /// Global tempo; `nil` when fewer than 2 beats were found.
    public var beatsPerMinute: Float?
    /// Beats per bar (meter numerator) chosen for the bar grid; `nil` without bars. Extra field.
    public var beatsPerBar: Int?
    /// The reported tempo and its octave alternatives (half and double), each with a confidence;
    /// the reported tempo first, confidences summing to 1. Extra field; `nil` without a tempo.
    public var tempoCandidates: [TempoCandidate]?

    /// Creates a rhythm result.
    public init(beats: [Double], bars: [Double], beatsPerMinute: Float?, beatsPerBar: Int? = nil,
                tempoCandidates: [TempoCandidate]? = nil) {
        self.beats = beats
        self.bars = bars
        self.beatsPerMinute = beatsPerMinute
        self.beatsPerBar = beatsPerBar
        self.tempoCandidates = tempoCandidates
    }

    enum CodingKeys: String, CodingKey { case beats, bars, beatsPerMinute, beatsPerBar, tempoCandidates }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(bars.map(ReportRounding.time), forKey: .bars)
        try c.encode(beats.map(ReportRounding.time), forKey: .beats)
        try c.encodeIfPresent(beatsPerBar, forKey: .beatsPerBar)
        try c.encodeIfPresent(tempoCandidates, forKey: .tempoCandidates)
        if let bpm = beatsPerMinute, bpm.isFinite, bpm > 0 {
            try c.encode(ReportRounding.level(Double(bpm)), forKey: .beatsPerMinute)
        } else {
            try c.encodeNil(forKey: .beatsPerMinute)
        }
    }
}

/// One metrical level a listener might tap, with the analysis's confidence in it.
public struct TempoCandidate: Sendable, Codable, Hashable {
    /// The tempo of this level, BPM.
    public var beatsPerMinute: Double
    /// Share of the candidates' summed periodicity scores, 0...1.
    public var confidence: Double

    /// Creates a candidate.
    public init(beatsPerMinute: Double, confidence: Double) {
        self.beatsPerMinute = beatsPerMinute
        self.confidence = confidence
    }

    enum CodingKeys: String, CodingKey { case beatsPerMinute, confidence }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(ReportRounding.level(beatsPerMinute), forKey: .beatsPerMinute)
        try c.encode(ReportRounding.level(confidence), forKey: .confidence)
    }
}

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
    /// `other`. Extra field; `nil` when absent.
    public var sectionFunctions: [String]?

    /// Creates a structure result.
    public init(sections: [TimeRange], segments: [TimeRange], phrases: [TimeRange],
                sectionLabels: [String]? = nil, sectionFunctions: [String]? = nil) {
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

/// How fast the music feels over time, in perceived events per minute.
public struct PaceResult: Sendable, Codable {
    /// Pace over time.
    public var ranges: [MusicUnderstandingSession.RangedValue<Double>]

    /// Creates a pace result.
    public init(ranges: [MusicUnderstandingSession.RangedValue<Double>]) {
        self.ranges = ranges
    }
}

/// Which instruments play when.
public struct InstrumentActivityResult: Sendable, Codable {
    /// The instrument families reported.
    public enum Instrument: String, Sendable, Codable, CaseIterable, CodingKeyRepresentable {
        case vocal, drum, bass, other
    }

    /// Where each instrument is present.
    public var ranges: [Instrument: [TimeRange]]
    /// Intensity 0...1 of each instrument over time.
    public var activity: [Instrument: [MusicUnderstandingSession.TimedValue<Float>]]

    /// Creates an instrument activity result.
    public init(ranges: [Instrument: [TimeRange]], activity: [Instrument: [MusicUnderstandingSession.TimedValue<Float>]]) {
        self.ranges = ranges
        self.activity = activity
    }

    enum CodingKeys: String, CodingKey { case ranges, activity }

    /// An instrument's name as a key of the `ranges` and `activity` maps.
    struct InstrumentKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ instrument: Instrument) { stringValue = instrument.rawValue }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The activity value the contract allows (`0...1`, never `null`): values above 1 are 1,
    /// values below 0 (and minus infinity) are 0, and NaN, an undefined intensity, is 0.
    static func contractActivity(_ value: Float) -> Float {
        value.isNaN ? 0 : min(max(value, 0), 1)
    }

    /// Reads the maps back; an instrument missing from a map is absent, unknown instruments
    /// (extra fields) are ignored.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let rangesByName = try c.nestedContainer(keyedBy: InstrumentKey.self, forKey: .ranges)
        let activityByName = try c.nestedContainer(keyedBy: InstrumentKey.self, forKey: .activity)
        ranges = [:]
        activity = [:]
        for instrument in Instrument.allCases {
            let key = InstrumentKey(instrument)
            ranges[instrument] = try rangesByName.decodeIfPresent([TimeRange].self, forKey: key)
            activity[instrument] = try activityByName.decodeIfPresent([MusicUnderstandingSession.TimedValue<Float>].self, forKey: key)
        }
    }

    /// Writes both maps with all four instruments, as the contract requires (an instrument
    /// absent from a map is written as `[]`), and each activity value as
    /// ``contractActivity(_:)`` makes it, rounded like every level to 0.001.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(InstrumentMap(values: activity.mapValues { ActivityItems.activity($0) }), forKey: .activity)
        try c.encode(InstrumentMap(values: ranges.mapValues { ActivityItems.ranges($0) }), forKey: .ranges)
    }

    /// One of the two maps, keyed by instrument name, every instrument present.
    private struct InstrumentMap: Encodable {
        var values: [Instrument: ActivityItems]
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: InstrumentKey.self)
            for instrument in Instrument.allCases.sorted(by: { $0.rawValue < $1.rawValue }) {
                try c.encode(values[instrument] ?? .ranges([]), forKey: InstrumentKey(instrument))
            }
        }
    }

    /// One instrument's entry: its ranges, or its activity curve clamped element by element.
    private enum ActivityItems: Encodable {
        case ranges([TimeRange])
        case activity([MusicUnderstandingSession.TimedValue<Float>])
        func encode(to encoder: any Encoder) throws {
            var c = encoder.unkeyedContainer()
            switch self {
            case .ranges(let ranges):
                for range in ranges { try c.encode(range) }
            case .activity(let curve):
                for point in curve {
                    try c.encode(MusicUnderstandingSession.TimedValue(time: point.time, value: InstrumentActivityResult.contractActivity(point.value)))
                }
            }
        }
    }
}

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

/// The six kinds of analysis.
public enum AnalysisType: String, Sendable, Hashable, Codable, CaseIterable {
    case key, rhythm, structure, pace, instrumentActivity, loudness

    /// The analyses this version implements (those with a stage in ``AnalysisRegistry``).
    public static let available: Set<AnalysisType> = Set(AnalysisRegistry.stages.map { $0.type })

    /// Whether this version implements the analysis.
    public var isAvailable: Bool { Self.available.contains(self) }
}
