import Foundation

/// The beat-tracking step of the rhythm chain and the trimming of its beats to the music: the
/// ``BeatTracker`` decodes beats around a period (Krebs, Böck & Widmer 2015; madmom's DBN beat
/// tracker), and the beats in the silent or onset-less head and tail, and inside silent
/// stretches, are dropped; the beats are reported only when they carry new sound.
extension RhythmAnalyzer {
    /// Beat frames as the tracker decoded them, with the radius of their beat-state window.
    struct TrackedBeats: Sendable {
        /// Beat frames at the onset frame rate.
        var frames: [Int]
        /// Radius of the beat-state window, frames: how far from its onset peak the decoder may
        /// have put a beat (±τ/λ positions, at least ``Configuration/PlacementSettings/refinementRadius``).
        var radius: Int
    }

    /// Where the input is silent for rhythm: the frame level (``OnsetFeatures/level``, dB) and
    /// the level under which a frame is silent (``Configuration/BeatSettings/silenceDepth`` under
    /// the loud frames' level). Silent beats are dropped and the last bar is not completed into
    /// silence (a pause between movements, the end of the music).
    struct SilenceGate: Sendable {
        /// The frame level, dB.
        let level: [Float]
        /// The level under which a frame is silent, dB; infinite when the input is digital
        /// silence throughout.
        let threshold: Float

        /// Whether a frame within `radius` of `frame` reaches ``threshold`` (the music sounds
        /// there); false for a frame outside the level.
        func sounds(at frame: Int, radius: Int) -> Bool {
            let lo = max(0, frame - radius), hi = min(level.count - 1, frame + radius)
            guard lo <= hi else { return false }
            for i in lo...hi where level[i] >= threshold { return true }
            return false
        }
    }

    /// Beats tracked on `activation` around `period` (between `period / tempoRange` and
    /// `period * tempoRange` frames), trimmed to the music's activity on `curve`
    /// (``trimToActivity(_:curve:radius:)``) and without silent beats
    /// (``removeSilentBeats(_:silence:radius:)``), with the radius of their beat-state window.
    /// `passages` (step 4a, ``TempoRegimes``) centre the tempo prior elsewhere where the music
    /// changes its tempo.
    func trackBeats(
        around period: Double, activation: [Float], curve: [Float], silence: SilenceGate?, impulsiveShare: Float,
        passages: [TempoRegimes.Change] = []
    ) -> TrackedBeats {
        let tracker = BeatTracker(settings: configuration.beats, impulsiveShare: impulsiveShare)
        let minPeriod = Int((period / configuration.beats.tempoRange).rounded(.down))
        let maxPeriod = Int((period * configuration.beats.tempoRange).rounded(.up))
        var frames = tracker.track(activation, minPeriod: minPeriod, maxPeriod: maxPeriod, centrePeriod: period, passages: passages)
        // The decoder may put a beat anywhere in the beat-state window (±τ/λ positions), so the
        // onset support of a beat is looked for in that window when trimming.
        let radius = max(configuration.placement.refinementRadius, Int((period / configuration.beats.observationLambda).rounded()))
        frames = trimToActivity(frames, curve: curve, radius: radius)
        frames = removeSilentBeats(frames, silence: silence, radius: radius)
        return TrackedBeats(frames: frames, radius: radius)
    }

    /// Median over `beats` of the largest relative flux within `radius` frames of each beat (1
    /// when the features carry no relative flux, as hand-made test features may not).
    func newSound(at beats: [Int], onset: OnsetFeatures, radius: Int) -> Double {
        let rel = onset.relativeFlux
        guard rel.count == onset.count, !rel.isEmpty, !beats.isEmpty else { return 1 }
        return Double(Smoothing.median(beats.map { PeakPicking.windowMaximum(rel, around: $0, radius: radius) }) ?? 0)
    }

    /// Removes beats in the head and tail where the music has no onsets (silence, a lead-in,
    /// a reverberant or fading end): leading and trailing beats whose onset peak (within
    /// `radius` frames) is below `edgeOnsetRatio` times the median beat onset peak.
    func trimToActivity(_ beats: [Int], curve: [Float], radius: Int) -> [Int] {
        guard !beats.isEmpty, !curve.isEmpty else { return [] }
        let peaks = onsetPeaks(at: beats, curve: curve, radius: max(1, radius))
        guard let threshold = onsetThreshold(peaks) else { return [] }
        guard let first = peaks.firstIndex(where: { $0 >= threshold }),
            let last = peaks.lastIndex(where: { $0 >= threshold })
        else { return [] }
        return Array(beats[first...last])
    }

