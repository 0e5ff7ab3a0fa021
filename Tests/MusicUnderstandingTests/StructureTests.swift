import Foundation
import Testing
@testable import MusicUnderstanding

@Suite struct StructureTests {
    /// The structural features' units: beats longer than `maximumUnitSeconds` are halved until
    /// they are not (at most three times); shorter beats are kept as they are.
    @Test func slowBeatsAreSubdividedIntoUnits() {
        let slow = stride(from: 0.0, through: 8.0, by: 0.8).map { $0 }
        let halved = StructureAnalyzer.subdivided(slow, longest: 0.6)
        #expect(halved.count == 2 * slow.count - 1)
        #expect(zip(halved.dropFirst(), halved).allSatisfy { abs($0 - $1 - 0.4) < 1e-9 })
        let verySlow = stride(from: 0.0, through: 16.0, by: 1.6).map { $0 }
        let twice = StructureAnalyzer.subdivided(verySlow, longest: 0.6)
        #expect(zip(twice.dropFirst(), twice).allSatisfy { abs($0 - $1 - 0.4) < 1e-9 })
        let fast = stride(from: 0.0, through: 8.0, by: 0.5).map { $0 }
        #expect(StructureAnalyzer.subdivided(fast, longest: 0.6) == fast)
        // Three halvings at most: 8 s beats end at 1 s units.
        let bars = [0.0, 8, 16, 24]
        let capped = StructureAnalyzer.subdivided(bars, longest: 0.6)
        #expect(capped.count == 25)
        #expect(StructureAnalyzer.subdivided([], longest: 0.6).isEmpty)
    }

    /// The mutual nearest-neighbour plot keeps each frame's `share · n` nearest frames, ties at
    /// the k-th distance taken in index order (as a stable sort of the frames would), on frames
    /// of few distinct values (many tied distances).
    @Test func recurrenceKeepsTheNearestWithTiesInIndexOrder() {
        var g = FeatureSynth.Noise(state: 21)
        for n in [5, 9, 30, 61] {
            let d = 2
            let x = (0..<(n * d)).map { _ in ((g.next() + 1) * 2).rounded() }
            let share = 0.2
            let r = StructuralFeatures.recurrence(x, count: n, dimension: d, share: share)
            let k = min(n - 1, max(1, Int(share * Double(n))))
            func distance(_ i: Int, _ j: Int) -> Float {
                (0..<d).reduce(Float(0)) { $0 + (x[i * d + $1] - x[j * d + $1]) * (x[i * d + $1] - x[j * d + $1]) }
            }
            // Reference: a stable sort of the other frames by distance, its first k.
            var nearest = [Set<Int>]()
            for i in 0..<n {
                let others = (0..<n).filter { $0 != i }.enumerated().sorted {
                    distance(i, $0.element) != distance(i, $1.element)
                        ? distance(i, $0.element) < distance(i, $1.element) : $0.offset < $1.offset
                }
                nearest.append(Set(others.prefix(k).map(\.element)))
            }
            for i in 0..<n {
                for j in 0..<n {
                    let mutual: Float = nearest[i].contains(j) && nearest[j].contains(i) ? 1 : 0
                    #expect(r[i * n + j] == mutual, "n \(n): \(i), \(j)")
                }
            }
        }
    }

    /// The Gaussian smoothing of the time-lag matrix, which skips the plot's zeros, gives the
    /// dense sums bit for bit: on sparse binary plots, on signed values, and on plots narrower
    /// than the kernels (reflected more than once).
    @Test func lagSmoothingEqualsTheDenseSums() {
        var g = FeatureSynth.Noise(state: 22)
        let features = StructuralFeatures()
        for (n, signed) in [(3, false), (12, false), (40, true), (130, false)] {
            let r: [Float] = (0..<(n * n)).map { _ in
                let u = g.next()
                return signed ? (u * 4).rounded() / 4 : (u > 0.8 ? 1 : 0)
            }
            let time = StructuralFeatures.kernel(sigma: features.settings.timeSigma)
            let across = StructuralFeatures.kernel(sigma: features.settings.lagSigma)
            var lag = [Float](repeating: 0, count: n * n)
            for i in 0..<n { for l in 0..<n { lag[i * n + l] = r[i * n + (i + l) % n] } }
            var smoothed = [Float](repeating: 0, count: n * n)
            for i in 0..<n {
                for (t, w) in time.enumerated() where w > 0 {
                    let src = Smoothing.reflect(i + t - time.count / 2, n)
                    for l in 0..<n { smoothed[i * n + l] += w * lag[src * n + l] }
                }
            }
            var expected = [Float](repeating: 0, count: n * n)
            for i in 0..<n {
                for l in 0..<n {
                    var s: Float = 0
                    for (t, w) in across.enumerated() { s += w * smoothed[i * n + Smoothing.reflect(l + t - across.count / 2, n)] }
                    expected[i * n + l] = s
                }
            }
            #expect(features.lagSmoothed(r, count: n) == expected, "n \(n)")
        }
    }

