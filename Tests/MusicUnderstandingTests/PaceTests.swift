import Foundation
import Testing
@testable import MusicUnderstanding

@Suite struct PaceTests {
    /// Time-weighted mean pace over `a ..< b`.
    func mean(_ pace: PaceResult, from a: Double, to b: Double) -> Double {
        var w = 0.0, s = 0.0
        for r in pace.ranges {
            let overlap = min(b, r.range.end) - max(a, r.range.start)
            if overlap > 0 { w += overlap; s += overlap * r.value }
        }
        return w > 0 ? s / w : 0
    }

    /// 120 BPM throughout: sparse (kick per bar), build-up (kick and snare per beat plus eighth
    /// hats), peak (sixteenth hats), breakdown (kick per bar again); 8 s each.
    @Test func paceRisesInABuildUpAndFallsInABreakdown() async throws {
        let s = 8.0
        var samples = ActivitySynth.drums(seconds: s, hatsPerBeat: 0, kickEvery: 4)
        samples += ActivitySynth.drums(seconds: s, hatsPerBeat: 2, kickEvery: 2)
        samples += ActivitySynth.drums(seconds: s, hatsPerBeat: 4, kickEvery: 1)
        samples += ActivitySynth.drums(seconds: s, hatsPerBeat: 0, kickEvery: 4)
        let result = try await ActivitySynth.analyze(samples, for: [.pace])
        let pace = try #require(result.pace)
        let sections = (0..<4).map { mean(pace, from: Double($0) * s + 1, to: Double($0 + 1) * s - 1) }
        #expect(sections[1] > 1.3 * sections[0], "\(sections)")
        #expect(sections[2] > 1.3 * sections[1], "\(sections)")
        #expect(sections[3] < 0.7 * sections[2], "\(sections)")
        // The peak section has sixteenth hats at 120 BPM: about 480 events per minute.
        #expect(sections[2] > 300 && sections[2] < 600, "\(sections)")
        checkContiguous(pace, duration: 4 * s)
    }

    /// Eighth-note drums for 12 s, then 4 s of silence (a song's tail): the last bars read like
    /// the others, since the silence after the last bar's end is a range of its own (merged into
    /// the last group it made the last 2 bars read about half as fast).
    @Test func silentTailDoesNotLowerTheLastBars() async throws {
        let samples = ActivitySynth.drums(seconds: 12, hatsPerBeat: 2, kickEvery: 2) + ActivitySynth.empty(4)
        let pace = try #require(try await ActivitySynth.analyze(samples, for: [.pace]).pace)
        checkContiguous(pace, duration: 16)
        let body = mean(pace, from: 1, to: 9), end = mean(pace, from: 9, to: 11.9)
        #expect(body > 150 && end > 0.85 * body, "body \(body), last bars \(end): \(pace.ranges)")
        #expect(mean(pace, from: 13, to: 16) < 0.2 * body, "\(pace.ranges)")
    }

    func checkContiguous(_ pace: PaceResult, duration: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!pace.ranges.isEmpty, sourceLocation: sourceLocation)
        #expect(abs((pace.ranges.first?.range.start ?? 1) - 0) < 1e-9, sourceLocation: sourceLocation)
        #expect(abs((pace.ranges.last?.range.end ?? 0) - duration) < 1e-6, sourceLocation: sourceLocation)
        for (a, b) in zip(pace.ranges, pace.ranges.dropFirst()) {
            #expect(abs(a.range.end - b.range.start) < 1e-9, sourceLocation: sourceLocation)
        }
        for r in pace.ranges { #expect(r.range.duration > 0 && r.value >= 0 && r.value.isFinite, sourceLocation: sourceLocation) }
    }