    /// The span of the beats `times` between an introduction and an ending out of time (a free
    /// introduction, a rubato coda, a cadenza before the last chord), where a listener does not
    /// tap or taps the notes as they come; `nil` when there is no such passage. Such a passage is
    /// a run of beats from the first or to the last (``freePassages(_:curve:radius:)``): every
    /// window of `freePassageBeats` consecutive beats of which at most `freePassageShare` have an
    /// onset peak (within `radius` frames of the beat) of `edgeOnsetRatio` times the median
    /// beat's, when its notes fall off the beats. The tracker carries its beats through such
    /// passages at the tempo beside them; the share of beats that carry an onset is a local
    /// measure of the pulse, as the local pulse strength of Grosche & Müller (2011, "Extracting
    /// predominant local pulse information from music recordings", IEEE TASLP 19(6), sec. IV).
    func pulsedSpan(of times: [Double], curve: [Float], frameRate: Double, radius: Int) -> ClosedRange<Double>? {
        guard frameRate > 0, !curve.isEmpty else { return nil }
        // The placed beats, not the tracker's frames: placement moves a beat onto its onset.
        let end = Double(curve.count)
        let frames = times.map { t in t.isFinite ? Int(min(max(t * frameRate, 0), end).rounded()) : 0 }
        let free = freePassages(frames, curve: curve, radius: radius)
        guard free.contains(true), let first = free.firstIndex(of: false), let last = free.lastIndex(of: false), last > first
        else { return nil }
        return times[first]...times[last]
    }

    /// `result` with only the beats and bars within `span` (``pulsedSpan(of:curve:frameRate:radius:)``;
    /// `result` itself when all are within it),
    /// a millisecond either side; the beats and bars it had stay in ``RhythmResult/analysisGrid``
    /// for the analyses that segment the music by them (key, structure, pace).
    func keeping(_ result: RhythmResult, within span: ClosedRange<Double>) -> RhythmResult {
        let wider = (span.lowerBound - 0.001)...(span.upperBound + 0.001)
        guard !(result.beats.allSatisfy { wider.contains($0) } && result.bars.allSatisfy { wider.contains($0) }) else { return result }
        var out = result
        out.analysisGrid = RhythmResult.AnalysisGrid(beats: result.beats, bars: result.bars)
        out.beats = result.beats.filter { wider.contains($0) }
        out.bars = result.bars.filter { wider.contains($0) }
        return out
    }

    /// Which of `beats` (frames) lie in an introduction or an ending out of time
    /// (``pulsedSpan(of:curve:frameRate:radius:)``): a run from the first beat, a run to the last,
    /// or both.
    func freePassages(_ beats: [Int], curve: [Float], radius: Int) -> [Bool] {
        let window = configuration.beats.freePassageBeats
        var free = [Bool](repeating: false, count: beats.count)
        guard window > 0, beats.count >= window, !curve.isEmpty else { return free }
        let peaks = onsetPeaks(at: beats, curve: curve, radius: max(1, radius))
        guard let threshold = onsetThreshold(peaks) else { return free }
        let supported = peaks.map { $0 >= threshold ? 1 : 0 }
        let most = Int((configuration.beats.freePassageShare * Double(window)).rounded(.down))
        var count = supported[0..<window].reduce(0, +)
        for start in 0...(beats.count - window) {
            if start > 0 { count += supported[start + window - 1] - supported[start - 1] }
            if count <= most { for i in start..<(start + window) { free[i] = true } }
        }
        // Only the head and the tail: a passage inside the music that the pulse resumes after (a
        // break, a breakdown, a held chord) keeps its beats, as a listener's meter goes on through
        // it (Large & Jones 1999) and a DJ's grid must. A few beats left at the very edge go with
        // the passage beside them; the passage is out of time only when its notes fall off the beats.
        /// The run of free beats that holds beat `i`.
        func run(through i: Int) -> Range<Int> {
            var lower = i, upper = i + 1
            while lower > 0 && free[lower - 1] { lower -= 1 }
            while upper < free.count && free[upper] { upper += 1 }
            return lower..<upper
        }
        let few = window / 2
        var candidates: [Range<Int>] = []
        if let firstFree = free.firstIndex(of: true), firstFree < few { candidates.append(0..<run(through: firstFree).upperBound) }
        if let lastFree = free.lastIndex(of: true), lastFree >= free.count - few {
            candidates.append(run(through: lastFree).lowerBound..<free.count)
        }
        var edges = [Bool](repeating: false, count: beats.count)
        for passage in candidates where notesOffTheBeats(beats[passage], curve: curve, threshold: threshold) {
            for i in passage { edges[i] = true }
        }
        return edges
    }