    @Test func ababcbFromBarFeatures() {
        let features = StructureFixture.bars(form: "ABABCB")
        let edges = StructureFixture.edges(count: 48)
        let r = StructureAnalyzer().analyze(features, edges: edges)
        StructureFixture.checkProperties(r, end: 96, grid: edges)
        #expect(r.sections.map(\.start) == [0, 16, 32, 48, 64, 80])
        #expect(StructureFixture.labelString(r) == "ABABCB")
        // The repeated part that occurs most is the chorus; the one-off late part the bridge.
        #expect(r.sectionFunctions?[1] == "chorus")
        #expect(r.sectionFunctions?[4] == "bridge")
    }

    @Test func aabaFromBarFeatures() {
        let features = StructureFixture.bars(form: "AABA")
        let edges = StructureFixture.edges(count: 32)
        let r = StructureAnalyzer().analyze(features, edges: edges)
        StructureFixture.checkProperties(r, end: 64, grid: edges)
        // Two identical A parts in a row have no boundary evidence between them; the B part's
        // boundaries must be found, and the A material labelled alike on both sides.
        let starts = r.sections.map(\.start)
        #expect(starts.contains(32) && starts.contains(48))
        let labels = r.sectionLabels ?? []
        if let b = starts.firstIndex(of: 32), b > 0, b + 1 < labels.count {
            #expect(labels[b - 1] == labels[b + 1])
            #expect(labels[b] != labels[b - 1])
        }
    }

