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
        let onset = OnsetFeatures(
            frameRate: rate, strength: broad, energy: [Float](repeating: 1, count: n),
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

    /// Auditory induction: an empty slot between two bars that hold an event there is restored
    /// when something at least as loud sounds in it (a hat under a crash), not when it is quieter
    /// (a rest).
    @Test func maskedEventsOfAPatternAreRestoredAndRestsAreNot() {
        let rate = 100.0
        // Slots every 0.125 s, 8 per bar; events on every other slot, except slot 10 (masked:
        // loud) and slot 12 (a rest: quiet).
        let slots = (0..<32).map { Double($0) * 0.125 }
        var occupied = slots.indices.map { $0 % 2 == 0 }
        occupied[10] = false
        occupied[12] = false
        var level = [Float](repeating: 1, count: 400)
        for i in 0..<32 where i % 2 == 0 { level[Int(slots[i] * rate)] = 3 }
        for f in 120...135 { level[f] = 5 }  // a crash ringing over slot 10 (t = 1.25 s)
        for f in 145...155 { level[f] = 0.5 }  // silence at slot 12 (t = 1.5 s)
        let analyzer = PaceAnalyzer()
        let out = analyzer.restoringMaskedEvents(occupied, slots: slots, period: 8, levels: [level], rate: rate)
        #expect(out[10], "masked slot restored")
        #expect(!out[12], "rest stays empty")
        #expect(zip(out, occupied).enumerated().allSatisfy { $0.offset == 10 || $0.element.0 == $0.element.1 })
        // Odd slots are empty in every bar: no pattern there, nothing restored even under the crash.
        #expect(!out[9] && !out[11])
        // The pattern's event one slot late (slot 23 instead of 22) is that event: slot 22 stays
        // empty however loud it is there (restoring it would count the event twice).
        var jitter = occupied
        jitter[22] = false
        jitter[23] = true
        for f in 270...290 { level[f] = 5 }
        let late = analyzer.restoringMaskedEvents(jitter, slots: slots, period: 8, levels: [level], rate: rate)
        #expect(!late[22] && late[23])
        var anyway = PaceAnalyzer.Configuration()
        anyway.restoresOnlyIsolatedSlots = false
        #expect(PaceAnalyzer(configuration: anyway).restoringMaskedEvents(jitter, slots: slots, period: 8, levels: [level], rate: rate)[22])
        #expect(PaceAnalyzer.beatsPerBar(beats: stride(from: 0, to: 12, by: 0.5).map { $0 }, bars: [0, 1.5, 3, 4.5, 6]) == 3)
        #expect(PaceAnalyzer.beatsPerBar(beats: [], bars: [0, 2]) == nil)
    }

    /// Eighth-note hats, kick and snare at 120 BPM with a loud crash (noise decaying over about
    /// a second) at 8 s: the hats under it are heard as continuing, so those bars read
    /// like the others.
    @Test func hatsUnderACrashCount() async throws {
        var samples = ActivitySynth.drums(seconds: 16, hatsPerBeat: 2, kickEvery: 2)
        var noise = ActivitySynth.Noise()
        let rate = ActivitySynth.rate
        var previous: Float = 0
        for bar in [4] {  // 8 s (2 s bars)
            let at = Int(Double(bar) * 2 * rate)
            for i in 0..<Int(2.0 * rate) where at + i < samples.count {
                let x = noise.next()
                samples[at + i] += 0.6 * Float(exp(-Double(i) / rate / 0.8)) * (x - previous)
                previous = x
            }
        }
        var off = AnalysisConfiguration()
        off.pace.restoresMaskedEvents = false
        let with = try #require(try await ActivitySynth.analyze(samples, for: [.pace]).pace)
        let without = try #require(try await ActivitySynth.analyze(samples, for: [.pace], configuration: off).pace)
        let body = mean(with, from: 2, to: 8), crash = mean(with, from: 8, to: 10)
        #expect(crash > 0.9 * body, "with restoration: body \(body), crash bar \(crash); without: \(mean(without, from: 8, to: 10))")
        // Without the restoration the crash hides about a quarter of the events (180 against 240).
        #expect(mean(without, from: 8, to: 10) < 0.9 * crash)
    }

    /// Events on a sixteenth grid at 120 BPM with 2 ms of jitter, and between them a few events
    /// that keep no time with it (speech over a track): those are left out. A swung eighth (at
    /// two thirds of the beat) in every beat is a phase the track favours and stays, and a
    /// loosely timed performance keeps every event (the tolerance widens with its spread).
    @Test func eventsOffTheGridAreLeftOutOnlyWhereTheTrackKeepsTime() {
        let analyzer = PaceAnalyzer()
        let beats = stride(from: 0.0, through: 16, by: 0.5).map { $0 }
        var slots: [Double] = [], slotBeats: [Int] = []
        for b in 0..<(beats.count - 1) {
            for j in 0..<4 { slots.append(beats[b] + 0.125 * Double(j)); slotBeats.append(b) }
        }
        func snap(_ times: [Double]) -> [(slot: Int, time: Double)] {
            times.map { t in (slots.indices.min { abs(slots[$0] - t) < abs(slots[$1] - t) } ?? 0, t) }
        }
        var generator = SplitMix64(seed: 9)
        // Sixteenth events on beats 0 ..< 30, 2 ms jitter; swung eighths at 2/3 of each beat.
        var times: [Double] = []
        for b in 0..<30 {
            for j in [0, 2] { times.append(beats[b] + 0.125 * Double(j) + Double.random(in: -0.002...0.002, using: &generator)) }
            times.append(beats[b] + 0.5 * 2 / 3 + Double.random(in: -0.002...0.002, using: &generator))
        }
        let strays = [1.175, 5.05, 9.425, 12.2]  // 0.35, 0.1, 0.85 and 0.4 of the beat: 0.4 of a slot off the grid
        let events = snap((times + strays).sorted())
        let kept = analyzer.onGrid(events, slots: slots, slotBeats: slotBeats, beats: beats)
        let keptTimes = Set(zip(events, kept).filter { $0.1 }.map { $0.0.time })
        #expect(strays.allSatisfy { !keptTimes.contains($0) }, "strays kept")
        #expect(times.allSatisfy { keptTimes.contains($0) }, "\(times.filter { !keptTimes.contains($0) }) dropped")
        // A loose performance: every event up to 30 % of a slot off its place.
        let loose = (0..<120).map { i in slots[i] + Double.random(in: -0.0375...0.0375, using: &generator) } + strays
        let looseEvents = snap(loose.sorted())
        let looseKept = analyzer.onGrid(looseEvents, slots: slots, slotBeats: slotBeats, beats: beats)
        #expect(looseKept.filter { !$0 }.count <= 2, "\(looseKept.filter { !$0 }.count) of a loose performance dropped")
        // Switched off, everything counts.
        var off = PaceAnalyzer.Configuration()
        off.rejectsOffGridEvents = false
        #expect(
            PaceAnalyzer(configuration: off).quantised(strays + times, beats: beats).count
                > analyzer.quantised(strays + times, beats: beats).count)
    }

    /// An empty slot whose place is salient in the median bar around it (the same slot of the 3
    /// bars before and after and its own) counts when a softer onset is heard there; not without
    /// an onset, not where the pattern is soft in most bars, not next to an occupied slot.
    @Test func expectedEventsOfAPatternCountWhenHeard() {
        let analyzer = PaceAnalyzer()
        let period = 8
        // Even slots hold the pattern (salience 2, events), odd slots are quiet (0.1).
        var occupied = (0..<(10 * period)).map { $0 % 2 == 0 }
        var salience = occupied.map { $0 ? Float(2) : 0.1 }
        let soft = 4 * period + 2, silent = 5 * period + 4, late = 6 * period + 6
        occupied[soft] = false; salience[soft] = 0.5  // under the floor, heard
        occupied[silent] = false; salience[silent] = 0.05  // nothing there
        occupied[late] = false; occupied[late + 1] = true  // the pattern's event, a slot late
        let out = analyzer.restoringExpectedEvents(occupied, period: period, salience: salience)
        #expect(out[soft], "expected and heard")
        #expect(!out[silent], "expected but silent")
        #expect(!out[late], "the pattern's event is the late one next to it")
        #expect(out.enumerated().allSatisfy { $0.offset == soft || $0.element == occupied[$0.offset] })
        // Quarter notes (every fourth slot): a soft onset at slot 2 of a bar, a place that is quiet
        // in the other bars, is not expected.
        let quarters = (0..<(10 * period)).map { $0 % 4 == 0 }
        var between = quarters.map { $0 ? Float(2) : 0.1 }
        between[3 * period + 2] = 0.5
        #expect(!analyzer.restoringExpectedEvents(quarters, period: period, salience: between)[3 * period + 2])
        between[3 * period + 2] = 0.1
        for b in 0..<10 where b != 3 { between[b * period + 2] = 1 }  // salient there in every other bar
        between[3 * period + 2] = 0.5
        #expect(analyzer.restoringExpectedEvents(quarters, period: period, salience: between)[3 * period + 2])
        // Where the soft hat is soft in most bars (a pattern under the floor in 4 of 7) the place
        // is not salient in the median bar; one loud bar does not make it so.
        var faint = salience
        for b in 1...9 { faint[b * period + 2] = b == 4 ? 0.5 : (b % 2 == 0 ? 0.6 : 3) }
        var gaps = occupied
        for b in 1...9 { gaps[b * period + 2] = b % 2 == 1 }
        let mixed = analyzer.restoringExpectedEvents(gaps, period: period, salience: faint)
        #expect(mixed[4 * period + 2], "salient in 4 of the 7 bars around it")
        for b in [2, 4, 6, 8] { faint[b * period + 2] = 0.5 }
        faint[3 * period + 2] = 0.6; faint[5 * period + 2] = 0.6
        #expect(!analyzer.restoringExpectedEvents(gaps, period: period, salience: faint)[4 * period + 2], "soft in most bars")
        var looser = PaceAnalyzer.Configuration()
        looser.patternSalience = 0.5
        #expect(PaceAnalyzer(configuration: looser).restoringExpectedEvents(gaps, period: period, salience: faint)[4 * period + 2])
    }
}
