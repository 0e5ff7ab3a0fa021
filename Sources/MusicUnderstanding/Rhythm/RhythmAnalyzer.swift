import Foundation

/// Beat tracking, tempo and downbeats from the shared onset features.
///
/// ``analyze(_:)`` is a one-way chain of small steps, after madmom's processors (each step
/// cites its method in its own type or file; the settings of all are ``Configuration``, in
/// `RhythmConfiguration.swift`):
/// 1. Onset curves (`BeatActivation.swift`): the beat-tracking curve (broadband plus low-band
///    onsets) and, for the tempo, the same with the high band down-weighted.
/// 2. `TempoEstimator` (`Tempo.swift`, gated in `PulseTest.swift`): global tempo from the
///    averaged autocorrelation of the onset strength with a perceptual tempo prior (Ellis 2007;
///    Klapuri et al. 2006); a weak periodicity peak (silence, noise) gives no beats at all, unless
///    a pitched input's harmonic change pulses at the tempo (soft attacks).
/// 3. Activation (`BeatActivation.swift`): the texture, from legato to impulsive, chooses the
///    curve the decoder follows (with the harmonic change mixed in when only it pulses), mapped to
///    an activation in `(0, 1)`.
/// 4. `BeatTracker` (`BeatTracker.swift`): HMM over beat period × beat position (Krebs, Böck &
///    Widmer 2015) around the global tempo, so beats follow tempo changes without drifting; the
///    beats are trimmed to the music's activity and silent beats dropped (`BeatTrimming.swift`).
///    4a. Passages of another tempo (`TempoRegimes.swift`): where the local tempo of a drummed or
///    struck texture keeps to another value than the global one for 30 s or more (a medley, a
///    DJ mix), the tracker's tempo prior is centred on it there.
/// 5. Metrical level (`MetricalLevel.swift`): the level at half the period when its beats are
///    the more salient to a listener, or at a third of it when the beats are the bars of a fast
///    triple meter, tracked again; near ties reach further where drums play in half time
///    (`DrummedHalfTime.swift`).
/// 6. Placement (`BeatPlacement.swift`): each beat is moved to the onset peak nearby with
///    parabolic interpolation (sub-frame precision) and to its rising edge, then placed by the
///    onsets of its neighbours (LOWESS).
/// 7. `DownbeatTracker` (`Downbeats.swift`, composed in `Bars.swift`): meter (3 or 4) and bar
///    phase from beat-synchronous harmonic change, low-band onsets and accents (Durand et al.
///    2015; the accents weighed by the texture), decoded with a bar-position Viterbi that weighs each meter by the cues' recurrence
///    one bar later (Gouyon & Herrera 2003); the last bar is completed.
/// 8. Octave (`OctaveVote.swift`): every other beat kept, on the phase where the harmony
///    changes, when short windows of the onset curve vote for the double period (Davies &
///    Plumbley 2007) and the meter is not odd; the bars found again. Where step 4a found
///    passages, each passage votes and is halved on its own (`PassageOctave.swift`).
/// 9. Free passages (`BeatTrimming.swift`): an introduction or ending out of time (few beats
///    with an onset, its notes off the beats), whose beats and bars the report leaves out after
///    step 10; the other analyses keep the tracked grid.
/// 10. Folding (`MetricalLevel.swift`): the beats folded by octaves into a tempo range when one
///    is set (each passage of step 4a on its own, `PassageOctave.swift`), and the reported tempo
///    put first among its octave alternatives.
/// 11. Tempo curve (`TempoCurve.swift`): the local tempo at every bar line, from the median beat
///    interval of a window of beats (Dixon 2001), reported when it drifts from the global tempo.
public struct RhythmAnalyzer: Sendable {
    /// The settings in use.
    public var configuration: Configuration

