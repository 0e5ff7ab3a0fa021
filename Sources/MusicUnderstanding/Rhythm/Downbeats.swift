import Foundation

/// Meter and bar phase from beat-synchronous features.
///
/// Following Durand, Bello, David & Richard 2015/2017 ("Downbeat tracking with multiple
/// features and deep neural networks"), downbeats are found from several beat-synchronous
/// cues: harmonic change (chords tend to change at bar lines; Goto 2001, Papadopoulos & Peeters
/// 2011), low-frequency onsets (kick and bass on the first beat), accent (onset strength) and
/// dynamic stress (the loudness over the beat, which is larger when louder or longer notes and
/// fuller chords start on it: Lerdahl & Jackendoff 1983, metrical preference rules 4 "stress"
/// and 5 "length").
/// Each cue is standardised robustly (median and MAD, clipped) so that no single beat, such as
/// the first onset after silence or a final chord, decides the phase of a whole piece; after a
/// rest the onset and chord-change cues may only speak against a bar line, since phrases often
/// open with a pickup there.
/// The cues are combined into one downbeat salience per beat, which drives a Viterbi decoding
/// over a small bar-position state space (meter `M` ∈ `meters`, position `0..<M`), the
/// beat-level analogue of the bar pointer of Krebs, Böck & Widmer 2015/2016: positions advance
/// by one per beat, a rare jump re-phases the bar, and the meter is held for the whole piece
/// unless the evidence for a change is overwhelming; each meter is weighed by how much the
/// onset cues recur one bar later (``meterPeriodicity(_:meters:)``). The salience counts fully
/// on the first beat of a bar and partly on the middle beat of an even bar (the metrical grid,
/// `metricalWeight`).
struct DownbeatTracker: Sendable {
    /// Settings.
    var configuration: RhythmAnalyzer.Configuration

    /// Result of the decoding.
    struct Result: Sendable {
        /// Indices into the beat array of the downbeats.
        var downbeatIndices: [Int]
        /// Beats per bar.
        var beatsPerBar: Int
        /// Log score of the decoded path divided by the number of beats: how strongly the cues
        /// support the bar grid found (compared between cue sets in ``RhythmAnalyzer/findBars(_:beats:onset:harmony:silence:)``).
        var scorePerBeat: Double = 0
    }

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