    /// Whether the notes of a passage fall off its beats: at least two of the onset peaks of
    /// `curve` (local maxima at `threshold` or above) between its first and last beat lie farther
    /// than ``Configuration/BeatSettings/freePassageBeatTolerance`` of its median beat interval
    /// from every beat and every point halfway between two, and they are at least
    /// ``Configuration/BeatSettings/freePassageOffBeatShare`` of those peaks. A sparse
    /// introduction in time (a chord on each bar line, a quaver pickup) has its notes on the beats
    /// and their halves; a free one (a sung lead-in, a rubato arpeggio) anywhere between them.
    func notesOffTheBeats(_ beats: ArraySlice<Int>, curve: [Float], threshold: Float) -> Bool {
        guard let first = beats.first, let last = beats.last, first + 1 < min(last, curve.count - 1) else { return false }
        let intervals = zip(beats.dropFirst(), beats).map { Double($0 - $1) }
        guard let period = Smoothing.median(intervals), period > 0 else { return false }
        let tolerance = configuration.beats.freePassageBeatTolerance * period
        var on = 0, off = 0
        var k = beats.startIndex
        for f in (first + 1)..<min(last, curve.count - 1) where curve[f] >= threshold && PeakPicking.isLocalMaximum(curve, at: f) {
            while k + 1 < beats.endIndex && beats[k + 1] <= f { k += 1 }
            // Off the beat and off its half (a quaver between two beats is in time).
            let before = Double(f - beats[k])
            let interval = k + 1 < beats.endIndex ? Double(beats[k + 1] - beats[k]) : period
            let distance = min(before, abs(before - interval / 2), abs(interval - before))
            if distance > tolerance { off += 1 } else { on += 1 }
        }
        return off >= 2 && Double(off) >= configuration.beats.freePassageOffBeatShare * Double(on + off)
    }

    /// The onset peak a beat needs to carry an onset: `edgeOnsetRatio` times the median of the
    /// beats' `peaks` (``onsetPeaks(at:curve:radius:)``); `nil` when that median is not positive.
    func onsetThreshold(_ peaks: [Float]) -> Float? {
        guard let median = Smoothing.median(peaks), median > 0 else { return nil }
        return Float(configuration.beats.edgeOnsetRatio) * median
    }

    /// The largest value of `curve` within `radius` frames of each beat, 0 at the least
    /// (``PeakPicking/windowMaximum(_:around:radius:)``).
    func onsetPeaks(at beats: [Int], curve: [Float], radius: Int) -> [Float] {
        beats.map { PeakPicking.windowMaximum(curve, around: $0, radius: radius) }
    }

    /// Removes beats inside silent stretches (a pause between movements): beats with no frame
    /// within `radius` that sounds through `silence` (``silenceGate(_:)``); `nil` keeps every beat.
    func removeSilentBeats(_ beats: [Int], silence: SilenceGate?, radius: Int) -> [Int] {
        guard !beats.isEmpty, let silence else { return beats }
        return beats.filter { silence.sounds(at: $0, radius: radius) }
    }

    /// The silence of `onset`: ``Configuration/BeatSettings/silenceDepth`` decibels under its loud
    /// frames' level (``OnsetFeatures/loudLevel``), a depth, so a recording played quieter keeps
    /// the same beats (docs/analyses/rhythm.md, "Silence as a depth"). `nil` without levels or
    /// with the depth 0.
    func silenceGate(_ onset: OnsetFeatures) -> SilenceGate? {
        let depth = configuration.beats.silenceDepth
        guard depth > 0, let loud = onset.loudLevel else { return nil }
        return SilenceGate(level: onset.level, threshold: loud > -230 ? loud - Float(depth) : .infinity)
    }
}
