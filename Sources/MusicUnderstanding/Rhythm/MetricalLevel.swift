import Foundation

/// The metrical-level steps of the rhythm chain (madmom's tempo processors, and the octave
/// folding of DJ software): the choice between the tracked level and the one at half its period
/// by their salience to a listener (Parncutt 1994; McKinney & Moelants 2006), the tempo's octave
/// alternatives at the beats' tempo, and the folding of the beat grid into
/// ``Configuration/LevelSettings/foldedTempoRange``.
extension RhythmAnalyzer {
    /// The salience of the level at half the period of `tempo` relative to the tracked level, or
    /// `nil` where that level is not a candidate (fewer than 4 beats, faster than
    /// ``Configuration/TempoSettings/maximumBeatBPM``, not nearer the preferred tempo, no accent on
    /// the beats); the faster level is the more salient of the two adjacent levels to a listener
    /// at 1 or more (see ``Configuration/LevelSettings/adjacentLevelSalience``).
    ///
    /// The salience of a level is its resonance (the tempo prior, ``TempoEstimator/resonance(period:frameRate:)``)
    /// times the mean accent of its beats (pulse salience as period salience × how strongly events
    /// mark the pulse's beats: Parncutt 1994, "A perceptual model of pulse salience and metrical
    /// accent in musical rhythms", Music Perception 11(4); the tapped level follows the relative
    /// salience of adjacent levels and a resonance curve near 120 BPM: McKinney & Moelants 2006,
    /// "Ambiguity in tempo perception", Music Perception 24(2)). A beat's accent is the largest
    /// relative flux (``OnsetFeatures/relativeFlux``, the share of the unwhitened spectrum that is
    /// new) within `radius` frames of it: loudness-relative, so a quiet hi-hat under a sustained
    /// texture adds little and a kick or a chord much. The faster level's beats are the tracked
    /// beats and the midpoints between them, so with `on` and `mid` the mean accents of the
    /// two, the faster level wins when `resonance(τ/2) / resonance(τ) × (on + mid) / (2 · on) ≥ 1`.
    /// Only where the faster level is nearer the preferred tempo (the current one slower than
    /// ``Configuration/TempoSettings/preferredBPM`` / √2) and not faster than ``Configuration/TempoSettings/maximumBeatBPM``,
    /// with at least 4 beats (a clip of 5-8 s at a slow level has 4 to 7).
    ///
    /// **Near ties** (in ``adjacentLevel(of:beats:relativeFlux:radius:frameRate:estimator:votingCurve:)``,
    /// with the tempo-estimation curve to vote on): where the salience falls
    /// just short (at least ``Configuration/LevelSettings/salienceTie`` of 1), the accents say
    /// little about which level is tapped, and the periodicity decides: the window votes of
    /// ``OctaveVote`` on the curve, when they prefer the half period (Davies & Plumbley 2007,
    /// sec. III; the same votes that halve the beats in step 8). Accent and periodicity are the
    /// two cues of McKinney & Moelants (2006) to the tapped level.
    func fasterLevelSalience(
        of tempo: TempoEstimate, beats: [Int], relativeFlux rel: [Float], radius: Int,
        frameRate: Double, estimator: TempoEstimator
    ) -> Double? {
        let period = tempo.period, half = tempo.period / 2
        guard beats.count >= 4, !rel.isEmpty, half > 0, 60 * frameRate / half <= configuration.tempo.maximumBeatBPM else { return nil }
        let gain = estimator.resonance(period: half, frameRate: frameRate) / max(1e-12, estimator.resonance(period: period, frameRate: frameRate))
        guard gain > 1 else { return nil }
        let sums = accents(at: [0, 1 / 2], beats: beats, relativeFlux: rel, radius: radius)
        let on = sums[0], mid = sums[1]
        guard on > 0 else { return nil }
        return gain * (on + mid) / (2 * on)
    }

