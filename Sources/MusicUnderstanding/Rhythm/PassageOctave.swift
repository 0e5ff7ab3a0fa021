import Foundation

/// Step 8 per passage: on an input with passages of another tempo (step 4a, ``TempoRegimes``),
/// the tempo octave of step 8 (``OctaveVote``) is chosen for each passage on the window votes of
/// its own span, from the beat where the tracked tempo changes. Two songs in one file (a medley,
/// a DJ mix) may be tapped at different levels, one at its half note and the other at its
/// crotchet, which one decision for the whole input cannot give both.
extension RhythmAnalyzer {
    /// The spans (frames of the onset curve, `0..<count`) of the passages of step 4a, one per
    /// ``TempoRegimes/Change``; empty when the input keeps one tempo.
    func passageSpans(_ passages: [TempoRegimes.Change], count: Int) -> [Range<Int>] {
        let starts = passages.map(\.frame).filter { $0 > 0 && $0 < count }
        guard !starts.isEmpty else { return [] }
        let bounds = [0] + starts + [count]
        return zip(bounds, bounds.dropFirst()).compactMap { $0 < $1 ? $0..<$1 : nil }
    }

    /// Step 8 by passage: on an input with passages of another tempo (step 4a, `spans`), each
    /// passage keeps every other beat on its own, when the window votes of its own span prefer
    /// the double period (``votesForSlowerLevel(_:beatsPerMinute:span:)``) under the conditions
    /// of the whole-input step (at least 8 beats, an even meter `beatsPerBar`, accents that vary).
    /// A passage's beats start where the tracked tempo changes (``tempoChangeBeat(_:frames:near:reach:)``,
    /// within half of step 4a's window of its start). The phase kept is chosen as in ``halve(_:beats:frameRate:harmonicChange:harmonicRate:downbeatIndices:curve:)``
    /// on the passage's beats. Returns whether any passage was halved.
    func halvePassages(
        _ times: inout [Double], beats: inout TrackedBeats, spans: [Range<Int>], voting: VotingCurve, beatsPerBar: Int?,
        downbeatIndices: [Int], frameRate: Double, harmonicChange: [Float], harmonicRate: Double, curve: [Float]
    ) -> Bool {
        guard spans.count >= 2, times.count == beats.frames.count, beatsPerBar.map({ $0 % 2 == 0 }) ?? true else { return false }
        var keptTimes: [Double] = [], keptFrames: [Int] = []
        var changed = false
        let ranges = passageBeats(times, frames: beats.frames, spans: spans, frameRate: frameRate)
        for (span, range) in zip(spans, ranges) {
            var passageTimes = Array(times[range])
            var passage = TrackedBeats(frames: Array(beats.frames[range]), radius: beats.radius)
            let interval = medianInterval(passageTimes)
            if passageTimes.count >= 8, interval > 0,
                accentVariation(passage.frames, curve: curve, radius: beats.radius) >= configuration.level.isochronousVariation,
                votesForSlowerLevel(voting, beatsPerMinute: Float(60 / interval), span: span)
            {
                let downbeats = downbeatIndices.filter { range.contains($0) }.map { $0 - range.lowerBound }
                halve(
                    &passageTimes, beats: &passage, frameRate: frameRate, harmonicChange: harmonicChange, harmonicRate: harmonicRate,
                    downbeatIndices: downbeats, curve: curve)
                changed = true
            }
            keptTimes += passageTimes
            keptFrames += passage.frames
        }
        guard changed else { return false }
        times = keptTimes
        beats.frames = keptFrames
        return true
    }
}

