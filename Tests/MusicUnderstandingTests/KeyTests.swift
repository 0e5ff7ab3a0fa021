import Foundation
import Testing
@testable import MusicUnderstanding

@Suite("Key")
struct KeyTests {
    @Test("Spelling: fewer accidentals, documented ties")
    func spelling() {
        let major: [KeyResult.Tonic] = [.c, .dFlat, .d, .eFlat, .e, .f, .fSharp, .g, .aFlat, .a, .bFlat, .b]
        let minor: [KeyResult.Tonic] = [.c, .cSharp, .d, .eFlat, .e, .f, .fSharp, .g, .gSharp, .a, .bFlat, .b]
        for pc in 0..<12 {
            #expect(KeySpelling.signature(pitchClass: pc, mode: .major).tonic == major[pc])
            #expect(KeySpelling.signature(pitchClass: pc, mode: .minor).tonic == minor[pc])
            #expect(KeySpelling.signature(pitchClass: pc, mode: .minor).tonic.pitchClass == pc)
        }
    }

    @Test("Cadences I-IV-V-I in all 24 keys give that key, one range")
    func cadencesAllKeys() {
        for minor in [false, true] {
            for tonic in 0..<12 {
                var samples = [Float](repeating: 0, count: Int(4.4 * KeySignals.rate))
                KeySignals.addCadence(&samples, tonic: tonic, minor: minor, start: 0.2, chordLength: 1.0, repeats: 1)
                let (result, features) = KeySignals.analyze(samples)
                let key = KeySignals.globalKey(result)
                #expect(
                    key?.pitchClass == tonic && key?.mode == (minor ? .minor : .major),
                    "tonic \(tonic) \(minor ? "minor" : "major"): got \(String(describing: key))")
                #expect(result.ranges.count == 1)
                #expect(KeySignals.covers(result, duration: features.duration))
            }
        }
    }

    @Test("Relative keys: natural-minor i-iv-v-i is minor, its relative major I-IV-V-I is major")
    func relativeMajorMinor() {
        // The two progressions use the same seven pitch classes (A natural minor = C major); only
        // which note is home differs: the tonic chord starts, ends and is repeated, with its root
        // in the bass. Natural minor has no leading tone (v, not V), so the raised seventh cannot
        // decide.
        let naturalMinor = [[0, 3, 7], [5, 8, 12], [7, 10, 14], [0, 3, 7]]
        let major = [[0, 4, 7], [5, 9, 12], [7, 11, 14], [0, 4, 7]]
        for (minorTonic, relativeMajorTonic) in [(9, 0), (3, 6)] {  // A minor / C major, E♭ minor / F♯ major
            for isMinor in [true, false] {
                var samples = [Float](repeating: 0, count: Int(8.6 * KeySignals.rate))
                let tonic = isMinor ? minorTonic : relativeMajorTonic
                KeySignals.addProgression(
                    &samples, chords: isMinor ? naturalMinor : major, tonic: tonic,
                    start: 0.2, chordLength: 1.0, repeats: 2)
                let (result, _) = KeySignals.analyze(samples)
                let key = KeySignals.globalKey(result)
                #expect(
                    key?.pitchClass == tonic && key?.mode == (isMinor ? .minor : .major),
                    "tonic \(tonic) \(isMinor ? "natural minor" : "major"): got \(String(describing: key))")
            }
        }
    }

    @Test("A natural-minor loop i-VI-III-VII closing on i is minor; its relative's I-V-vi-IV closing on I is major")
    func closingChordDecidesRelative() {
        // Both loops use the same seven pitch classes (E♭ natural minor = G♭/F♯ major) and all
        // their triads; the loop alone does not say which note is home. The piece closes on its
        // tonic chord, held and released into silence.
        let minorLoop = [[0, 3, 7], [-4, 0, 3], [3, 7, 10], [-2, 2, 5]]  // i VI III VII
        let majorLoop = [[0, 4, 7], [7, 11, 14], [9, 12, 16], [5, 9, 12]]  // I V vi IV
        for (isMinor, tonic) in [(true, 3), (false, 6)] {
            var samples = [Float](repeating: 0, count: Int(9.8 * KeySignals.rate))
            let loop = isMinor ? minorLoop : majorLoop
            KeySignals.addProgression(&samples, chords: loop, tonic: tonic, start: 0.1, chordLength: 0.75, repeats: 2)
            KeySignals.addProgression(&samples, chords: [loop[0]], tonic: tonic, start: 6.1, chordLength: 3, repeats: 1)
            let (result, _) = KeySignals.analyze(samples)
            let key = KeySignals.globalKey(result)
            #expect(
                key?.pitchClass == tonic && key?.mode == (isMinor ? .minor : .major),
                "\(isMinor ? "minor" : "major") loop on \(tonic): got \(String(describing: key))")
        }
    }

    @Test("Tonic stage: the tonic-triad share and the closing triad decide between a key, its relative and the key a fifth below")
    func tonicKeyChoice() {
        // One step whose profile correlations slightly favour C major (key 0) over A minor (21)
        // and F major (5).
        var scores = [Double](repeating: 0, count: 24)
        scores[0] = 0.70; scores[21] = 0.66; scores[5] = 0.65; scores[7] = 0.5
        func triad(_ notes: [Int]) -> [Double] {
            var v = [Double](repeating: 0.1, count: 12)
            for n in notes { v[n % 12] = 1 }
            return v
        }
        func shares(_ pairs: [(Int, Double)]) -> [Double] {
            var v = [Double](repeating: 0, count: 24)
            for (k, x) in pairs { v[k] = x }
            return v
        }
        let weights: ArraySlice<Double> = [1]
        func choose(_ key: Int, _ s: [Double], _ triadShares: [Double], closing: [Double]?) -> Int {
            KeyAnalyzer.tonicKey(
                key, scores: s[...], weights: weights, triadShares: triadShares, closing: closing,
                tonicChordWeight: 1, closingChordWeight: 0.25)
        }
        // Without chords or a closing chord the correlation decides.
        #expect(choose(0, scores, shares([]), closing: nil) == 0)
        // The chord the range dwells on decides.
        #expect(choose(0, scores, shares([(0, 0.2), (21, 0.4)]), closing: nil) == 21)
        #expect(choose(0, scores, shares([(0, 0.2), (5, 0.45)]), closing: nil) == 5)
        #expect(choose(0, scores, shares([(0, 0.3), (21, 0.3)]), closing: nil) == 0)
        // The dominant (G major) is not a candidate, however much the range dwells on it.
        #expect(choose(0, scores, shares([(0, 0.1), (7, 0.6)]), closing: nil) == 0)
        // The closing triad tips a near tie, but does not outweigh the chords of the range.
        #expect(choose(0, scores, shares([(0, 0.3), (21, 0.3)]), closing: triad([9, 0, 4])) == 21)
        #expect(choose(0, scores, shares([(0, 0.4), (21, 0.2)]), closing: triad([9, 0, 4])) == 0)
        // A minor key's relative is major: E♭ minor (15) vs G♭ major (6).
        var minorScores = [Double](repeating: 0, count: 24)
        minorScores[6] = 0.70; minorScores[15] = 0.66
        #expect(choose(6, minorScores, shares([(6, 0.1), (15, 0.4)]), closing: nil) == 15)
        #expect(choose(15, minorScores, shares([(6, 0.4), (15, 0.1)]), closing: nil) == 6)
    }

    @Test("A loop closing on an added-sixth chord (I6, the relative minor's triad plus the tonic) stays in its key, released or cut off")
    func addedSixthEnding() {
        // C major I-vi-IV-V, then a held C-E-G-A with C in the bass: popular songs close so
        // ("Help!", "Misery"); the chord holds the A minor triad as well as the C major one.
        for released in [false, true] {
            var samples = [Float](repeating: 0, count: Int((released ? 12.8 : 11.9) * KeySignals.rate))
            KeySignals.addProgression(
                &samples, chords: [[0, 4, 7], [9, 12, 16], [5, 9, 12], [7, 11, 14]], tonic: 0,
                start: 0.1, chordLength: 0.75, repeats: 3)
            KeySignals.addProgression(&samples, chords: [[0, 4, 7, 9]], tonic: 0, start: 9.1, chordLength: 3, repeats: 1)
            let (result, _) = KeySignals.analyze(samples)
            let key = KeySignals.globalKey(result)
            #expect(key?.pitchClass == 0 && key?.mode == .major, "released \(released): got \(String(describing: key))")
        }
    }

    /// `chords` (relative to `tonic`, one per second, repeated `repeats` times from 0.2 s) over
    /// a drum loop at 120 BPM with tom fills, and with `melody` (MIDI notes, one per second) a
    /// vocal-like gliding line; the piece is cut off at full level (no closing release).
    private static func band(chords: [[Int]], tonic: Int, repeats: Int, melody: [Int] = []) -> (KeyResult, SharedFeatures) {
        let seconds = Double(chords.count * repeats)
        var samples = KeySignals.drums(seconds: seconds, bpm: 120, toms: true)
        KeySignals.addProgression(&samples, chords: chords, tonic: tonic, start: 0.2, chordLength: 1, repeats: repeats)
        if !melody.isEmpty { KeySignals.addGlide(&samples, notes: melody, start: 0.2, noteLength: 1) }
        return KeySignals.analyze(samples)
    }

    @Test("I-IV-V-I (i-iv-V-i) with drums and a vocal-like glide stays in its key, one range")
    func cadenceWithDrumsAndVoice() {
        for (tonic, minor) in [(7, false), (2, true), (10, false)] {
            let third = minor ? 3 : 4
            let chords = KeySignals.cadence(minor: minor)
            // The voice sings the chord's third, then its root, a fifth or sixth above middle C,
            // gliding between them with vibrato.
            let melody = (0..<16).map { i -> Int in
                let chord = chords[(i / 2) % 4]
                return 72 + tonic + (i % 2 == 0 ? chord[1] : chord[0]) - (chord[1] > 9 ? 12 : 0)
            }
            let (result, features) = Self.band(chords: chords, tonic: tonic, repeats: 8, melody: melody)
            let key = KeySignals.globalKey(result)
            #expect(
                key?.pitchClass == tonic && key?.mode == (minor ? .minor : .major),
                "tonic \(tonic) third \(third): got \(String(describing: key))")
            #expect(result.ranges.count == 1, "ranges \(result.ranges.map(\.value))")
            #expect(KeySignals.covers(result, duration: features.duration))
        }
    }

    @Test("A natural-minor progression i-VI-VII-i with drums, cut off, reads minor, not as its relative major")
    func aeolianProgressionIsMinor() {
        // A minor: Am F G Am, the pitch classes of C major; no leading tone, no closing chord.
        for tonic in [9, 6] {
            let (result, _) = Self.band(chords: [[0, 3, 7], [8, 12, 15], [10, 14, 17], [0, 3, 7]], tonic: tonic, repeats: 6)
            let key = KeySignals.globalKey(result)
            #expect(key?.pitchClass == tonic && key?.mode == .minor, "tonic \(tonic): got \(String(describing: key))")
        }
    }

    @Test("Scales (major; harmonic minor) in all 24 keys give that key")
    func scalesAllKeys() {
        let majorSteps = [0, 2, 4, 5, 7, 9, 11, 12]
        let minorSteps = [0, 2, 3, 5, 7, 8, 11, 12]
        for minor in [false, true] {
            for tonic in 0..<12 {
                let steps = minor ? minorSteps : majorSteps
                let melody = steps + steps.reversed().dropFirst()
                var samples = [Float](repeating: 0, count: Int(5.0 * KeySignals.rate))
                for (i, s) in melody.enumerated() {
                    KeySignals.addTone(&samples, midi: 60 + tonic + s, start: 0.1 + 0.3 * Double(i), length: 0.29, gain: 0.2)
                }
                let (result, _) = KeySignals.analyze(samples)
                let key = KeySignals.globalKey(result)
                #expect(
                    key?.pitchClass == tonic && key?.mode == (minor ? .minor : .major),
                    "scale on \(tonic) \(minor ? "minor" : "major"): got \(String(describing: key))")
            }
        }
    }

    @Test("A modulation halfway gives two ranges with the boundary near the change")
    func modulation() {
        let half = 16.0
        var samples = [Float](repeating: 0, count: Int(2 * half * KeySignals.rate))
        KeySignals.addCadence(&samples, tonic: 0, minor: false, start: 0, chordLength: 1, repeats: 4)  // C major
        KeySignals.addCadence(&samples, tonic: 4, minor: false, start: half, chordLength: 1, repeats: 4)  // E major
        let (result, features) = KeySignals.analyze(samples)
        #expect(result.ranges.count == 2)
        #expect(KeySignals.covers(result, duration: features.duration))
        if result.ranges.count == 2 {
            #expect(result.ranges[0].value == KeyResult.KeySignature(tonic: .c, mode: .major))
            #expect(result.ranges[1].value == KeyResult.KeySignature(tonic: .e, mode: .major))
            #expect(abs(result.ranges[1].range.start - half) <= 3)
        }
    }

    @Test("With a bar grid the key changes on a bar line")
    func modulationOnBars() {
        let half = 16.0
        var samples = [Float](repeating: 0, count: Int(2 * half * KeySignals.rate))
        KeySignals.addCadence(&samples, tonic: 7, minor: false, start: 0, chordLength: 1, repeats: 4)  // G major
        KeySignals.addCadence(&samples, tonic: 1, minor: true, start: half, chordLength: 1, repeats: 4)  // C♯ minor
        let bars = stride(from: 0.0, to: 2 * half, by: 2.0).map { $0 }
        let rhythm = RhythmResult(
            beats: stride(from: 0.0, to: 2 * half, by: 0.5).map { $0 }, bars: bars,
            beatsPerMinute: 120, beatsPerBar: 4)
        let (result, features) = KeySignals.analyze(samples, rhythm: rhythm)
        #expect(result.ranges.count == 2)
        #expect(KeySignals.covers(result, duration: features.duration))
        if result.ranges.count == 2 {
            #expect(result.ranges[0].value == KeyResult.KeySignature(tonic: .g, mode: .major))
            #expect(result.ranges[1].value == KeyResult.KeySignature(tonic: .cSharp, mode: .minor))
            let boundary = result.ranges[1].range.start
            #expect(abs(boundary - half) <= 3)
            #expect(bars.contains { abs($0 - boundary) < 1e-9 })
        }
    }

    @Test("Detuned input (A4 = 432 Hz): tuning estimated, key still right")
    func detuned() {
        var samples = [Float](repeating: 0, count: Int(4.4 * KeySignals.rate))
        KeySignals.addCadence(&samples, tonic: 3, minor: false, start: 0.2, chordLength: 1, repeats: 1, a4: 432)
        let (result, features) = KeySignals.analyze(samples)
        let expectedCents = 1200 * log2(432.0 / 440)  // -31.8
        let cents = features.chroma?.tuningCents ?? 0
        #expect(abs(cents - expectedCents) < 4, "tuning \(cents) cents")
        let key = KeySignals.globalKey(result)
        #expect(key?.pitchClass == 3 && key?.mode == .major)
        #expect(result.ranges.first?.value.tonic == .eFlat)
    }

    @Test("Silence gives no key")
    func silence() {
        let (result, _) = KeySignals.analyze([Float](repeating: 0, count: Int(3 * KeySignals.rate)))
        #expect(result.ranges.isEmpty)
    }

    @Test("White noise gives no key")
    func whiteNoise() {
        var rng = KeySignals.Random(state: 42)
        let samples = (0..<Int(4 * KeySignals.rate)).map { _ in 0.3 * rng.next() }
        let (result, _) = KeySignals.analyze(samples)
        #expect(result.ranges.isEmpty, "got \(result.ranges.map(\.value))")
    }

    @Test("Drums alone give no key")
    func drumsOnly() {
        var rng = KeySignals.Random(state: 7)
        let rate = KeySignals.rate
        var samples = [Float](repeating: 0, count: Int(6 * rate))
        let beat = 0.5
        var t = 0.0
        var index = 0
        while t < 5.8 {
            let s0 = Int(t * rate)
            // Hi-hat on every eighth: differentiated noise, 30 ms decay.
            var previous: Float = 0
            for i in 0..<Int(0.1 * rate) where s0 + i < samples.count {
                let x = rng.next()
                samples[s0 + i] += 0.15 * (x - previous) * Float(exp(-Double(i) / (0.03 * rate)))
                previous = x
            }
            if index % 2 == 0 {
                let beatIndex = index / 2
                if beatIndex % 2 == 0 {
                    // Kick: sine sweeping 150 -> 50 Hz, 150 ms decay.
                    var phase = 0.0
                    for i in 0..<Int(0.4 * rate) where s0 + i < samples.count {
                        let time = Double(i) / rate
                        let f = 50 + 100 * exp(-time / 0.04)
                        phase += 2 * Double.pi * f / rate
                        samples[s0 + i] += Float(0.6 * sin(phase) * exp(-time / 0.15))
                    }
                } else {
                    // Snare: noise plus a 190 Hz body, 80 ms decay.
                    for i in 0..<Int(0.25 * rate) where s0 + i < samples.count {
                        let time = Double(i) / rate
                        let body = 0.3 * sin(2 * Double.pi * 190 * time)
                        samples[s0 + i] += Float((0.4 * Double(rng.next()) + body) * exp(-time / 0.08))
                    }
                }
            }
            t += beat / 2
            index += 1
        }
        let (result, features) = KeySignals.analyze(samples)
        let h = features.chroma?.harmonicEnergy ?? [], s = features.chroma?.spectralEnergy ?? []
        var g = [Float](repeating: 0, count: 12)
        if let c = features.chroma { for i in 0..<c.count { for k in 0..<12 { g[k] += c.vectors[12 * i + k].squareRoot() } } }
        let shares = g.map { $0 / (g.max() ?? 1) }
        #expect(result.ranges.isEmpty, "got \(result.ranges.map(\.value)) share \(h.reduce(0, +) / s.reduce(0, +)) \(shares)")
    }

    @Test("Noise of any colour gives no key, however long (white, pink, brown; 20 s)")
    func colouredNoise() {
        for colour in 0...2 {
            let (result, _) = KeySignals.analyze(KeySignals.noise(seconds: 20, colour: colour))
            #expect(
                result.ranges.isEmpty && result.confidence == nil,
                "colour \(colour): got \(result.ranges.map(\.value))")
        }
    }

    @Test("Pulse without pitch gives no key: a click track, a pitched metronome, drums with toms")
    func pulseOnly() {
        let rate = KeySignals.rate
        var clicks = [Float](repeating: 0, count: Int(10 * rate))
        var beeps = clicks
        for beat in 0..<20 {
            let s0 = Int(Double(beat) * 0.5 * rate)
            // A click: 2 ms of 1 kHz; a metronome beep: 40 ms of 880 Hz with a 5 ms attack.
            for i in 0..<Int(0.002 * rate) { clicks[s0 + i] = Float(0.8 * sin(2 * Double.pi * 1000 * Double(i) / rate)) }
            for i in 0..<Int(0.04 * rate) {
                let env = min(1, Double(i) / (0.005 * rate)) * exp(-Double(i) / (0.015 * rate))
                beeps[s0 + i] = Float(0.5 * env * sin(2 * Double.pi * 880 * Double(i) / rate))
            }
        }
        for (name, samples) in [
            ("clicks", clicks), ("beeps", beeps),
            ("drums with toms", KeySignals.drums(seconds: 16, bpm: 100, toms: true)),
        ] {
            let (result, _) = KeySignals.analyze(samples)
            #expect(result.ranges.isEmpty, "\(name): got \(result.ranges.map(\.value))")
        }
    }

    @Test("One or two pitch classes determine no key: a steady sine, a single harmonic note, a bare fifth")
    func tooFewPitchClasses() {
        let rate = KeySignals.rate
        let sine = (0..<Int(8 * rate)).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / rate)) }
        var note = [Float](repeating: 0, count: Int(8 * rate))
        KeySignals.addTone(&note, midi: 57, start: 0, length: 8, gain: 0.3)  // A3 with 12 partials
        var fifth = [Float](repeating: 0, count: Int(8 * rate))
        KeySignals.addTone(&fifth, midi: 57, start: 0, length: 8, gain: 0.2)
        KeySignals.addTone(&fifth, midi: 64, start: 0, length: 8, gain: 0.2)  // E4
        for (name, samples) in [("sine", sine), ("note", note), ("fifth", fifth)] {
            let (result, _) = KeySignals.analyze(samples)
            #expect(result.ranges.isEmpty, "\(name): got \(result.ranges.map(\.value))")
        }
        // A third note (C♯, the major third) makes a triad, and a key.
        KeySignals.addTone(&fifth, midi: 61, start: 0, length: 8, gain: 0.2)
        let (triad, _) = KeySignals.analyze(fifth)
        #expect(KeySignals.globalKey(triad)?.pitchClass == 9 && KeySignals.globalKey(triad)?.mode == .major)
    }

    @Test("Confidence: present with the key, one per range, lower when out-of-key notes blur it")
    func confidence() {
        var clear = [Float](repeating: 0, count: Int(8.6 * KeySignals.rate))
        KeySignals.addCadence(&clear, tonic: 2, minor: false, start: 0.2, chordLength: 1.0, repeats: 2)
        var blurred = clear
        // A run over the five pitch classes outside D major (C, D♯, F, G♯, A♯). (Adding all
        // twelve alike would not change a correlation.)
        let outside = [0, 3, 5, 8, 10]
        for i in 0..<24 {
            KeySignals.addTone(&blurred, midi: 72 + outside[i % 5], start: 0.2 + 0.35 * Double(i), length: 0.34, gain: 0.15)
        }
        let (a, _) = KeySignals.analyze(clear)
        let (b, _) = KeySignals.analyze(blurred)
        #expect(KeySignals.globalKey(a)?.pitchClass == 2)
        #expect(a.rangeConfidences?.count == a.ranges.count && b.rangeConfidences?.count == b.ranges.count)
        let ca = a.confidence ?? 0, cb = b.confidence ?? 0
        #expect(ca > 0.7 && ca <= 1, "clear cadence \(ca)")
        #expect(cb < ca - 0.05, "blurred \(cb) vs clear \(ca)")
    }

    @Test("No chroma or zero duration gives no key")
    func missingChroma() {
        let features = SharedFeatures(configuration: .init(), frameCount: 0, duration: 0, onset: nil, chroma: nil)
        #expect(KeyAnalyzer().analyze(features, rhythm: nil).ranges.isEmpty)
    }

    @Test("Timeline over key signatures: evidence split between a key and its relative is not a modulation")
    func signatureTimelineKeepsRelativeEvidenceTogether() {
        // 30 one-second steps of a C♯ minor song whose local evidence alternates between C♯ minor
        // (13) and its relative E major (4), while F♯ minor (18), the subdominant key, is always
        // a close second: over the 24 keys the steadier F♯ minor wins the whole piece, over the
        // 12 signatures (four sharps against three) C♯ minor does, its mode by the summed scores.
        let steps = 30
        var scores = [Double](repeating: 0.3, count: 24 * steps)
        for t in 0..<steps {
            scores[24 * t + 13] = t % 2 == 0 ? 0.86 : 0.70
            scores[24 * t + 4] = t % 2 == 0 ? 0.70 : 0.84
            scores[24 * t + 18] = 0.80
        }
        let timeline = KeyTimeline(scores: scores, steps: steps, modulationPenalty: 3)
        #expect(timeline.decode() == [Int](repeating: 18, count: steps))
        #expect(timeline.decodeSignatures() == [Int](repeating: 13, count: steps))
        // A real modulation (C major, then E♭ major) is found by both decodings at the same step.
        var modulating = [Double](repeating: 0.3, count: 24 * steps)
        for t in 0..<steps {
            modulating[24 * t + 0] = t < 15 ? 0.9 : 0.4
            modulating[24 * t + 3] = t < 15 ? 0.4 : 0.9
        }
        let expected = [Int](repeating: 0, count: 15) + [Int](repeating: 3, count: 15)
        let both = KeyTimeline(scores: modulating, steps: steps, modulationPenalty: 3)
        #expect(both.decode() == expected)
        #expect(both.decodeSignatures() == expected)
    }

    @Test("A passage leaning to the dominant, the subdominant or the relative stays in the key; a modulation is found")
    func leaningPassagesStayInKey() {
        let cadence = [[0, 4, 7], [5, 9, 12], [7, 11, 14], [0, 4, 7]]  // I IV V I
        let leanings: [(String, [[Int]])] = [
            ("dominant", [[2, 6, 9], [7, 11, 14], [2, 6, 12], [7, 11, 14]]),  // II V II7 V: D F♯ in C
            ("subdominant", [[0, 4, 10], [5, 9, 12], [10, 14, 17], [5, 9, 12]]),  // I7 IV ♭VII IV: B♭ in C
            ("relative", [[9, 12, 16], [2, 5, 9], [4, 8, 11], [9, 12, 16]]),  // vi ii III vi: G♯ in C
        ]
        for (name, passage) in leanings {
            var samples = [Float](repeating: 0, count: Int(33.4 * KeySignals.rate))
            KeySignals.addProgression(&samples, chords: cadence, tonic: 0, start: 0.2, chordLength: 1, repeats: 3)
            KeySignals.addProgression(&samples, chords: passage, tonic: 0, start: 12.2, chordLength: 1, repeats: 2)
            KeySignals.addProgression(&samples, chords: cadence, tonic: 0, start: 20.2, chordLength: 1, repeats: 3)
            let (result, features) = KeySignals.analyze(samples)
            #expect(
                result.ranges.map(\.value) == [KeyResult.KeySignature(tonic: .c, mode: .major)],
                "\(name): \(result.ranges.map(\.value))")
            #expect(KeySignals.covers(result, duration: features.duration))
        }
        // The same frame with the middle in E major for 20 s: a modulation, two changes of key.
        var samples = [Float](repeating: 0, count: Int(44.4 * KeySignals.rate))
        KeySignals.addProgression(&samples, chords: cadence, tonic: 0, start: 0.2, chordLength: 1, repeats: 3)
        KeySignals.addProgression(&samples, chords: cadence, tonic: 4, start: 12.2, chordLength: 1, repeats: 5)
        KeySignals.addProgression(&samples, chords: cadence, tonic: 0, start: 32.2, chordLength: 1, repeats: 3)
        let (result, features) = KeySignals.analyze(samples)
        #expect(
            result.ranges.map(\.value) == [
                KeyResult.KeySignature(tonic: .c, mode: .major),
                KeyResult.KeySignature(tonic: .e, mode: .major),
                KeyResult.KeySignature(tonic: .c, mode: .major),
            ],
            "\(result.ranges.map(\.value)) \(result.ranges.map(\.range))")
        #expect(KeySignals.covers(result, duration: features.duration))
    }
}