    /// Per-beat downbeat salience, one array for each span of the harmonic-change cue in
    /// `harmonicSpans` (beats compared on each side, ``RhythmAnalyzer/Configuration/DownbeatSettings/harmonicContextBeats``);
    /// every cue is robustly standardised over the piece.
    /// `cues` are the onset cues at the beats (``beatCues(beatFrames:onset:)``).
    func salience(beatFrames: [Int], onset: OnsetFeatures, harmony: FrameFeature?, harmonicSpans: [Int], cues: BeatCues) -> [[Double]] {
        let k = beatFrames.count
        guard k >= 2 else { return harmonicSpans.map { _ in [Double](repeating: 0, count: k) } }
        let n = onset.strength.count
        // Beat-synchronous chroma: mean profile between consecutive beats (the last beat spans
        // one more beat interval), by the shared segment aggregation.
        var segment = [[Double]](repeating: [Double](repeating: 0, count: 12), count: k)
        if let harmony, harmony.dimension == 12 {
            let fps = onset.frameRate
            var boundaries = beatFrames.map { Double($0) / fps }
            boundaries.append(Double(min(n, beatFrames[k - 1] + (beatFrames[k - 1] - beatFrames[k - 2]))) / fps)
            let perBeat = harmony.aggregated(between: boundaries, using: .mean)
            // Rows follow the boundaries actually used (sorted, distinct, within the feature).
            for (row, start) in perBeat.boundaries.dropLast().enumerated() {
                guard let i = boundaries.firstIndex(of: start), i < k else { continue }
                segment[i] = perBeat.vector(row).map(Double.init)
            }
        }
        func normalised(_ v: [Double]) -> [Double] {
            let s = v.reduce(0, +)
            return s > 0 ? v.map { $0 / s } : v
        }
        /// Harmonic change at every beat: the L1 distance between the normalised chroma of the
        /// `span` beats before it and of the `span` beats from it on.
        func harmonicChange(span: Int) -> [Double] {
            var harm = [Double](repeating: 0, count: k)
            for i in 1..<k {
                var before = [Double](repeating: 0, count: 12), after = before
                for j in max(0, i - span)..<i { for c in 0..<12 { before[c] += segment[j][c] } }
                for j in i..<min(k, i + span) { for c in 0..<12 { after[c] += segment[j][c] } }
                let p = normalised(before), q = normalised(after)
                for c in 0..<12 { harm[i] += abs(p[c] - q[c]) }
            }
            return harm
        }
        // A backbeat (snare on the beats between the kicks) puts the accents on the weak beats
        // (a threshold of -1 turns the test off).
        let threshold = configuration.downbeats.backbeatCorrelation
        let backbeat = threshold > -1 && backbeatCorrelation(low: cues.low, high: cues.high) <= threshold
        let accentWeight = backbeat ? 0 : configuration.downbeats.accentWeight
        return harmonicSpans.map { span in
            var zh = robustStandardised(harmonicChange(span: max(1, span)))
            for i in 0..<k where cues.afterRest[i] { zh[i] = min(zh[i], 0) }
            return (0..<k).map { i in
                configuration.downbeats.harmonicWeight * zh[i] + configuration.downbeats.lowOnsetWeight * cues.low[i]
                    + accentWeight * cues.accent[i] + configuration.downbeats.loudnessWeight * cues.loudness[i]
            }
        }
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

    /// Expected share of the downbeat accent at a bar position: the metrical grid of Lerdahl &
    /// Jackendoff 1983 (ch. 4), where the first beat is strong at every level and, in an even
    /// meter, the middle of the bar is strong at the half-bar level (the secondary accent on
    /// beat 3 of 4/4; Palmer & Krumhansl 1990 measured this hierarchy in listeners' ratings).
    /// With this, a hypothesis that puts the bar line a single beat off also has to place the
    /// half-bar accent on a weak beat, which the salience of that beat then contradicts.
    func metricalWeight(position: Int, meter: Int) -> Double {
        if position == 0 { return 1 }
        if meter % 2 == 0, meter >= 4, position == meter / 2 { return configuration.downbeats.halfBarWeight }
        return 0
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
                    sum += Smoothing.pearson(x, Array(x[lag..<(lag + pairs)]))
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
    /// (``RhythmAnalyzer/trackBeats(around:activation:curve:energy:silence:)``), but the metre goes
    /// on through it: the bar pointer of Krebs, Böck & Widmer (2015, "An efficient state-space
    /// model for joint tempo and meter tracking", ISMIR, sec. 2) advances with time, not with
    /// detected beats. Counting the skipped beats keeps the bar position across the gap, where
    /// counting only the detected ones would make the bars after it a beat or two off, or cost
    /// the decoding a jump.
    static func periodsElapsed(_ frames: [Int]) -> [Int] {
        guard frames.count >= 3 else { return [Int](repeating: 1, count: max(0, frames.count - 1)) }
        let intervals = zip(frames, frames.dropFirst()).map { Double($1 - $0) }
        return intervals.indices.map { i in
            let window = Array(intervals[max(0, i - 4)...min(intervals.count - 1, i + 4)])
            guard let local = Smoothing.median(window), local > 0, intervals[i] >= 1.5 * local else { return 1 }
            return max(1, Int((intervals[i] / local).rounded()))
        }
    }

    /// Decodes meter and downbeats from per-beat downbeat salience; `meterPeriodicity`
    /// (``meterPeriodicity(_:meters:)``) weighs each meter by
    /// ``RhythmAnalyzer/Configuration/DownbeatSettings/meterPeriodicityWeight`` per beat.
    /// `elapsed` holds the beat periods from each beat to the next (``periodsElapsed(_:)``): the
    /// bar position advances by that many from one beat to the next (by 1 where it is empty or
    /// shorter).
    func decode(_ salience: [Double], meterPeriodicity: [Int: Double] = [:], elapsed: [Int] = []) -> Result? {
        let k = salience.count
        let meters = Array(Set(configuration.downbeats.meters.filter { $0 >= 2 && $0 <= 16 })).sorted()  // back-pointers are bytes
        guard k >= 2, !meters.isEmpty else { return nil }
        // States: (meter index, position).
        var stateMeter: [Int] = [], statePos: [Int] = []
        for m in meters { for p in 0..<m { stateMeter.append(m); statePos.append(p) } }
        let s = stateMeter.count
        let logAdvance = log(1 - configuration.downbeats.barJumpProbability - configuration.downbeats.meterChangeProbability)
        let logJump = log(configuration.downbeats.barJumpProbability)
        let logMeterChange = log(configuration.downbeats.meterChangeProbability)
        var score = [Double](repeating: 0, count: s)
        var back = [UInt8](repeating: 0, count: k * s)
        var next = score
        let beta = configuration.downbeats.downbeatSharpness
        for i in 0..<k {
            if i > 0 {
                let step = i - 1 < elapsed.count ? max(1, elapsed[i - 1]) : 1
                for to in 0..<s {
                    var best = -Double.infinity, arg = 0
                    for from in 0..<s {
                        let t: Double
                        if stateMeter[from] == stateMeter[to] {
                            t =
                                (statePos[from] + step) % stateMeter[from] == statePos[to]
                                ? logAdvance : logJump - log(Double(max(1, stateMeter[to] - 1)))
                        } else {
                            t = statePos[to] == 0 ? logMeterChange : -.infinity
                        }
                        let v = score[from] + t
                        if v > best { best = v; arg = from }
                    }
                    next[to] = best
                    back[i * s + to] = UInt8(arg)
                }
                score = next
            }
            for st in 0..<s {
                score[st] += beta * salience[i] * metricalWeight(position: statePos[st], meter: stateMeter[st])
                // Meter prior per beat: duple and quadruple meters are the more common.
                if stateMeter[st] % 2 == 1 { score[st] -= configuration.downbeats.oddMeterPenalty }
                score[st] += configuration.downbeats.meterPeriodicityWeight * (meterPeriodicity[stateMeter[st]] ?? 0)
            }
        }
        var st = 0
        for x in 0..<s where score[x] > score[st] { st = x }
        var path = [Int](repeating: 0, count: k)
        for i in stride(from: k - 1, through: 0, by: -1) {
            path[i] = st
            if i > 0 { st = Int(back[i * s + st]) }
        }
        var downbeats: [Int] = []
        var counts: [Int: Int] = [:]
        for i in 0..<k {
            counts[stateMeter[path[i]], default: 0] += 1
            if statePos[path[i]] == 0 { downbeats.append(i) }
        }
        let meter = counts.max { $0.value < $1.value }?.key ?? meters[0]
        return Result(downbeatIndices: downbeats, beatsPerBar: meter, scorePerBeat: score[path[k - 1]] / Double(k))
    }

    /// Robust standardisation of one cue over the piece: `(x - median) / (1.4826 · MAD)`,
    /// clipped to ±`salienceClip` (Hampel's median/MAD scale estimate, Huber 1981 §5; Rousseeuw
    /// & Croux 1993). The first onset after silence is exaggerated by the adaptive whitening
    /// and a fermata or final chord can be an extreme outlier; with a mean/σ normalisation such
    /// a single beat would decide the bar phase of the whole piece, with this one it is one
    /// bounded vote among many.
    func robustStandardised(_ v: [Double]) -> [Double] {
        guard !v.isEmpty else { return v }
        func median(_ a: [Double]) -> Double {
            let s = a.sorted(), n = s.count
            return n % 2 == 1 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2])
        }
        let m = median(v)
        let deviations = v.map { abs($0 - m) }
        var scale = 1.4826 * median(deviations)
        // More than half the beats on the median (e.g. no low-band onset on most beats): the
        // MAD is zero, so fall back to the mean absolute deviation (scaled to σ for a normal
        // distribution by √(π/2)) rather than discard the cue.
        if !(scale > 1e-12) { scale = 1.2533 * deviations.reduce(0, +) / Double(deviations.count) }
        let c = max(0, configuration.downbeats.salienceClip)
        guard scale > 1e-12, scale.isFinite else { return v.map { _ in 0 } }
        return v.map { min(c, max(-c, ($0 - m) / scale)) }
    }
}