    /// Whether the faster level's `salience` takes it: at 1 or more, or on a near tie
    /// (``Configuration/LevelSettings/salienceTie``; ``Configuration/LevelSettings/drummedSalienceTie``
    /// for drummed half time) when the window votes on `votingCurve` prefer half the `period`.
    /// `drummedHalfTime` is evaluated only for a salience between the two ties.
    private func takesFasterLevel(salience: Double, period: Double, votingCurve: VotingCurve?, drummedHalfTime: () -> Bool) -> Bool {
        if salience >= 1 { return true }
        let level = configuration.level
        guard let votingCurve else { return false }
        let nearTie = salience >= level.salienceTie || (salience >= level.drummedSalienceTie && drummedHalfTime())
        guard nearTie else { return false }
        return votesForFasterLevel(votingCurve, period: period)
    }

    /// Step 5: the level a listener taps instead of the tracked one, at half or a third of the
    /// period of `tempo`, or `nil`: the faster level when it is the more salient, else the level
    /// of a fast triple meter's beats, else the faster level on a near tie that the window votes
    /// decide (``fasterLevelSalience(of:beats:relativeFlux:radius:frameRate:estimator:)``,
    /// ``tripleLevel(of:beats:relativeFlux:radius:frameRate:estimator:)``). `votingCurve` is the
    /// tempo-estimation curve; without it, near ties keep the tracked level. Near ties reach
    /// further in `drummedHalfTime` (``isDrummedHalfTime(_:lowBand:beats:radius:)``), which is
    /// evaluated only for such a near tie.
    func adjacentLevel(
        of tempo: TempoEstimate, beats: [Int], relativeFlux rel: [Float], radius: Int,
        frameRate: Double, estimator: TempoEstimator, votingCurve: VotingCurve?, drummedHalfTime: @autoclosure () -> Bool = false
    ) -> TempoEstimate? {
        guard configuration.level.adjacentLevelSalience else { return nil }
        // The faster level's salience is computed once and decided twice: clearly, then on a near tie.
        let salience = fasterLevelSalience(
            of: tempo, beats: beats, relativeFlux: rel, radius: radius, frameRate: frameRate, estimator: estimator)
        if let salience, takesFasterLevel(salience: salience, period: tempo.period, votingCurve: nil, drummedHalfTime: drummedHalfTime) {
            return level(of: tempo, dividedBy: 2)
        }
        if let triple = tripleLevel(of: tempo, beats: beats, relativeFlux: rel, radius: radius, frameRate: frameRate, estimator: estimator) {
            return triple
        }
        if let salience, takesFasterLevel(salience: salience, period: tempo.period, votingCurve: votingCurve, drummedHalfTime: drummedHalfTime) {
            return level(of: tempo, dividedBy: 2)
        }
        return nil
    }

    /// The metrical level at a third of the period of `tempo` when the tracked beats are the bars
    /// of a fast triple meter, else `nil` (see ``Configuration/LevelSettings/tripleLevelAccent``).
    ///
    /// A fast waltz (Viennese waltzes near 180 BPM) or a strummed 6/8 is periodic at its bar, and
    /// the bar, near 60 BPM, can win the tempo estimate. Its beats then hold a triple
    /// subdivision whose every part is a new sound (the "pah-pah" of the accompaniment, the
    /// strokes of the strum), where the eighth notes of a slow 12/8 ballad are soft
    /// subdivisions of a beat carried by the bass, kick and snare. The third-of-the-period level
    /// is taken when it is nearer the preferred tempo (its resonance larger), not faster than
    /// ``Configuration/TempoSettings/maximumBeatBPM``, the beats' thirds carry more accent than their midpoints
    /// (a triple, not a duple, subdivision; Lerdahl & Jackendoff 1983, metrical well-formedness)
    /// and at least ``Configuration/LevelSettings/tripleLevelAccent`` of the beats' accent, with at least 4
    /// beats. Accents are those of ``fasterLevelSalience(of:beats:relativeFlux:radius:frameRate:estimator:)``.
    func tripleLevel(
        of tempo: TempoEstimate, beats: [Int], relativeFlux rel: [Float], radius: Int,
        frameRate: Double, estimator: TempoEstimator
    ) -> TempoEstimate? {
        let period = tempo.period, third = tempo.period / 3
        guard beats.count >= 4, !rel.isEmpty, third > 0, 60 * frameRate / third <= configuration.tempo.maximumBeatBPM,
            estimator.resonance(period: third, frameRate: frameRate) > estimator.resonance(period: period, frameRate: frameRate)
        else { return nil }
        let sums = accents(at: [0, 1 / 2, 1 / 3, 2 / 3], beats: beats, relativeFlux: rel, radius: radius)
        let on = sums[0], mid = sums[1], thirds = (sums[2] + sums[3]) / 2
        // The subdivision's periodicity: the autocorrelation's peak near a third of the period
        // against its peak near half of it (the duple/triple decision of Gouyon & Herrera 2003).
        let acf = tempo.autocorrelation
        func peak(near lag: Double) -> Double {
            let centre = Int(lag.rounded())
            guard centre >= 1, centre + 1 < acf.count else { return -.infinity }
            return max(acf[centre - 1], acf[centre], acf[centre + 1])
        }
        guard on > 0, thirds > mid, thirds >= configuration.level.tripleLevelAccent * on, peak(near: third) > peak(near: period / 2) else { return nil }
        return level(of: tempo, dividedBy: 3)
    }

