import Foundation
import Testing

@testable import MusicUnderstanding

/// The tempo-octave step (`OctaveVote.swift`): window votes, the isochrony test and the phase of
/// halved beats, on synthesised curves with known answers.
@Suite struct OctaveVoteTests {
    /// Frames per second of the synthesised onset curves (the analysis' own rate).
    static let fps = 44_100.0 / 256

    /// An onset curve of `seconds` with a pulse of `period` seconds: value `accent(k)` at the
    /// `k`-th pulse, 0 elsewhere.
    static func pulses(seconds: Double, period: Double, accent: (Int) -> Float = { _ in 1 }) -> [Float] {
        var curve = [Float](repeating: 0, count: Int(seconds * fps))
        var k = 0
        while Double(k) * period + 0.2 < seconds {
            let i = Int(((Double(k) * period + 0.2) * fps).rounded())
            if i < curve.count { curve[i] = accent(k) }
            k += 1
        }
        return curve
    }

    /// A steady pulse at 120 BPM wins the vote over its half and double periods: its comb holds
    /// every multiple, the faster level's misses every other one, and the Rayleigh prior (peak
    /// 0.5 s) weighs against the slower one.
    @Test func votesPreferTheTappedLevelOfA120BPMPulse() throws {
        let curve = Self.pulses(seconds: 30, period: 0.5)
        let votes = try #require(
            OctaveVote(preferredPeriod: 0.4993).votes(curve, frameRate: Self.fps, minimumBPM: 40, maximumBPM: 240))
        let beat = try #require(votes.score(period: 0.5))
        let faster = try #require(votes.score(period: 0.25))
        let slower = try #require(votes.score(period: 1.0))
        #expect(beat > faster)
        #expect(beat > slower)
        // A curve shorter than one 6-s window has no votes.
        #expect(OctaveVote(preferredPeriod: 0.4993).votes(Array(curve.prefix(500)), frameRate: Self.fps, minimumBPM: 40, maximumBPM: 240) == nil)
    }

    /// Strong events every 0.6 s with a weak one halfway between: the stream pulses every 0.3 s
    /// (200 BPM), and the votes go to the accented 0.6-s level (100 BPM); an even stream at 0.4 s
    /// (150 BPM) keeps its own level.
    @Test func votesFollowTheAccentsNotTheFastestPulse() throws {
        let vote = OctaveVote(preferredPeriod: 0.4993)
        let accented = Self.pulses(seconds: 30, period: 0.3) { $0 % 2 == 0 ? 1 : 0.3 }
        let fast = try #require(vote.votes(accented, frameRate: Self.fps, minimumBPM: 40, maximumBPM: 240))
        let slowScore = try #require(fast.score(period: 0.6))
        let fastScore = try #require(fast.score(period: 0.3))
        #expect(slowScore > fastScore)
        let even = Self.pulses(seconds: 30, period: 0.4)
        let moderate = try #require(vote.votes(even, frameRate: Self.fps, minimumBPM: 40, maximumBPM: 240))
        let own = try #require(moderate.score(period: 0.4))
        let double = try #require(moderate.score(period: 0.8))
        #expect(own > double)
    }

    /// Identical beats have no accent variation; beats alternating 1 and 0.5 have 1/3.
    @Test func accentVariationOfAlikeAndAlternatingBeats() {
        let analyzer = RhythmAnalyzer()
        let frames = Array(stride(from: 20, to: 2_000, by: 50))
        let alike = Self.pulses(seconds: 12, period: 50 / Self.fps)
        #expect(analyzer.accentVariation(frames.map { $0 - 20 + Int((0.2 * Self.fps).rounded()) }, curve: alike, radius: 2) < 0.01)
        var alternating = [Float](repeating: 0, count: 2_100)
        for (k, f) in frames.enumerated() { alternating[f] = k % 2 == 0 ? 1 : 0.5 }
        #expect(abs(analyzer.accentVariation(frames, curve: alternating, radius: 2) - 1.0 / 3) < 1e-6)
    }

    /// Halving keeps the beats on which the harmony changes (here the odd ones), whatever the
    /// downbeats say; without harmonic change it keeps the phase that holds the downbeats.
    @Test func halvingKeepsThePhaseWhereTheHarmonyChanges() {
        let analyzer = RhythmAnalyzer()
        let frames = Array(stride(from: 100, to: 1_700, by: 100))
        let times = frames.map { Double($0) / 100 }
        // Harmonic change at 10 blocks per second: a change at every odd beat.
        var change = [Float](repeating: 0, count: 200)
        for (k, f) in frames.enumerated() where k % 2 == 1 { change[f / 10] = 1 }
        var t1 = times
        var b1 = RhythmAnalyzer.TrackedBeats(frames: frames, radius: 2)
        analyzer.halve(
            &t1, beats: &b1, frameRate: 100, harmonicChange: change, harmonicRate: 10, downbeatIndices: [0, 4],
            curve: [Float](repeating: 0, count: 1_800))
        #expect(t1 == stride(from: 1, to: times.count, by: 2).map { times[$0] })
        #expect(b1.frames == stride(from: 1, to: frames.count, by: 2).map { frames[$0] })
        // No harmonic change: the downbeats (beats 0, 4, 8) choose the even phase.
        var t2 = times
        var b2 = RhythmAnalyzer.TrackedBeats(frames: frames, radius: 2)
        analyzer.halve(
            &t2, beats: &b2, frameRate: 100, harmonicChange: [], harmonicRate: 0, downbeatIndices: [0, 4, 8],
            curve: [Float](repeating: 0, count: 1_800))
        #expect(t2 == stride(from: 0, to: times.count, by: 2).map { times[$0] })
    }

    /// A chord change is counted for every beat within about a block of the time it belongs to
    /// (the start of its block), before or after it alike: one change 0.13 s after an even beat
    /// and 0.13 s before an odd one counts for both phases, and one 0.25 s from either for neither.
    @Test func harmonicChangeCountsEquallyBeforeAndAfterABeat() {
        let analyzer = RhythmAnalyzer()
        var change = [Float](repeating: 0, count: 40)
        change[10] = 1  // blocks of 0.1 s: the change at 0.95 s
        let near = analyzer.changeByPhase([82, 108], frameRate: 100, harmonicChange: change, harmonicRate: 10)
        #expect(near == [1, 1], "\(near)")
        let far = analyzer.changeByPhase([70, 120], frameRate: 100, harmonicChange: change, harmonicRate: 10)
        #expect(far == [0, 0], "\(far)")
    }

    /// With the votes off the step never halves: the chain's other steps decide alone.
    @Test func votesOffNeverPreferTheSlowerLevel() {
        var configuration = RhythmAnalyzer.Configuration()
        configuration.level.octaveVoting = false
        let accented = Self.pulses(seconds: 30, period: 0.3) { $0 % 2 == 0 ? 1 : 0.3 }
        let on = RhythmAnalyzer().votesForSlowerLevel(VotingCurve(accented, frameRate: Self.fps, analyzer: RhythmAnalyzer()), beatsPerMinute: 200)
        let analyzer = RhythmAnalyzer(configuration: configuration)
        let off = analyzer.votesForSlowerLevel(VotingCurve(accented, frameRate: Self.fps, analyzer: analyzer), beatsPerMinute: 200)
        #expect(on)
        #expect(!off)
    }

    /// Two passages in one input (step 4a): the first pulses every 0.3 s with every other pulse
    /// weak (its votes go to the 0.6-s level), the second every 0.4 s in threes (its votes keep
    /// 0.4 s). Each passage is halved or kept on its own votes: the first loses every other beat,
    /// the second keeps all of its beats.
    @Test func eachPassageVotesOnItsOwnLevel() throws {
        let fps = Self.fps
        let first = Self.pulses(seconds: 30, period: 0.3) { $0 % 2 == 0 ? 1 : 0.3 }
        let second = Self.pulses(seconds: 30, period: 0.4) { $0 % 3 == 0 ? 1 : 0.6 }
        let curve = first + second
        let frames = curve.indices.filter { curve[$0] > 0 }
        var times = frames.map { Double($0) / fps }
        var beats = RhythmAnalyzer.TrackedBeats(frames: frames, radius: 2)
        let analyzer = RhythmAnalyzer()
        let voting = VotingCurve(curve, frameRate: fps, analyzer: analyzer)
        let spans = analyzer.passageSpans([.init(frame: 0, ratio: 1), .init(frame: first.count, ratio: 0.75)], count: curve.count)
        #expect(spans == [0..<first.count, first.count..<curve.count])
        let halved = analyzer.halvePassages(
            &times, beats: &beats, spans: spans, voting: voting, beatsPerBar: 4, downbeatIndices: [], frameRate: fps,
            harmonicChange: [], harmonicRate: 0, curve: curve)
        #expect(halved)
        let firstBefore = frames.filter { $0 < first.count }.count, secondBefore = frames.count - firstBefore
        let firstAfter = beats.frames.filter { $0 < first.count }.count, secondAfter = beats.frames.count - firstAfter
        #expect(abs(firstAfter - firstBefore / 2) <= 1, "\(firstAfter) of \(firstBefore)")
        #expect(secondAfter == secondBefore)
        // The strong pulses are the ones kept.
        #expect(beats.frames.filter { $0 < first.count }.allSatisfy { curve[$0] == 1 })
        #expect(times.count == beats.frames.count)
        // One input without passages has no spans.
        #expect(analyzer.passageSpans([], count: curve.count).isEmpty)
        #expect(analyzer.passageSpans([.init(frame: 0, ratio: 1)], count: curve.count).isEmpty)
    }

    /// A passage's first beat is where the beat intervals change, even when step 4a puts its start
    /// 3 s late: 40 beats 0.5 s apart, then 0.4 s apart; too few beats near it keep the frame.
    @Test func passageStartsWhereTheIntervalsChange() {
        let analyzer = RhythmAnalyzer()
        let slow: [Double] = (0..<40).map { Double($0) * 0.5 }
        let fast: [Double] = (0..<40).map { 20 + Double($0) * 0.4 }
        let times = slow + fast
        let frames: [Int] = times.map { Int(($0 * 100).rounded()) }
        #expect(analyzer.tempoChangeBeat(times, frames: frames, near: 2_300, reach: 1_000) == 40)
        #expect(analyzer.tempoChangeBeat(times, frames: frames, near: 1_700, reach: 1_000) == 40)
        // A reach that holds fewer than two intervals either side: the first beat from the frame.
        #expect(analyzer.tempoChangeBeat(times, frames: frames, near: 2_300, reach: 60) == frames.firstIndex { $0 >= 2_300 })
    }

    /// Votes restricted to a span hear only the windows inside it: over the first half of a curve
    /// whose halves pulse at 0.3 s (every other pulse weak) and at 0.4 s (in threes), the 0.6-s
    /// level wins; over the second half, the 0.4-s level (each against the other too); a span
    /// shorter than one window has none.
    @Test func votesOfASpanHearOnlyItsWindows() throws {
        let first = Self.pulses(seconds: 30, period: 0.3) { $0 % 2 == 0 ? 1 : 0.3 }
        let second = Self.pulses(seconds: 30, period: 0.4) { $0 % 3 == 0 ? 1 : 0.6 }
        let curve = first + second
        let vote = OctaveVote(preferredPeriod: 0.4993)
        let early = try #require(vote.votes(curve, frameRate: Self.fps, minimumBPM: 40, maximumBPM: 240, span: 0..<first.count))
        let late = try #require(vote.votes(curve, frameRate: Self.fps, minimumBPM: 40, maximumBPM: 240, span: first.count..<curve.count))
        #expect(early.prefer(period: 0.6, to: 0.3))
        #expect(late.prefer(period: 0.4, to: 0.8))
        // The two spans disagree, so neither heard the other's windows.
        #expect(early.prefer(period: 0.6, to: 0.4))
        #expect(late.prefer(period: 0.4, to: 0.6))
        #expect(vote.votes(curve, frameRate: Self.fps, minimumBPM: 40, maximumBPM: 240, span: 100..<900) == nil)
    }

    /// Degenerate inputs to the per-passage step neither crash nor change anything: no beats, beats
    /// all in one passage, times and frames of different lengths, non-finite times.
    @Test func passageStepToleratesDegenerateInput() {
        let analyzer = RhythmAnalyzer()
        let curve = Self.pulses(seconds: 60, period: 0.5)
        let voting = VotingCurve(curve, frameRate: Self.fps, analyzer: analyzer)
        let spans = [0..<(curve.count / 2), (curve.count / 2)..<curve.count]
        func run(_ times: [Double], _ frames: [Int]) -> (Bool, [Double], [Int]) {
            var t = times
            var beats = RhythmAnalyzer.TrackedBeats(frames: frames, radius: 2)
            let changed = analyzer.halvePassages(
                &t, beats: &beats, spans: spans, voting: voting, beatsPerBar: 4, downbeatIndices: [0, 4, 99], frameRate: Self.fps,
                harmonicChange: [], harmonicRate: 0, curve: curve)
            return (changed, t, beats.frames)
        }
        #expect(run([], []) == (false, [], []))
        let early = (0..<20).map { 0.2 + Double($0) * 0.5 }
        let frames = early.map { Int(($0 * Self.fps).rounded()) }
        #expect(run(early, frames) == (false, early, frames))
        #expect(run(early, Array(frames.dropLast())).0 == false)
        let broken = early.map { $0 == 5.2 ? Double.nan : $0 }
        #expect(run(broken, frames).0 == false)
        #expect(analyzer.tempoChangeBeat(broken, frames: frames, near: frames[10], reach: 2_000) <= frames.count)
    }

    /// A tempo range folds each passage on its own: 30 s at 86 BPM (0.7 s) then 30 s at 150 BPM
    /// (0.4 s), folded into 100-200 BPM. The whole input's median tempo (150) is in the range, so
    /// one fold for all leaves the first part at 86; per passage, the first part is doubled and
    /// the second kept.
    @Test func tempoRangeFoldsEachPassage() {
        let slow = stride(from: 0.0, to: 30, by: 0.7).map { $0 }
        let fast = stride(from: 30.1, to: 60, by: 0.4).map { $0 }
        let beats = slow + fast
        let frames = beats.map { Int(($0 * 100).rounded()) }
        let bars = stride(from: 0, to: beats.count, by: 4).map { beats[$0] }
        let result = RhythmResult(beats: beats, bars: bars, beatsPerMinute: 150, beatsPerBar: 4)
        let analyzer = RhythmAnalyzer()
        let spans = [0..<3_000, 3_000..<6_000]
        func intervals(_ r: RhythmResult, within: ClosedRange<Double>) -> [Double] {
            let t = r.beats.filter { within.contains($0) }
            return zip(t, t.dropFirst()).map { $1 - $0 }
        }
        let whole = analyzer.fold(result, into: 100...200, beatFrames: frames, curve: [], radius: 2)
        #expect(intervals(whole, within: 2...25).allSatisfy { abs($0 - 0.7) < 1e-9 })
        let folded = analyzer.foldPassages(result, into: 100...200, beatFrames: frames, spans: spans, frameRate: 100, curve: [], radius: 2)
        #expect(intervals(folded, within: 2...25).allSatisfy { abs($0 - 0.35) < 1e-9 })
        #expect(intervals(folded, within: 35...58).allSatisfy { abs($0 - 0.4) < 1e-9 })
        #expect(folded.bars == bars && folded.beatsPerBar == 4)
        // One span: the whole-input fold.
        let once = analyzer.foldPassages(result, into: 100...200, beatFrames: frames, spans: [], frameRate: 100, curve: [], radius: 2)
        #expect(once.beats == whole.beats && once.beatsPerMinute == whole.beatsPerMinute)
    }
}