    @Test func audioABABThroughASession() async throws {
        let samples = StructureFixture.audio(form: "ABAB")
        let session = MusicUnderstandingSession(audioProvider: StructureFixture.provider(samples))
        let result = try await session.analyze(for: [.rhythm, .structure])
        let structure = try #require(result.structure)
        let rhythm = try #require(result.rhythm)
        let duration = Double(samples.count) / 22_050
        StructureFixture.checkProperties(structure, end: duration, grid: rhythm.bars)
        // Boundaries at 16, 32, 48 s, within a beat (0.5 s).
        let interior = structure.sections.dropFirst().map(\.start)
        for truth in [16.0, 32.0, 48.0] {
            #expect(interior.contains { abs($0 - truth) <= 0.5 }, "no section boundary near \(truth) s: \(interior) \(structure.sections.map(\.start))")
        }
        let labels = StructureFixture.labelString(structure)
        #expect(
            labels.count == 4 && labels.first == labels.dropFirst(2).first && labels.dropFirst().first == labels.last,
            "labels \(labels)")
    }

    /// The ABAB piece with 1.5 s of digital silence before it and 2.5 s after: the silence at
    /// each end is a section (and a segment and a phrase) of its own, with the function
    /// `silence` and one label that no part of the music has; the parts are found as without
    /// the silence; with `structure.silenceDepth` 0 the ends belong to the first and last part.
    @Test func silentEndsAreSectionsOfTheirOwn() async throws {
        let rate = 22_050.0, lead = 1.5, tail = 2.5
        let music = StructureFixture.audio(form: "ABAB")
        let samples = [Float](repeating: 0, count: Int(lead * rate)) + music + [Float](repeating: 0, count: Int(tail * rate))
        let duration = Double(samples.count) / rate, musicEnd = duration - tail
        for depth in [50.0, 0] {
            var configuration = AnalysisConfiguration()
            configuration.structure.silenceDepth = depth
            let session = MusicUnderstandingSession(audioProvider: StructureFixture.provider(samples), configuration: configuration)
            let result = try await session.analyze(for: [.rhythm, .structure])
            let structure = try #require(result.structure)
            let bars = try #require(result.rhythm).bars
            let starts = structure.sections.map(\.start)
            for truth in [16.0, 32.0, 48.0] {
                #expect(starts.contains { abs($0 - lead - truth) <= 0.5 }, "no section boundary near \(lead + truth) s: \(starts)")
            }
            let functions = structure.sectionFunctions ?? [], labels = structure.sectionLabels ?? []
            guard depth > 0 else {
                #expect(!functions.contains("silence"), "\(functions)")
                StructureFixture.checkProperties(structure, end: duration, grid: bars)
                continue
            }
            // The music starts within a frame or two of 1.5 s and stops within the decay of its last chord.
            let first = try #require(structure.sections.first), last = try #require(structure.sections.last)
            #expect(abs(first.end - lead) < 0.05, "\(structure.sections)")
            #expect(last.start > musicEnd - 0.05 && last.start < musicEnd + 0.5, "\(structure.sections)")
            #expect(functions.first == "silence" && functions.last == "silence", "\(functions)")
            #expect(functions.dropFirst().dropLast().allSatisfy { $0 != "silence" }, "\(functions)")
            #expect(labels.first == labels.last && !labels.dropFirst().dropLast().contains(labels.first ?? ""), "\(labels)")
            for level in [structure.segments, structure.phrases] {
                #expect(level.first.map { abs($0.end - first.end) < 1e-9 } == true)
                #expect(level.last.map { abs($0.start - last.start) < 1e-9 } == true)
            }
            StructureFixture.checkProperties(structure, end: duration, grid: bars + [first.end, last.start])
        }
    }

    /// The music's span from the frames' power level: silent frames at the ends, and the
    /// threshold 50 dB under the 95th percentile; ends shorter than 0.25 s, an input without a
    /// sound, and an input that is all music keep the whole span.
    @Test func musicSpanFromTheFrameLevels() {
        let rate = 100.0
        // 0.5 s of digital silence, 0.2 s at -15 dB (55 dB down: silent), 10 s of music at 40 dB,
        // 0.3 s at -5 dB (45 dB down: still sounding), then 1 s of silence.
        let frames =
            [Float](repeating: -240, count: 50) + [Float](repeating: -15, count: 20)
            + [Float](repeating: 40, count: 1000) + [Float](repeating: -5, count: 30) + [Float](repeating: -240, count: 100)
        let duration = Double(frames.count) / rate
        let span = MusicSpan().span(levels: frames, loud: OnsetFeatures.loudLevel(of: frames), frameRate: rate, duration: duration)
        #expect(abs(span.start - 0.7) < 1e-9 && abs(span.end - 11.0) < 1e-9, "\(span)")
        let short = [Float](repeating: -240, count: 20) + [Float](repeating: 40, count: 500) + [Float](repeating: -240, count: 20)
        let kept = MusicSpan().span(levels: short, loud: OnsetFeatures.loudLevel(of: short), frameRate: rate, duration: 5.4)
        #expect(kept.start == 0 && kept.end == 5.4, "\(kept)")
        let silent = [Float](repeating: -240, count: 300)
        let none = MusicSpan().span(levels: silent, loud: OnsetFeatures.loudLevel(of: silent), frameRate: rate, duration: 3)
        #expect(none.start == 0 && none.end == 3)
        let empty = MusicSpan().span(levels: [], loud: OnsetFeatures.loudLevel(of: []), frameRate: rate, duration: 3)
        #expect(empty.start == 0 && empty.end == 3)
    }

    /// Over a noise floor (hiss 42 dB under the music, above the 50 dB silence depth) the music
    /// starts and stops where the level rises 6 dB above the floor at that end; a quiet passage
    /// inside as deep as the hiss stays music, and a quiet opening 30 dB down is music, not a floor.
    @Test func musicSpanOverANoiseFloor() {
        let rate = 100.0
        let hiss = [Float](repeating: -2, count: 50), tail = [Float](repeating: -2.5, count: 40)
        let music = [Float](repeating: 40, count: 400) + [Float](repeating: -1, count: 100) + [Float](repeating: 40, count: 500)
        let frames = hiss + music + tail
        let duration = Double(frames.count) / rate
        let span = MusicSpan().span(levels: frames, loud: OnsetFeatures.loudLevel(of: frames), frameRate: rate, duration: duration)
        #expect(abs(span.start - 0.5) < 1e-9 && abs(span.end - 10.5) < 1e-9, "\(span)")
        var off = MusicSpan()
        off.settings.noiseFloorDepth = 0
        let whole = off.span(levels: frames, loud: OnsetFeatures.loudLevel(of: frames), frameRate: rate, duration: duration)
        #expect(whole.start == 0 && whole.end == duration, "without the noise floor the hiss is music: \(whole)")
        let quietOpening = [Float](repeating: 10, count: 100) + [Float](repeating: 40, count: 1000)
        let opening = MusicSpan().span(levels: quietOpening, loud: OnsetFeatures.loudLevel(of: quietOpening), frameRate: rate, duration: 11)
        #expect(opening.start == 0 && opening.end == 11, "\(opening)")
    }

    /// A frame's level is its spectrum's power in decibels, the same for a high note as for a low
    /// one of the same power (the semitone-band `energy` is not), and −240 for digital silence.
    @Test func frameLevelIsThePowerOfTheSpectrum() {
        var low = [Float](repeating: 0, count: 1025), high = low
        low[10] = 100
        high[900] = 100
        #expect(OnsetStrengthAccumulator.decibels(power: low) == 40 && OnsetStrengthAccumulator.decibels(power: high) == 40)
        #expect(OnsetStrengthAccumulator.decibels(power: [Float](repeating: 0, count: 1025)) == -240)
    }

    /// Splitting a result at the music's span: boundaries inside the silence or within 2 s of its
    /// edge move onto the edge on every level, labels and functions follow the part each new
    /// section continues, and the silent ends share a new label.
    @Test func silentEndsSplitEveryLevel() {
        func ranges(_ b: [Double]) -> [TimeRange] { zip(b, b.dropFirst()).map { TimeRange(start: $0, end: $1) } }
        let music = StructureResult(
            sections: ranges([0, 10, 20, 30]), segments: ranges([0, 1, 5, 10, 15, 20, 25, 29.5, 30]),
            phrases: ranges([0, 1, 3, 5, 10, 15, 20, 25, 27, 29.5, 30]),
            sectionLabels: ["A", "B", "A"], sectionFunctions: ["intro", "verse", "outro"])
        let split = SilentEnds().applied(to: music, span: (start: 0.5, end: 28.9))
        #expect(split.sections.map(\.start) == [0, 0.5, 10, 20, 28.9])
        #expect(split.segments.map(\.start) == [0, 0.5, 5, 10, 15, 20, 25, 28.9])
        #expect(split.phrases.map(\.start) == [0, 0.5, 3, 5, 10, 15, 20, 25, 28.9])
        #expect(split.sections.last?.end == 30 && split.phrases.last?.end == 30)
        #expect(split.sectionLabels == ["C", "A", "B", "A", "C"])
        #expect(split.sectionFunctions == ["silence", "intro", "verse", "outro", "silence"])
        // A span that is the whole extent changes nothing.
        let same = SilentEnds().applied(to: music, span: (start: 0, end: 30))
        #expect(same.sections.map(\.start) == music.sections.map(\.start) && same.sectionLabels == music.sectionLabels)
    }

    @Test func silenceAndSustainedChordAreOneSection() async throws {
        let rate = 22_050.0
        let silence = [Float](repeating: 0, count: Int(20 * rate))
        let chord = (0..<Int(30 * rate)).map { i -> Float in
            let t = Double(i) / rate
            return Float(0.1 * (sin(2 * .pi * 261.6 * t) + sin(2 * .pi * 329.6 * t) + sin(2 * .pi * 392 * t)))
        }
        for samples in [silence, chord] {
            let session = MusicUnderstandingSession(audioProvider: StructureFixture.provider(samples))
            let result = try await session.analyze(for: [.rhythm, .structure])
            let structure = try #require(result.structure)
            #expect(structure.sections.count == 1, "\(structure.sections)")
            #expect(structure.sectionLabels == ["A"])
            // No pulse: the analysis works on a 2-second time grid.
            let end = Double(samples.count) / rate
            let bars = result.rhythm?.bars ?? []
            let grid = bars.count >= 2 ? bars : StructureAnalyzer.grid(step: 2, duration: end)
            StructureFixture.checkProperties(structure, end: end, grid: grid)
        }
    }

    @Test func constantAndLoopedBarsAreOneSection() {
        // A one-bar loop and a 4-bar loop: nothing new ever starts.
        for form in ["AAAAAAAA"] {
            let features = StructureFixture.bars(form: form, noise: 0.01)
            let edges = StructureFixture.edges(count: features.count)
            let r = StructureAnalyzer().analyze(features, edges: edges)
            StructureFixture.checkProperties(r, end: edges.last ?? 0, grid: edges)
            #expect(r.sections.count == 1, "\(r.sections.map(\.start))")
        }
        let constant = StructureAnalyzer.BarFeatures(
            values: [Float](repeating: 0.3, count: 40 * 8), dimension: 8,
            energy: [Float](repeating: 1, count: 40))
        let edges = StructureFixture.edges(count: 40)
        let r = StructureAnalyzer().analyze(constant, edges: edges)
        StructureFixture.checkProperties(r, end: 80, grid: edges)
        #expect(r.sections.count == 1)
    }

    @Test func hostileInputIsSafe() {
        let analyzer = StructureAnalyzer()
        // NaN features.
        let nan = StructureAnalyzer.BarFeatures(
            values: [Float](repeating: .nan, count: 16 * 4), dimension: 4,
            energy: [Float](repeating: .nan, count: 16))
        let edges = StructureFixture.edges(count: 16)
        let r = analyzer.analyze(nan, edges: edges)
        StructureFixture.checkProperties(r, end: 32, grid: edges)
        #expect(r.sections.count == 1)
        // No bars, one bar, mismatched counts, non-finite and unsorted edges, empty input.
        #expect(analyzer.analyze(nan, edges: []).sections.isEmpty)
        #expect(analyzer.analyze(nan, edges: [0, 2]).sections.count == 1)
        #expect(analyzer.analyze(nan, edges: [0, 2, 4]).sections.count == 1)
        let messy = analyzer.analyze(
            StructureFixture.bars(form: "AB", barsPerPart: 2),
            edges: [0, .nan, 2, 1, 4, .infinity, 6, 8])
        #expect(messy.sections.allSatisfy { $0.duration > 0 })
        // Through the shared-features entry point: no rhythm, zero duration.
        let features = SharedFeatures(configuration: FeatureConfiguration(), frameCount: 0, duration: 10)
        let single = analyzer.analyze(features, rhythm: nil)
        #expect(single.sections == [TimeRange(start: 0, duration: 10)])
        #expect(single.phrases.count == 1 && single.segments.count == 1)
        let empty = analyzer.analyze(
            SharedFeatures(configuration: FeatureConfiguration(), frameCount: 0, duration: 0),
            rhythm: RhythmResult(beats: [], bars: [1, 2, 3], beatsPerMinute: nil))
        #expect(empty.sections.isEmpty)
        let oneBar = analyzer.analyze(features, rhythm: RhythmResult(beats: [], bars: [5], beatsPerMinute: nil))
        #expect(oneBar.sections.count == 1)
    }

    @Test func oneHourBarGridIsBoundedAndFast() {
        // 1 hour at 120 BPM 4/4: 1800 bars, parts of 8 bars cycling through 12 materials.
        let form = String((0..<225).map { Character(UnicodeScalar(UInt8(65 + ($0 * 7) % 12))) })
        let features = StructureFixture.bars(form: form, dimension: 26)
        let edges = StructureFixture.edges(count: features.count)
        #expect(features.count == 1800)
        let clock = ContinuousClock()
        var result: StructureResult?
        let elapsed = clock.measure { result = StructureAnalyzer().analyze(features, edges: edges) }
        guard let r = result else { Issue.record("no result"); return }
        StructureFixture.checkProperties(r, end: 3600, grid: edges)
        #expect(r.sections.count > 100)
        #expect(elapsed < .seconds(20), "took \(elapsed)")
    }

    @Test func codableWithAndWithoutTheExtraFields() throws {
        let r = StructureResult(
            sections: [TimeRange(start: 0, duration: 4)], segments: [TimeRange(start: 0, duration: 4)],
            phrases: [TimeRange(start: 0, duration: 4)], sectionLabels: ["A"], sectionFunctions: ["intro"])
        let data = try JSONEncoder().encode(r)
        let back = try JSONDecoder().decode(StructureResult.self, from: data)
        #expect(back.sectionLabels == ["A"] && back.sectionFunctions == ["intro"])
        let old = Data(#"{"sections":[{"start":0,"duration":4}],"segments":[],"phrases":[]}"#.utf8)
        let decoded = try JSONDecoder().decode(StructureResult.self, from: old)
        #expect(decoded.sectionLabels == nil && decoded.sectionFunctions == nil)
        // The old three-argument initialiser still works.
        #expect(StructureResult(sections: [], segments: [], phrases: []).sectionLabels == nil)
    }

    @Test func letters() {
        #expect(StructureAnalyzer.letter(0) == "A")
        #expect(StructureAnalyzer.letter(25) == "Z")
        #expect(StructureAnalyzer.letter(26) == "AA")
    }
}

