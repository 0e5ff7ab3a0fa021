import Foundation

/// The beat-synchronous cues of the downbeat step: the onset cues at the beats, their bar-length
/// periodicity, the backbeat test, the beat periods elapsed between beats and the robust
/// standardisation every cue goes through (see ``DownbeatTracker``).
extension DownbeatTracker {
    /// The onset cues at the beats, robustly standardised over the piece: the low-band and
    /// high-band onsets and the broadband accent (the largest value within 2 frames of each beat),
    /// the dynamic stress (mean log energy from a beat to the next), and which beats follow a rest.
    struct BeatCues: Sendable {
        /// Low-band onsets; never positive after a rest.
        var low: [Double]
        /// High-band onsets.
        var high: [Double]
        /// Broadband onsets; never positive after a rest.
        var accent: [Double]
        /// Dynamic stress.
        var loudness: [Double]
        /// Whether each beat follows a rest (a beat whose stress is at most −``RhythmAnalyzer/Configuration/DownbeatSettings/restThreshold``).
        var afterRest: [Bool]
    }

    /// The onset cues at `beatFrames` (see ``BeatCues``).
    func beatCues(beatFrames: [Int], onset: OnsetFeatures) -> BeatCues {
        let k = beatFrames.count
        var low = [Double](repeating: 0, count: k)
        var high = [Double](repeating: 0, count: k)
        var accent = [Double](repeating: 0, count: k)
        var loudness = [Double](repeating: 0, count: k)
        for (i, f) in beatFrames.enumerated() {
            low[i] = Double(PeakPicking.windowMaximum(onset.lowStrength, around: f, radius: 2))
            high[i] = Double(PeakPicking.windowMaximum(onset.highStrength, around: f, radius: 2))
            accent[i] = Double(PeakPicking.windowMaximum(onset.strength, around: f, radius: 2))
            // Dynamic stress of the beat: mean log energy from this beat to the next.
            let end = i + 1 < k ? beatFrames[i + 1] : f + (i > 0 ? f - beatFrames[i - 1] : 1)
            let lo = max(0, f), hi = min(onset.energy.count, max(lo + 1, end))
            if lo < hi {
                var sum: Float = 0
                for j in lo..<hi { sum += onset.energy[j] }
                loudness[i] = Double(sum) / Double(hi - lo)
            }
        }
        var zl = robustStandardised(low), za = robustStandardised(accent)
        let ze = robustStandardised(loudness)
        // After a rest (a beat whose loudness is an outlier below the piece's median) the
        // onset-based cues are inflated: the whitening memory has decayed, and the chroma
        // change is measured against silence. Phrases after a breath also often begin with an
        // anacrusis (grouping out of phase with the metre, Lerdahl & Jackendoff 1983 §2.3), so
        // there these cues may only count against a bar line, never for one.
        let rest = -abs(configuration.downbeats.restThreshold)
        let afterRest = (0..<k).map { $0 > 0 && ze[$0 - 1] <= rest }
        for i in 0..<k where afterRest[i] {
            zl[i] = min(zl[i], 0); za[i] = min(za[i], 0)
        }
        return BeatCues(low: zl, high: robustStandardised(high), accent: za, loudness: ze, afterRest: afterRest)
    }

    /// How strongly the low-band and high-band onsets alternate against each other from beat to
    /// beat: the Pearson correlation, over the beats, of each cue's departure from the mean of its
    /// two neighbours (`x[i] − (x[i−1] + x[i+1]) / 2`), in `-1 ... 1`; 0 with fewer than 5 beats.
    ///
    /// In a rock or pop groove the bass drum falls on beats 1 and 3 and the snare on 2 and 4 (the
    /// backbeat), so the two alternate in opposite phase; Goto (2001, "An audio-based real-time
    /// beat tracking system for music with or without drum-sounds", JNMR 30(2), sec. 4) reads the
    /// strong beats from exactly this pattern. There the broadband accents are the snare's and mark
    /// the weak beats, so they speak against the bar line rather than for it. Where the bass and
    /// the high partials rise and fall together (a chorale's stressed chords, a waltz's "oom") the
    /// accents do mark the bar. Phase-free: it does not need to know which beat is the first.
    func backbeatCorrelation(low: [Double], high: [Double]) -> Double {
        let k = min(low.count, high.count)
        guard k >= 5 else { return 0 }
        /// Each value's departure from the mean of its two neighbours.
        func alternation(_ x: [Double]) -> [Double] {
            (1..<(k - 1)).map { (i: Int) -> Double in
                let neighbours: Double = 0.5 * (x[i - 1] + x[i + 1])
                return x[i] - neighbours
            }
        }
        return Smoothing.pearson(alternation(low), alternation(high))
    }