    @Test func silenceAndSineHaveZeroPaceAndCoverTheInput() async throws {
        let silent = try await ActivitySynth.analyze(ActivitySynth.empty(6), for: [.pace])
        let pace = try #require(silent.pace)
        checkContiguous(pace, duration: 6)
        #expect(pace.ranges.allSatisfy { $0.value == 0 })
        // A steady tone has no events between its start, which is an onset (kept since onsets at
        // t = 0 are no longer lost), and its end (the spectral spread of a cut reads as one).
        let sine = try #require(try await ActivitySynth.analyze(ActivitySynth.sine(seconds: 6), for: [.pace]).pace)
        checkContiguous(sine, duration: 6)
        #expect(mean(sine, from: 0.5, to: 6) <= 20, "\(sine.ranges)")
    }

    @Test func boundariesFromBarsAndWindows() {
        let analyzer = PaceAnalyzer()
        let bars = RhythmResult(beats: [], bars: stride(from: 0.5, to: 20, by: 2).map { $0 }, beatsPerMinute: 120)
        let edges = analyzer.boundaries(duration: 20, rhythm: bars)
        #expect(edges.first == 0 && edges.last == 20)
        #expect(zip(edges, edges.dropFirst()).allSatisfy { $0 < $1 })
        // A long stretch before the first bar is cut into windows, not one 29 s range.
        let late = analyzer.boundaries(duration: 60, rhythm: RhythmResult(beats: [], bars: stride(from: 29.3, to: 50, by: 2).map { $0 }, beatsPerMinute: 120))
        #expect(zip(late, late.dropFirst()).allSatisfy { $1 - $0 <= 7.5 && $1 > $0 }, "\(late)")
        #expect(late.first == 0 && late.last == 60 && late.contains(29.3))
        let windows = analyzer.boundaries(duration: 12, rhythm: nil)
        #expect(windows == [0, 6, 12])
        // The silent tail after the last bar's end is its own range: the last bar's events are
        // not spread over it.
        let tail = analyzer.boundaries(duration: 24, rhythm: bars)
        #expect(tail.contains(20.5) && tail.last == 24, "\(tail)")
        // A lead-in is its own range too.
        #expect(edges.prefix(2) == [0, 0.5], "\(edges)")
        let hostile = RhythmResult(beats: [.nan], bars: [.nan, -.infinity, 3, 3, 50], beatsPerMinute: nil)
        let safe = analyzer.boundaries(duration: 10, rhythm: hostile)
        #expect(safe.first == 0 && safe.last == 10)
        #expect(analyzer.boundaries(duration: .nan, rhythm: nil).isEmpty)
        #expect(analyzer.boundaries(duration: 1e12, rhythm: nil).count <= 1_000_002)
        #expect(analyzer.analyze(SharedFeatures(duration: 0), rhythm: nil).ranges.isEmpty)
        #expect(analyzer.quantised([0.1, 0.11, 0.6], beats: [0, 0.5, 1.0]).count == 2)
    }

    /// Loud kicks on the beats and soft hi-hats between them: in the broadband flux the hats
    /// are under the salience floor (5 % of the kicks' strength); in the high band, where the
    /// kicks put nothing, they are the salient events and count.
    @Test func highBandEventsRecoverHatsMaskedByALoudMix() {
        let rate = 86.13, seconds = 8.0
        let n = Int(seconds * rate)
        var broad = [Float](repeating: 0.05, count: n), high = [Float](repeating: 0.01, count: n)
        var beat = 0.25
        while beat < seconds - 0.5 {
            broad[Int((beat * rate).rounded())] = 20
            let hat = Int(((beat + 0.25) * rate).rounded())
            broad[hat] = 1
            high[hat] = 1
            beat += 0.5
        }
        let onset = OnsetFeatures(frameRate: rate, strength: broad, energy: [Float](repeating: 1, count: n),
                                  highStrength: high)
        var without = PaceAnalyzer.Configuration()
        without.highBandEvents = false
        let kicks = PaceAnalyzer(configuration: without).events(onset)
        let all = PaceAnalyzer().events(onset)
        #expect(kicks.count == 15, "\(kicks.count) events without the high band")
        #expect(all.count == 30, "\(all.count) events with it")
        // No curve of the high band: the broadband events alone.
        let plain = OnsetFeatures(frameRate: rate, strength: broad, energy: [Float](repeating: 1, count: n))
        #expect(PaceAnalyzer().events(plain).count == 15)
    }
}