/// Structural features (Serrà et al. 2014) and structure without a pulse.
@Suite struct StructuralFeaturesTests {
    /// Frames of parts in `form`, `perPart` frames each: each part its own sequence of random
    /// vectors (as music moves through its chords), the same sequence each time the part recurs,
    /// plus a little noise.
    static func frames(form: String, perPart: Int = 48, dimension: Int = 12) -> [Float] {
        var random = SplitMix64(seed: 7)
        var sequences: [Character: [[Float]]] = [:]
        var out: [Float] = []
        for part in form {
            if sequences[part] == nil {
                sequences[part] = (0..<perPart).map { _ in (0..<dimension).map { _ in Float.random(in: 0...1, using: &random) } }
            }
            for frame in sequences[part] ?? [] { out += frame.map { $0 + Float.random(in: -0.025...0.025, using: &random) } }
        }
        return out
    }

    @Test("Boundaries where the repetition structure changes (ABCAB, 48 frames each); a steady input has none")
    func boundariesOfParts() {
        // Structural features see where what repeats, and at which lag, changes: AB recurs (a
        // repeated block), C does not, so its edges (96, 144) are found; A to B inside the
        // repeated block keeps the same lag and is the bar novelty's to find.
        let found = StructuralFeatures().boundaries(Self.frames(form: "ABCAB"), dimension: 12).map(\.frame)
        for truth in [96, 144] { #expect(found.contains { abs($0 - truth) <= 3 }, "\(truth): \(found)") }
        #expect(found.count <= 5, "\(found)")
        let steady = [Float](repeating: 0.5, count: 12 * 200)
        #expect(StructuralFeatures().boundaries(steady, dimension: 12).isEmpty)
    }

    @Test("Without a pulse: two sustained textures get two sections, the change within 4 s of where it is")
    func pulselessTwoTextures() async throws {
        let rate = 22_050.0
        let samples = (0..<Int(40 * rate)).map { i -> Float in
            let t = Double(i) / rate
            if t < 20 { return Float(0.1 * (sin(2 * .pi * 261.6 * t) + sin(2 * .pi * 329.6 * t) + sin(2 * .pi * 392 * t))) }
            var v = 0.0
            for f in [293.7, 370.0, 440.0] { v += sin(2 * .pi * f * t) + 0.5 * sin(4 * .pi * f * t) + 0.33 * sin(6 * .pi * f * t) }
            return Float(0.06 * v)
        }
        let session = MusicUnderstandingSession(audioProvider: StructureFixture.provider(samples))
        let result = try await session.analyze(for: [.rhythm, .structure])
        let structure = try #require(result.structure)
        #expect(result.rhythm?.beats.isEmpty ?? true, "a sustained chord has no pulse")
        #expect(structure.sections.count >= 2, "\(structure.sections)")
        #expect(structure.sections.dropFirst().contains { abs($0.start - 20) <= 4 }, "\(structure.sections)")
        StructureFixture.checkProperties(structure, end: 40, grid: StructureAnalyzer.grid(step: 2, duration: 40))
    }
}