    /// Creates the analyzer.
    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// Analyses the features of one input.
    public func analyze(_ features: SharedFeatures) -> RhythmResult {
        let empty = RhythmResult(beats: [], bars: [], beatsPerMinute: nil)
        // 1. The beat-tracking curve: broadband plus low-band flux, all finite.
        guard let onset = features.onset, onset.count > 0, onset.frameRate > 0, let curve = beatTrackingCurve(onset) else { return empty }
        // Harmonic change comes from the one shared chroma (the HPCP at its block rate).
        let harmony = features.chroma?.blockFeature
        let chordChange = harmonicChange(harmony), chordRate = harmony?.frameRate ?? 0
        let fps = onset.frameRate
        // 2. The tempo (from the onset curve and the harmonic change), with enough pulse salience
        // (more for unpitched sound); failing that, again without the onset of the file's start.
        let estimator = TempoEstimator(configuration: configuration)
        let thresholds = pulseThresholds(features.chroma)
        var tempoOnsets = tempoEstimationCurve(curve, onset: onset)
        func estimate(_ curve: [Float]) -> TempoEstimate? {
            estimateTempo(
                curve, frameRate: fps, harmonicChange: chordChange, harmonicRate: chordRate, estimator: estimator,
                thresholds: thresholds)
        }
        var estimated = estimate(tempoOnsets)
        if estimated == nil, let capped = startCapped(tempoOnsets) {
            tempoOnsets = capped
            estimated = estimate(capped)
        }
        guard var tempo = estimated else { return empty }
        // The window votes of steps 5 and 8, on the curve the tempo came from.
        let voting = VotingCurve(tempoOnsets, frameRate: fps, analyzer: self)
        // 3. The texture, from legato (0) to impulsive (1), chooses the activation and how onsets are placed.
        let impulsive = impulsiveShare(onset: onset, curve: curve)
        // An impulsive texture leans on the low band for the beat's phase; a pulse found in the
        // harmonic change alone is followed there too.
        let followed = followedCurve(
            curve, onset: onset, impulsiveShare: impulsive, pulseFromHarmonicChange: tempo.pulseFromHarmonicChange,
            harmonicChange: chordChange, harmonicRate: chordRate)
        let activation = makeActivation(followed, frameRate: fps, impulsiveShare: impulsive)
        // 4. Beats tracked around the tempo; the silence of the input is shared by the
        // silent-beat removal and the last bar.
        let silence = silenceGate(onset)
        // 4a. Passages of another tempo (a medley, a mix), where the tempo prior follows their own.
        let passages = tempoPassages(tempoOnsets, frameRate: fps, period: tempo.period, estimator: estimator, impulsiveShare: impulsive)
        /// Beats tracked around `period` on this input (``trackBeats(around:activation:curve:silence:impulsiveShare:passages:)``).
        func track(around period: Double) -> TrackedBeats {
            trackBeats(around: period, activation: activation, curve: curve, silence: silence, impulsiveShare: impulsive, passages: passages)
        }
        var beats = track(around: tempo.period)
        // 5. The level at half or a third of the period, when its beats are the more salient to a
        // listener (near ties reach further where drums play in half time).
        if let adjacent = adjacentLevel(
            of: tempo, beats: beats.frames, relativeFlux: onset.relativeFlux, radius: beats.radius,
            frameRate: fps, estimator: estimator, votingCurve: voting,
            drummedHalfTime: isDrummedHalfTime(features.harmonicPercussive, lowBand: onset.lowStrength, beats: beats.frames, radius: beats.radius))
        {
            let retracked = track(around: adjacent.period)
            if retracked.frames.count >= 2 { tempo = adjacent; beats = retracked }
        }
        // A pulse needs new sound on the beats, not only periodicity: the median over the beats
        // of the relative flux near each must reach `minimumNewSound`.
        guard beats.frames.count >= 2, newSound(at: beats.frames, onset: onset, radius: beats.radius) >= configuration.beats.minimumNewSound
        else { return empty }
        // 6. Each beat placed on its onset and by its neighbours' onsets; the tempo from the placed beats.
        var beatTimes = placeBeats(beats, curve: curve, frameRate: fps, impulsiveShare: impulsive)
        let ibi = medianInterval(beatTimes)
        var bpm: Float? = ibi > 0 ? Float(60 / ibi) : nil
        let candidates = octaveCandidates(of: tempo, beatsPerMinute: bpm)
        // 7. Downbeats, and the last bar completed.
        var bars = findBars(&beatTimes, beats: &beats, onset: onset, harmony: harmony, silence: silence, impulsiveShare: impulsive)
        // 8. The tempo octave by window votes: every other beat when the votes prefer the double
        // period, unless every beat is alike (an isochronous stream is its own beat).
        // An odd meter (3, or 5 and 7 when configured) has no level at twice its beat: its bars
        // are not halved (as `fold` keeps them).
        // Where step 4a found passages of another tempo, each passage votes on its own.
        let spans = passageSpans(passages, count: curve.count)
        let halved: Bool
        if !spans.isEmpty {
            halved = halvePassages(
                &beatTimes, beats: &beats, spans: spans, voting: voting, beatsPerBar: bars.beatsPerBar, downbeatIndices: bars.indices,
                frameRate: fps, harmonicChange: chordChange, harmonicRate: chordRate, curve: curve)
        } else if beatTimes.count >= 8, bars.beatsPerBar.map({ $0 % 2 == 0 }) ?? true,
            accentVariation(beats.frames, curve: curve, radius: beats.radius) >= configuration.level.isochronousVariation,
            votesForSlowerLevel(voting, beatsPerMinute: bpm)
        {
            halve(
                &beatTimes, beats: &beats, frameRate: fps, harmonicChange: chordChange, harmonicRate: chordRate, downbeatIndices: bars.indices, curve: curve)
            halved = true
        } else {
            halved = false
        }
        if halved {
            bars = findBars(&beatTimes, beats: &beats, onset: onset, harmony: harmony, silence: silence, impulsiveShare: impulsive)
            let halvedInterval = medianInterval(beatTimes)
            bpm = halvedInterval > 0 ? Float(60 / halvedInterval) : nil
        }
        var result = RhythmResult(
            beats: beatTimes, bars: bars.downbeats(in: beatTimes), beatsPerMinute: bpm, beatsPerBar: bars.beatsPerBar, tempoCandidates: candidates)
        // 9. An introduction or ending out of time, found at the tracked level.
        let pulsed = pulsedSpan(of: result.beats, curve: curve, frameRate: fps, radius: beats.radius)
        // 10. Folded into the tempo range, the reported tempo first; the passages out of time, and the
        // silence before the music starts and after it stops, left out.
        if let range = configuration.level.foldedTempoRange {
            result = foldPassages(result, into: range, beatFrames: beats.frames, spans: spans, frameRate: fps, curve: curve, radius: beats.radius)
        }
        result = reportedTempoFirst(result)
        if let kept = soundingSpan(pulsed, onset: onset, duration: Double(curve.count) / fps) { result = keeping(result, within: kept) }
        // 11. The local tempo over time, when it drifts.
        result.tempoCurve = tempoCurve(beats: result.beats, bars: result.bars, beatsPerMinute: result.beatsPerMinute)
        return result
    }

    /// The pulsed span (step 9) within the span where the music sounds (``MusicSpan``, its default
    /// settings: not in the silence, or over the noise floor, before the music starts and after it
    /// stops) widened by 50 ms, about a frame's half window, either side; `nil` when neither trims
    /// anything.
    func soundingSpan(_ pulsed: ClosedRange<Double>?, onset: OnsetFeatures, duration: Double) -> ClosedRange<Double>? {
        let music = MusicSpan().span(onset, duration: duration)
        let slack = 0.05
        let sounding = (music.start > 0 ? music.start - slack : -Double.infinity)...(music.end < duration ? music.end + slack : Double.infinity)
        guard let pulsed else { return sounding.lowerBound.isFinite || sounding.upperBound.isFinite ? sounding : nil }
        let lower = max(pulsed.lowerBound, sounding.lowerBound), upper = min(pulsed.upperBound, sounding.upperBound)
        return lower <= upper ? lower...upper : pulsed
    }
}
