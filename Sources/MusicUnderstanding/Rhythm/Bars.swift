import Foundation

/// The downbeat step of the rhythm chain (madmom's downbeat processors): the
/// ``DownbeatTracker`` finds meter and bar phase from beat-synchronous cues (Durand et al.
/// 2015) and a bar-position Viterbi, and the bar in progress at the last beat is completed
/// while the music sounds (metrical entrainment through held notes: Large & Jones 1999).
///
/// The harmonic-change cue is measured over two spans (``Configuration/DownbeatSettings/harmonicContextBeats``
/// and ``Configuration/DownbeatSettings/alternativeHarmonicContextBeats``) and the bars are decoded with each;
/// the decoding whose Viterbi path scores higher per beat is kept. This is model selection by
/// the decoded path's log score, as madmom's downbeat tracker chooses the bar length (Böck,
/// Krebs & Widmer 2016, "Joint beat and downbeat tracking with recurrent neural networks",
/// ISMIR; madmom's `DBNDownBeatTrackingProcessor` decodes one model per meter and keeps the one
/// whose best path is the most probable).
extension RhythmAnalyzer {
    /// The bars found by ``findBars(_:beats:onset:harmony:silence:impulsiveShare:)``.
    struct FoundBars: Sendable {
        /// The downbeats' indices into the beats.
        var indices: [Int] = []
        /// Beats per bar; `nil` without bars.
        var beatsPerBar: Int?

        /// The downbeat times, seconds: the times of the beats at ``indices`` in `beats`.
        func downbeats(in beats: [Double]) -> [Double] { indices.compactMap { beats.indices.contains($0) ? beats[$0] : nil } }
    }

    /// The bars of `times` in a texture `impulsiveShare` of the way from legato to impulsive
    /// (``impulsiveShare(onset:curve:)``, which weighs the accents); with
    /// ``Configuration/DownbeatSettings/completesLastBar``, beats are appended to `times` and `beats` up to
    /// the end of the last bar (``completeLastBar(_:frames:lastDownbeat:beatsPerBar:silence:frameRate:radius:)``).
    func findBars(
        _ times: inout [Double], beats: inout TrackedBeats, onset: OnsetFeatures, harmony: FrameFeature?, silence: SilenceGate?, impulsiveShare: Float
    ) -> FoundBars {
        var found = FoundBars()
        let downbeats = DownbeatTracker(configuration: configuration)
        var spans = [configuration.downbeats.harmonicContextBeats]
        if configuration.downbeats.alternativeHarmonicContextBeats > 0, configuration.downbeats.alternativeHarmonicContextBeats != spans[0] {
            spans.append(configuration.downbeats.alternativeHarmonicContextBeats)
        }
        // The decoding with the higher score per beat (`max(by:)` keeps the first span's on a tie).
        let cues = downbeats.beatCues(beatFrames: beats.frames, onset: onset)
        let periodicity =
            configuration.downbeats.meterPeriodicityWeight != 0
            ? downbeats.meterPeriodicity(cues, meters: configuration.downbeats.meters) : [:]
        // The bar position goes on through the beats left out in rests.
        let elapsed = configuration.downbeats.countsSkippedBeats ? DownbeatTracker.periodsElapsed(beats.frames) : []
        let saliences = downbeats.salience(
            beatFrames: beats.frames, onset: onset, harmony: harmony, harmonicSpans: spans, cues: cues, impulsiveShare: impulsiveShare)
        let best = saliences.compactMap { downbeats.decode($0, meterPeriodicity: periodicity, elapsed: elapsed) }
            .max { $0.scorePerBeat < $1.scorePerBeat }
        if let decoded = best, !decoded.downbeatIndices.isEmpty {
            found = FoundBars(indices: decoded.downbeatIndices, beatsPerBar: decoded.beatsPerBar)
            if configuration.downbeats.completesLastBar, let last = decoded.downbeatIndices.last {
                completeLastBar(
                    &times, frames: &beats.frames, lastDownbeat: last, beatsPerBar: decoded.beatsPerBar,
                    silence: silence, frameRate: onset.frameRate, radius: beats.radius)
            }
        }
        return found
    }

    /// Appends beats at the period of the last 4 beats until the bar that begins at beat index
    /// `lastDownbeat` holds `beatsPerBar` beats, stopping at the first that would fall in silence
    /// (no frame within `radius` sounds through `silence`, ``silenceGate(_:)``) or past the end of
    /// the input (see ``Configuration/DownbeatSettings/completesLastBar``); `nil` appends none.
    func completeLastBar(
        _ times: inout [Double], frames: inout [Int], lastDownbeat: Int, beatsPerBar: Int,
        silence: SilenceGate?, frameRate: Double, radius: Int
    ) {
        let after = times.count - 1 - lastDownbeat
        guard let silence, beatsPerBar >= 2, after >= 0, after < beatsPerBar - 1, times.count >= 3, !silence.level.isEmpty else { return }
        let step = min(4, times.count - 1)
        let period = (times[times.count - 1] - times[times.count - 1 - step]) / Double(step)
        guard period > 0 else { return }
        for _ in 0..<(beatsPerBar - 1 - after) {
            guard let lastTime = times.last else { return }
            let t = lastTime + period
            let f = Int((t * frameRate).rounded())
            guard f + radius < silence.level.count, silence.sounds(at: f, radius: radius) else { return }
            times.append(t)
            frames.append(f)
        }
    }
}
