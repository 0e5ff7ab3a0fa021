import Foundation

/// The few values of a report that a table, a tag or a page heading shows: duration, tempo,
/// meter, main key, integrated loudness, loudness range and true peak — or the error.
public struct ReportHeadline: Sendable, Hashable {
    /// The input as given.
    public var path: String
    /// Seconds; `nil` when unknown.
    public var duration: Double?
    /// Global tempo; `nil` without a beat grid (or when rhythm was not analysed).
    public var beatsPerMinute: Double?
    /// Beats per bar; `nil` without bars.
    public var beatsPerBar: Int?
    /// The key that holds longest (``KeyResult/mainKey``); `nil` without a key.
    public var key: KeyResult.KeySignature?
    /// Integrated loudness in LUFS; `nil` when loudness was not analysed, minus infinity for silence.
    public var integratedLoudness: Double?
    /// Loudness range in LU.
    public var loudnessRange: Double?
    /// True peak in dBTP.
    public var truePeak: Double?
    /// Sample peak in dBFS.
    public var samplePeak: Double?
    /// The error record's code and message; `nil` for a report.
    public var error: Report.ErrorInfo?
    /// The report's warning (damaged input), if any.
    public var warning: String?

    /// The headline of `report`.
    public init(_ report: Report) {
        path = report.source.path
        duration = report.source.duration
        error = report.error
        warning = report.warning
        let result = report.result
        if let bpm = result?.rhythm?.beatsPerMinute, bpm.isFinite, bpm > 0 { beatsPerMinute = Double(bpm) }
        beatsPerBar = result?.rhythm?.beatsPerBar
        key = result?.key?.mainKey
        if let loudness = result?.loudness {
            integratedLoudness = Double(loudness.integrated.value)
            loudnessRange = Double(loudness.loudnessRange)
            truePeak = Double(loudness.truePeak)
            samplePeak = Double(loudness.peak.value)
        }
    }
}