    /// The accents summed over the beats but the last, one sum per fraction: at each beat's
    /// point `fraction` of the way to the next beat (rounded down to a frame; 0 is the beat
    /// itself), the largest relative flux within `radius` frames.
    private func accents(at fractions: [Double], beats: [Int], relativeFlux rel: [Float], radius: Int) -> [Double] {
        var sums = [Double](repeating: 0, count: fractions.count)
        for i in 0..<max(0, beats.count - 1) {
            let start = beats[i], length = Double(beats[i + 1] - beats[i])
            for (k, fraction) in fractions.enumerated() {
                let frame = start + Int((length * fraction).rounded(.down))
                sums[k] += Double(PeakPicking.windowMaximum(rel, around: frame, radius: radius))
            }
        }
        return sums
    }

    /// `tempo` at `1 / divisor` of its period, the candidate nearest the new tempo put first
    /// (one with confidence 0 when none is within 10 %).
    private func level(of tempo: TempoEstimate, dividedBy divisor: Int) -> TempoEstimate {
        var faster = tempo
        faster.period = tempo.period / Double(divisor)
        faster.beatsPerMinute = Double(divisor) * tempo.beatsPerMinute
        if let i = faster.candidates.firstIndex(where: { abs($0.beatsPerMinute / faster.beatsPerMinute - 1) < 0.1 }) {
            let c = faster.candidates.remove(at: i)
            faster.candidates.insert(c, at: 0)
        } else {
            faster.candidates.insert(TempoCandidate(beatsPerMinute: faster.beatsPerMinute, confidence: 0), at: 0)
        }
        return faster
    }

    /// The tempo's octave alternatives (and, after the triple level, its bar), with the
    /// estimator's confidences, at the beats' tempo `bpm` (empty without it).
    func octaveCandidates(of tempo: TempoEstimate, beatsPerMinute bpm: Float?) -> [TempoCandidate] {
        guard let bpm, let chosen = tempo.candidates.first else { return [] }
        return tempo.candidates.map { c in
            // Exact metrical ratios of the beats' tempo (the periodicity peaks are only frame-exact).
            TempoCandidate(beatsPerMinute: Double(bpm) * Self.metricalRatio(c.beatsPerMinute / chosen.beatsPerMinute), confidence: c.confidence)
        }
    }

    /// The metrical ratio nearest `ratio` on a log scale: a power of two (an octave), or a power
    /// of two times 3 or 1/3 (the bar of a triple meter and its beat, after ``tripleLevel(of:beats:relativeFlux:radius:frameRate:estimator:)``).
    /// Octave candidates lie within 10 % of a power of two, much nearer it than any ratio with a 3.
    static func metricalRatio(_ ratio: Double) -> Double {
        guard ratio > 0, ratio.isFinite else { return 1 }
        let ratios = [1.0, 3, 1.0 / 3].map { factor in factor * pow(2, log2(ratio / factor).rounded()) }
        return ratios.min { abs(log2(ratio / $0)) < abs(log2(ratio / $1)) } ?? 1
    }

