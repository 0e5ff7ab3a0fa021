import Foundation

/// Beats, bars and tempo.
public struct RhythmResult: Sendable, Codable {
    /// Every beat time, seconds; none in silence or in an introduction or ending out of time
    /// (a free lead-in, a rubato coda), where the music has no pulse to tap.
    public var beats: [Double]
    /// Every downbeat (bar start) time, seconds.
    public var bars: [Double]
    /// Global tempo; `nil` when fewer than 2 beats were found.
    public var beatsPerMinute: Float?
    /// Beats per bar (meter numerator) chosen for the bar grid; `nil` without bars. Extra field.
    public var beatsPerBar: Int?
    /// The reported tempo and its octave alternatives (half and double), each with a confidence;
    /// the reported tempo first, confidences summing to 1. Extra field; `nil` without a tempo.
    ///
    /// A confidence is the periodicity evidence of the onsets alone (``TempoCandidate/confidence``);
    /// the reported tempo is chosen with more than that (which level's beats are the more salient,
    /// the window votes, the meter), so an alternative may carry the higher confidence.
    public var tempoCandidates: [TempoCandidate]?
    /// The local tempo over time, BPM, at every bar line (every fourth beat without bars); each
    /// value from the median beat interval of the ``RhythmAnalyzer/Configuration/TempoCurveSettings/tempoCurveWindowBeats``
    /// beats around it. Extra field; `nil` when the tempo is steady (no local tempo departs from
    /// ``beatsPerMinute`` by more than ``RhythmAnalyzer/Configuration/TempoCurveSettings/tempoCurveDrift``).
    public var tempoCurve: [MusicUnderstandingSession.TimedValue<Float>]?

    /// The beats and bars as tracked, through the passages out of time that ``beats`` and
    /// ``bars`` leave out; `nil` when none were left out. Not reported: the analyses that
    /// segment the music by beats and bars (key, structure, pace) read it, so a free introduction
    /// still has its steps.
    var analysisGrid: AnalysisGrid?

    /// Beats and bars as the rhythm chain tracked them.
    struct AnalysisGrid: Sendable {
        /// Every tracked beat time, seconds.
        var beats: [Double]
        /// Every tracked downbeat time, seconds.
        var bars: [Double]
    }

    /// The beats that segment the music for other analyses: the tracked ones.
    var gridBeats: [Double] { analysisGrid?.beats ?? beats }

    /// The bars that segment the music for other analyses: the tracked ones.
    var gridBars: [Double] { analysisGrid?.bars ?? bars }

    /// Creates a rhythm result.
    public init(
        beats: [Double], bars: [Double], beatsPerMinute: Float?, beatsPerBar: Int? = nil,
        tempoCandidates: [TempoCandidate]? = nil, tempoCurve: [MusicUnderstandingSession.TimedValue<Float>]? = nil
    ) {
        self.beats = beats
        self.bars = bars
        self.beatsPerMinute = beatsPerMinute
        self.beatsPerBar = beatsPerBar
        self.tempoCandidates = tempoCandidates
        self.tempoCurve = tempoCurve
    }

    enum CodingKeys: String, CodingKey { case beats, bars, beatsPerMinute, beatsPerBar, tempoCandidates, tempoCurve }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(bars.map(ReportRounding.time), forKey: .bars)
        try c.encode(beats.map(ReportRounding.time), forKey: .beats)
        try c.encodeIfPresent(beatsPerBar, forKey: .beatsPerBar)
        try c.encodeIfPresent(tempoCandidates, forKey: .tempoCandidates)
        try c.encodeIfPresent(tempoCurve, forKey: .tempoCurve)  // TimedValue rounds time and value itself
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
    /// Share of the candidates' summed periodicity scores, 0...1: how periodic the onsets are at
    /// this tempo, not how likely a listener is to tap it.
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
