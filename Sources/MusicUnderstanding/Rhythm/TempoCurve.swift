import Foundation

/// The tempo-curve step of the rhythm chain: the local tempo over time from the placed beats,
/// for music whose tempo drifts (rubato, accelerando, a live band that speeds up), as in the
/// tempo curves of expressive performance (S. Dixon, "Automatic extraction of tempo and beat from
/// expressive performances", JNMR 30(1), 2001, sec. 5: tempo from inter-beat intervals). Each
/// value is the median interval of a window of beats, so one misplaced beat does not move it.
extension RhythmAnalyzer {
    /// The local tempo of `beats` at every bar line of `bars` (every fourth beat when there are
    /// no bars), BPM; `nil` unless two successive values depart from `beatsPerMinute` by more
    /// than ``Configuration/TempoCurveSettings/tempoCurveDrift`` (one may be a passage the beats lost), or with fewer
    /// beats than one window.
    func tempoCurve(beats: [Double], bars: [Double], beatsPerMinute: Float?) -> [MusicUnderstandingSession.TimedValue<Float>]? {
        let window = max(2, configuration.tempoCurve.tempoCurveWindowBeats)
        guard let bpm = beatsPerMinute, bpm.isFinite, bpm > 0, beats.count > window else { return nil }
        let intervals = zip(beats.dropFirst(), beats).map { $0 - $1 }
        // The beat indices the curve is read at: the bar lines, or every fourth beat.
        let barSet = Set(bars)
        var points = beats.indices.filter { barSet.contains(beats[$0]) }
        if points.count < 2 { points = Array(stride(from: 0, to: beats.count, by: 4)) }
        var curve: [MusicUnderstandingSession.TimedValue<Float>] = []
        curve.reserveCapacity(points.count)
        var drifts = configuration.tempoCurve.tempoCurveDrift <= 0
        var departing = 0  // successive values beyond the drift
        for i in points {
            // The window of `window` intervals centred on beat i, shifted inside at the ends.
            let lo = min(max(0, i - window / 2), intervals.count - window)
            guard lo >= 0, let median = Smoothing.median(intervals[lo..<(lo + window)]), median > 0 else { continue }
            let local = Float(60 / median)
            departing = abs(Double(local / bpm) - 1) > configuration.tempoCurve.tempoCurveDrift ? departing + 1 : 0
            if departing >= 2 { drifts = true }
            curve.append(.init(time: beats[i], value: local))
        }
        return drifts && !curve.isEmpty ? curve : nil
    }
}