    /// `result` with the reported tempo first among its candidates (its octave neighbour, when
    /// folded, with that neighbour's confidence; confidence 0 when none is within 2 %), or
    /// without candidates when it reports no tempo.
    func reportedTempoFirst(_ result: RhythmResult) -> RhythmResult {
        var result = result
        if let bpm = result.beatsPerMinute {
            // The reported tempo first (its octave neighbour, when folded).
            let reported = Double(bpm)
            if let i = result.tempoCandidates?.firstIndex(where: { abs($0.beatsPerMinute / reported - 1) < 0.02 }) {
                let c = result.tempoCandidates?.remove(at: i)
                if let c { result.tempoCandidates?.insert(TempoCandidate(beatsPerMinute: reported, confidence: c.confidence), at: 0) }
            } else {
                result.tempoCandidates?.insert(TempoCandidate(beatsPerMinute: reported, confidence: 0), at: 0)
            }
        } else {
            result.tempoCandidates = nil
        }
        return result
    }

    /// Folds the beat grid by octaves into `range` (DJ software's BPM range): while the tempo is
    /// above it, every other beat is kept (the phase holding the downbeats, or with the stronger
    /// onsets when there are none); while below it, a beat is added halfway between each two.
    /// Downbeats stay where they are and so does `beatsPerBar`, the meter as heard: folding picks
    /// the tempo octave DJ software shows, the bars do not change (an odd meter cannot be halved:
    /// its bars stay, not all on beats, with `beatsPerBar` `nil`).
    func fold(
        _ result: RhythmResult, into range: ClosedRange<Double>, beatFrames: [Int], curve: [Float],
        radius: Int
    ) -> RhythmResult {
        var out = result
        var frames = beatFrames
        var steps = 0
        while steps < 3, out.beats.count >= 2, let bpm = out.beatsPerMinute.map(Double.init) {
            steps += 1
            if bpm > range.upperBound, out.beats.count >= 4 {
                let downbeatIndices = out.bars.compactMap { bar in out.beats.firstIndex(of: bar) }
                let phase = downbeatPhase(downbeatIndices) ?? strongerPhase(frames, curve: curve, radius: radius)
                frames = Grid.everyOther(frames, phase: phase)
                out.beats = Grid.everyOther(out.beats, phase: phase)
                if !downbeatIndices.allSatisfy({ $0 % 2 == phase }) || out.beatsPerBar.map({ $0 % 2 != 0 }) == true {
                    out.beatsPerBar = nil
                }
            } else if bpm < range.lowerBound {
                frames = Grid.withMidpoints(frames) { ($0 + $1) / 2 }
                out.beats = Grid.withMidpoints(out.beats) { ($0 + $1) / 2 }
            } else {
                break
            }
            let ibi = medianInterval(out.beats)
            out.beatsPerMinute = ibi > 0 ? Float(60 / ibi) : nil
        }
        return out
    }

    /// 0 or 1: the parity shared by all the beat indices `downbeats`, or `nil` when there are
    /// none or they do not share one.
    func downbeatPhase(_ downbeats: [Int]) -> Int? {
        guard let first = downbeats.first, downbeats.allSatisfy({ ($0 - first) % 2 == 0 }) else { return nil }
        return first % 2
    }

    /// 0 or 1: the parity of the beats with the larger summed onset peaks.
    func strongerPhase(_ beats: [Int], curve: [Float], radius: Int) -> Int {
        var sums: [Float] = [0, 0]
        for (i, peak) in onsetPeaks(at: beats, curve: curve, radius: radius).enumerated() { sums[i % 2] += peak }
        return sums[1] > sums[0] ? 1 : 0
    }
}