extension RhythmAnalyzer {
    /// The beats (index ranges into `times` and `frames`, one per span, covering them all in order)
    /// of the passages `spans` (frames at `frameRate`): each passage after the first starts at the
    /// beat where the tracked tempo changes (``tempoChangeBeat(_:frames:near:reach:)``) within half
    /// of step 4a's window (``Configuration/BeatSettings/tempoRegimeWindowSeconds``) of its span's start.
    func passageBeats(_ times: [Double], frames: [Int], spans: [Range<Int>], frameRate: Double) -> [Range<Int>] {
        let reach = Int((configuration.beats.tempoRegimeWindowSeconds * frameRate / 2).rounded())
        let ends = spans.dropFirst().map { tempoChangeBeat(times, frames: frames, near: $0.lowerBound, reach: reach) } + [frames.count]
        var start = 0
        return ends.map { end in
            let range = start..<max(start, end)
            start = range.upperBound
            return range
        }
    }

    /// The index of the beat from which the tracked tempo changes near `frame` (a passage's start
    /// by step 4a, which is known to about a quarter of its window): the single change point of
    /// the log beat intervals between the beats within `reach` frames either side, the split that
    /// leaves the least squared deviation from each side's mean (least-squares change-point
    /// detection; J. Chen & A. K. Gupta, *Parametric Statistical Change Point Analysis*, 2012,
    /// ch. 2). The first beat from `frame` on when fewer than two intervals lie on either side.
    func tempoChangeBeat(_ times: [Double], frames: [Int], near frame: Int, reach: Int) -> Int {
        let fallback = frames.firstIndex { $0 >= frame } ?? frames.count
        let lower = frames.firstIndex { $0 >= frame - reach } ?? frames.count
        let upper = frames.lastIndex { $0 <= frame + reach } ?? -1
        // Intervals k (from beat k to k + 1) for k in lower..<upper.
        guard upper - lower >= 4, times.count == frames.count else { return fallback }
        let logs = (lower..<upper).map { log(max(1e-6, times[$0 + 1] - times[$0])) }
        func deviation(_ x: ArraySlice<Double>) -> Double {
            let mean = x.reduce(0, +) / Double(x.count)
            return x.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        }
        var best = fallback, bestCost = Double.infinity
        // A split at beat lower + j: intervals 0..<j on the left, j... on the right.
        for j in 2...(logs.count - 2) {
            let cost = deviation(logs[..<j]) + deviation(logs[j...])
            if cost < bestCost { bestCost = cost; best = lower + j }
        }
        return best
    }
}

extension RhythmAnalyzer {
    /// Step 10 per passage: with a tempo range (``Configuration/LevelSettings/foldedTempoRange``),
    /// each passage of another tempo (step 4a, `spans`, frames of `curve`) is folded into `range`
    /// on its own median tempo (``fold(_:into:beatFrames:curve:radius:)``), from the beat where the
    /// tracked tempo changes, so that every part of a medley or a mix lands in the range a DJ
    /// collection uses; the whole input is folded at once when there is one span. The meter is
    /// kept unless a passage cannot keep it; the reported tempo is the median beat interval of all
    /// the beats again.
    func foldPassages(
        _ result: RhythmResult, into range: ClosedRange<Double>, beatFrames: [Int], spans: [Range<Int>], frameRate: Double, curve: [Float],
        radius: Int
    ) -> RhythmResult {
        guard spans.count >= 2, result.beats.count == beatFrames.count else {
            return fold(result, into: range, beatFrames: beatFrames, curve: curve, radius: radius)
        }
        var out = result
        out.beats = []
        for beats in passageBeats(result.beats, frames: beatFrames, spans: spans, frameRate: frameRate) {
            let part = Array(result.beats[beats])
            guard let start = part.first, let stop = part.last else { continue }
            let interval = medianInterval(part)
            let piece = fold(
                RhythmResult(
                    beats: part, bars: result.bars.filter { $0 >= start && $0 <= stop }, beatsPerMinute: interval > 0 ? Float(60 / interval) : nil,
                    beatsPerBar: result.beatsPerBar),
                into: range, beatFrames: Array(beatFrames[beats]), curve: curve, radius: radius)
            out.beats += piece.beats
            if piece.beatsPerBar == nil { out.beatsPerBar = nil }
        }
        let interval = medianInterval(out.beats)
        out.beatsPerMinute = interval > 0 ? Float(60 / interval) : nil
        return out
    }
}