    /// The bar-length periodicity of the beat cues for each meter in `meters`: the mean, over the
    /// low-band, high-band, accent and stress cues and over the meter's lags, of the correlation
    /// between each beat's value and the value a lag later. The lags are the bar (`meter` beats)
    /// and, in an even meter of 4 or more, the half bar, itself a metrical level there (the
    /// secondary accent of ``metricalWeight(position:meter:)``). Patterns repeat from bar to bar,
    /// so the cues recur at the bar's length and, in duple time, at its half; that recurrence of
    /// beat-segment descriptors at lags of 2 and 4 against 3 beats is what decides duple against
    /// triple meter in Gouyon & Herrera 2003 ("Determination of the meter of musical audio
    /// signals: seeking recurrences in beat segment descriptors", AES 114th Convention). Every
    /// lag is measured on the same number of pairs (the beats but the last longest lag's), since
    /// a correlation over fewer pairs is biased differently; empty when there are fewer than
    /// four of the longest bars' worth of pairs, as in a clip of a few seconds.
    func meterPeriodicity(_ cues: BeatCues, meters: [Int]) -> [Int: Double] {
        func lags(_ meter: Int) -> [Int] { meter >= 4 && meter % 2 == 0 ? [meter / 2, meter] : [meter] }
        let valid = meters.filter { $0 >= 1 }
        guard let longest = valid.max() else { return [:] }
        let pairs = cues.low.count - longest
        guard pairs >= 4 * longest else { return [:] }
        let series = [cues.low, cues.high, cues.accent, cues.loudness].filter { $0.count == cues.low.count }
        guard !series.isEmpty else { return [:] }
        var out: [Int: Double] = [:]
        for meter in valid {
            var sum = 0.0, count = 0
            for lag in lags(meter) {
                for x in series {
                    // `pearson` reads the first `pairs` values of `x`, as many as the lagged copy has.
                    sum += Smoothing.pearson(x, x[lag..<(lag + pairs)])
                    count += 1
                }
            }
            out[meter] = sum / Double(count)
        }
        return out
    }

    /// The beat periods elapsed from each beat of `frames` to the next, one per beat after the
    /// first: 1 for an interval shorter than 1.5 local periods, else the interval in local periods,
    /// rounded. The local period is the median of the nine intervals around (fewer at the ends).
    ///
    /// The beat tracker leaves no beats in a rest or a held fermata where nothing sounds
    /// (``RhythmAnalyzer/trackBeats(around:activation:curve:silence:impulsiveShare:)``), but the metre goes
    /// on through it: the bar pointer of Krebs, Böck & Widmer (2015, "An efficient state-space
    /// model for joint tempo and meter tracking", ISMIR, sec. 2) advances with time, not with
    /// detected beats. Counting the skipped beats keeps the bar position across the gap, where
    /// counting only the detected ones would make the bars after it a beat or two off, or cost
    /// the decoding a jump.
    static func periodsElapsed(_ frames: [Int]) -> [Int] {
        guard frames.count >= 3 else { return [Int](repeating: 1, count: max(0, frames.count - 1)) }
        let intervals = zip(frames, frames.dropFirst()).map { Double($1 - $0) }
        return intervals.indices.map { i in
            let window = intervals[max(0, i - 4)...min(intervals.count - 1, i + 4)]
            guard let local = Smoothing.median(window), local > 0, intervals[i] >= 1.5 * local else { return 1 }
            return max(1, Int((intervals[i] / local).rounded()))
        }
    }

    /// Robust standardisation of one cue over the piece: `(x - median) / (1.4826 · MAD)`,
    /// clipped to ±`salienceClip` (Hampel's median/MAD scale estimate, Huber 1981 §5; Rousseeuw
    /// & Croux 1993). The first onset after silence is exaggerated by the adaptive whitening
    /// and a fermata or final chord can be an extreme outlier; with a mean/σ normalisation such
    /// a single beat would decide the bar phase of the whole piece, with this one it is one
    /// bounded vote among many.
    func robustStandardised(_ v: [Double]) -> [Double] {
        guard let m = Smoothing.midpointMedian(v) else { return v }
        let deviations = v.map { abs($0 - m) }
        var scale = 1.4826 * (Smoothing.midpointMedian(deviations) ?? 0)
        // More than half the beats on the median (e.g. no low-band onset on most beats): the
        // MAD is zero, so fall back to the mean absolute deviation (scaled to σ for a normal
        // distribution by √(π/2)) rather than discard the cue.
        if !(scale > 1e-12) { scale = 1.2533 * deviations.reduce(0, +) / Double(deviations.count) }
        let c = max(0, configuration.downbeats.salienceClip)
        guard scale > 1e-12, scale.isFinite else { return v.map { _ in 0 } }
        return v.map { min(c, max(-c, ($0 - m) / scale)) }
    }
}
