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
        /// support the bar grid found (compared between cue sets in ``RhythmAnalyzer/findBars(_:beats:onset:harmony:silence:impulsiveShare:)``).
        var scorePerBeat: Double = 0
    }

    /// Per-beat downbeat salience, one array for each span of the harmonic-change cue in
    /// `harmonicSpans` (beats compared on each side, ``RhythmAnalyzer/Configuration/DownbeatSettings/harmonicContextBeats``);
    /// every cue is robustly standardised over the piece.
    /// `cues` are the onset cues at the beats (``beatCues(beatFrames:onset:)``); `impulsiveShare`
    /// places the texture between legato (0) and impulsive (1) and weighs the accents
    /// (``accentWeight(impulsiveShare:)``).
    func salience(
        beatFrames: [Int], onset: OnsetFeatures, harmony: FrameFeature?, harmonicSpans: [Int], cues: BeatCues, impulsiveShare: Float
    ) -> [[Double]] {
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
        let accentWeight = backbeat ? 0 : accentWeight(impulsiveShare: impulsiveShare)
        return harmonicSpans.map { span in
            var zh = robustStandardised(harmonicChange(span: max(1, span)))
            for i in 0..<k where cues.afterRest[i] { zh[i] = min(zh[i], 0) }
            return (0..<k).map { i in
                configuration.downbeats.harmonicWeight * zh[i] + configuration.downbeats.lowOnsetWeight * cues.low[i]
                    + accentWeight * cues.accent[i] + configuration.downbeats.loudnessWeight * cues.loudness[i]
            }
        }
    }

    /// The weight of the broadband accents in the downbeat salience for a texture `impulsiveShare`
    /// of the way from legato (0) to impulsive (1): ``RhythmAnalyzer/Configuration/DownbeatSettings/accentWeight``
    /// in a legato texture, ``RhythmAnalyzer/Configuration/DownbeatSettings/impulsiveAccentWeight``
    /// in an impulsive one, linear between.
    ///
    /// In a legato texture (organ, strings, choir) an onset is a new chord or a stressed note, a
    /// phenomenal accent that marks the strong beats (Lerdahl & Jackendoff 1983, ch. 2 and
    /// metrical preference rule 4). In an impulsive one the broadband onsets at the beats are
    /// mostly the drums' and the strums', which sound on every beat, on the backbeat or as pickups
    /// before the bar line, while the kick and the bass that mark the bar are already the low-band
    /// cue (Goto 2001, sec. 4); Krebs, Böck & Widmer (2013, "Rhythmic pattern modeling for beat and
    /// downbeat tracking in musical audio", ISMIR) read a drummed bar from the low and the high
    /// band's own patterns rather than from one broadband accent. The backbeat test
    /// (``backbeatCorrelation(low:high:)``) leaves the accents out of one such pattern; the texture
    /// leaves them out of the others.
    func accentWeight(impulsiveShare: Float) -> Double {
        RhythmAnalyzer.byTexture(
            legato: configuration.downbeats.accentWeight, impulsive: configuration.downbeats.impulsiveAccentWeight, impulsiveShare: impulsiveShare)
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
        /// The log transition probability from each state to each (`from * s + to`) when the
        /// position advances by `step` beats; it depends on the step only, so each table is built
        /// once, for the steps the piece holds.
        func transitions(step: Int) -> [Double] {
            var table = [Double](repeating: -.infinity, count: s * s)
            for from in 0..<s {
                for to in 0..<s {
                    if stateMeter[from] == stateMeter[to] {
                        table[from * s + to] =
                            (statePos[from] + step) % stateMeter[from] == statePos[to]
                            ? logAdvance : logJump - log(Double(max(1, stateMeter[to] - 1)))
                    } else if statePos[to] == 0 {
                        table[from * s + to] = logMeterChange
                    }
                }
            }
            return table
        }
        var tables: [Int: [Double]] = [:]
        // Per state and beat: the metrical weight of the salience, the meter prior (duple and
        // quadruple meters are the more common) and the meter's bar-length periodicity.
        let weight = (0..<s).map { metricalWeight(position: statePos[$0], meter: stateMeter[$0]) }
        let oddMeter = stateMeter.map { $0 % 2 == 1 }
        let periodicity = stateMeter.map { configuration.downbeats.meterPeriodicityWeight * (meterPeriodicity[$0] ?? 0) }
        var score = [Double](repeating: 0, count: s)
        var back = [UInt8](repeating: 0, count: k * s)
        var next = score
        let beta = configuration.downbeats.downbeatSharpness
        for i in 0..<k {
            if i > 0 {
                let step = i - 1 < elapsed.count ? max(1, elapsed[i - 1]) : 1
                let table: [Double]
                if let cached = tables[step] {
                    table = cached
                } else {
                    table = transitions(step: step)
                    tables[step] = table
                }
                for to in 0..<s {
                    var best = -Double.infinity, arg = 0
                    for from in 0..<s {
                        let v = score[from] + table[from * s + to]
                        if v > best { best = v; arg = from }
                    }
                    next[to] = best
                    back[i * s + to] = UInt8(arg)
                }
                score = next
            }
            for st in 0..<s {
                score[st] += beta * salience[i] * weight[st]
                if oddMeter[st] { score[st] -= configuration.downbeats.oddMeterPenalty }
                score[st] += periodicity[st]
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
}
