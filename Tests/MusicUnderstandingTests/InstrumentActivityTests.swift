import Foundation
import Testing
@testable import MusicUnderstanding

/// Synthesised test instruments at 22.05 kHz mono (deterministic).
enum ActivitySynth {
    static let rate = 22_050.0

    /// A deterministic uniform noise source in -1...1 (LCG).
    struct Noise {
        var state: UInt32 = 12_345
        mutating func next() -> Float {
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(state >> 8) / Float(1 << 23) - 1
        }
    }

    static func empty(_ seconds: Double) -> [Float] { [Float](repeating: 0, count: Int(seconds * rate)) }

    /// Adds `source` into `mix` at sample offset `at`.
    static func add(_ source: [Float], into mix: inout [Float], at: Int, gain: Float = 1) {
        for i in 0..<source.count where at + i >= 0 && at + i < mix.count { mix[at + i] += gain * source[i] }
    }

    /// Kick on beats 1 and 3, snare on 2 and 4, closed hi-hat on every eighth (`hatsPerBeat` per beat).
    static func drums(seconds: Double, bpm: Double = 120, hatsPerBeat: Int = 2, kickEvery: Int = 2, gain: Float = 0.5) -> [Float] {
        var out = empty(seconds)
        var noise = Noise()
        let beat = 60 / bpm
        let kick: [Float] = (0..<Int(0.25 * rate)).map { i in
            let t = Double(i) / rate
            let phase = 2 * Double.pi * (50 * t + 100 * 0.04 * (1 - exp(-t / 0.04)))
            return Float(sin(phase) * exp(-t / 0.12))
        }
        let snare: [Float] = (0..<Int(0.2 * rate)).map { i in
            let t = Double(i) / rate
            return Float(exp(-t / 0.06)) * (0.7 * noise.next() + 0.3 * Float(sin(2 * Double.pi * 190 * t)))
        }
        var previous: Float = 0
        let hat: [Float] = (0..<Int(0.06 * rate)).map { i in
            let t = Double(i) / rate
            let x = noise.next()
            defer { previous = x }
            return Float(exp(-t / 0.015)) * (x - previous) * 0.5
        }
        var b = 0
        while Double(b) * beat < seconds {
            let at = Int(Double(b) * beat * rate)
            if b % kickEvery == 0 { add(kick, into: &out, at: at, gain: gain) }
            if b % 2 == 1 { add(snare, into: &out, at: at, gain: 0.6 * gain) }
            for h in 0..<max(0, hatsPerBeat) { add(hat, into: &out, at: at + Int(Double(h) * beat / Double(hatsPerBeat) * rate), gain: 0.5 * gain) }
            b += 1
        }
        return out
    }

    /// Low sawtooth notes (41-82 Hz fundamentals), one per half second, gently low-passed.
    static func bass(seconds: Double, gain: Float = 0.3) -> [Float] {
        let notes = [55.0, 55, 65.4, 49, 73.4, 61.7, 41.2, 82.4]
        var out = empty(seconds)
        var phase = 0.0, y: Float = 0
        for i in 0..<out.count {
            let t = Double(i) / rate
            let n = Int(t / 0.5)
            let f = notes[n % notes.count]
            phase += f / rate
            phase -= phase.rounded(.down)
            let local = t - Double(n) * 0.5
            let env = Float(min(1, local / 0.01) * exp(-local / 1.5))
            let saw = Float(2 * phase - 1)
            y += 0.25 * (saw - y)
            out[i] = gain * env * y
        }
        return out
    }

    /// Sustained three-note chords (sines with a few partials), two seconds each.
    static func chords(seconds: Double, gain: Float = 0.12) -> [Float] {
        let chords: [[Double]] = [[261.6, 329.6, 392], [220, 261.6, 329.6], [174.6, 220, 261.6], [196, 246.9, 293.7]]
        var out = empty(seconds)
        for i in 0..<out.count {
            let t = Double(i) / rate
            let c = chords[Int(t / 2) % chords.count]
            var v = 0.0
            for f in c { for h in 1...4 { v += sin(2 * Double.pi * f * Double(h) * t) / Double(h) } }
            out[i] = gain * Float(v)
        }
        return out
    }

    /// A voice-like line: a glottal pulse train (Rosenberg-like pulses) with 5.5 Hz vibrato of
    /// ±0.5 semitone, one note per second, through three formant resonators whose vowel changes
    /// per note, with a syllable envelope.
    static func voice(seconds: Double, gain: Float = 0.4) -> [Float] {
        let pitches = [220.0, 246.9, 261.6, 293.7, 261.6, 246.9, 196, 220]
        let vowels: [[Double]] = [[730, 1090, 2440], [270, 2290, 3010], [570, 840, 2410], [530, 1840, 2480], [300, 870, 2240]]
        let n = Int(seconds * rate)
        var source = [Float](repeating: 0, count: n)
        var phase = 0.0
        for i in 0..<n {
            let t = Double(i) / rate
            let note = Int(t)
            let f0 = pitches[note % pitches.count] * pow(2, 0.5 / 12 * sin(2 * Double.pi * 5.5 * t))
            phase += f0 / rate
            phase -= phase.rounded(.down)
            // Glottal pulse: open phase 60 %, then closed.
            let g = phase < 0.6 ? 0.5 * (1 - cos(Double.pi * phase / 0.6)) : 0
            let local = t - Double(note)
            let env = min(1, local / 0.05) * min(1, max(0, (0.9 - local) / 0.1))
            source[i] = Float(g * env)
        }
        // Differentiate (lip radiation) and filter through the formants of each note's vowel.
        var out = [Float](repeating: 0, count: n)
        var state = [[Double]](repeating: [0, 0], count: 3)
        var previous: Float = 0
        for i in 0..<n {
            let x = Double(source[i] - previous)
            previous = source[i]
            let vowel = vowels[(i / Int(rate)) % vowels.count]
            var y = 0.0
            for (k, f) in vowel.enumerated() {
                let bw = 80.0 + 40 * Double(k)
                let r = exp(-Double.pi * bw / rate)
                let a1 = 2 * r * cos(2 * Double.pi * f / rate), a2 = -r * r
                let v = x + a1 * state[k][0] + a2 * state[k][1]
                state[k][1] = state[k][0]
                state[k][0] = v
                y += v * (1 - r) / Double(k + 1)
            }
            out[i] = Float(y)
        }
        let peak = out.map { abs($0) }.max() ?? 1
        return out.map { gain * $0 / max(peak, 1e-9) }
    }

    /// A piano-like part: struck notes (12 slightly inharmonic partials, f_h = h f0 √(1 + B h²)
    /// with B = 0.0004, decaying with a 0.4 s time constant, higher partials faster), an
    /// eighth-note melody at 150 BPM over two octaves of C major and a left-hand chord every beat:
    /// onsets and note changes all the time, but no partial that glides or wavers.
    static func piano(seconds: Double, gain: Float = 0.3) -> [Float] {
        let scale = [0, 2, 4, 5, 7, 9, 11, 12, 14, 16, 17, 19, 21, 23, 24]
        var out = empty(seconds)
        var noise = Noise(state: 7)
        func strike(_ f0: Double, at start: Double, level: Double) {
            let first = Int(start * rate), length = Int(1.5 * rate)
            for h in 1...12 {
                let f = f0 * Double(h) * (1 + 0.0004 * Double(h * h)).squareRoot()
                guard f < 10_000 else { break }
                let tau = 0.4 / (1 + 0.15 * Double(h))
                let a = level / Double(h)
                for i in 0..<length where first + i < out.count {
                    let t = Double(i) / rate
                    out[first + i] += Float(a * exp(-t / tau) * sin(2 * Double.pi * f * t))
                }
            }
        }
        let eighth = 0.2
        var k = 0
        while Double(k) * eighth < seconds {
            let step = Int((noise.next() + 1) * 7.49)
            let degree = scale[max(0, min(scale.count - 1, step))]
            strike(523.25 * pow(2, Double(degree) / 12), at: Double(k) * eighth, level: 1)
            if k % 2 == 0 {
                let root = [130.8, 110, 87.3, 98][(k / 8) % 4]
                for ratio in [1.0, 1.26, 1.5] { strike(root * ratio, at: Double(k) * eighth, level: 0.5) }
            }
            k += 1
        }
        let peak = out.map { abs($0) }.max() ?? 1
        return out.map { gain * $0 / max(peak, 1e-9) }
    }

    /// A bowed-string-like line: sawtooth-like harmonics (1/h, 20 partials) of notes held 4 s
    /// each, with 6 Hz vibrato of ±0.3 semitone, through fixed body resonances (so the partials'
    /// amplitudes move with the vibrato, as on a violin) and a steady bow: pitch motion like a
    /// voice's, but a spectral envelope that does not change.
    static func vibratoString(seconds: Double, gain: Float = 0.3) -> [Float] {
        let pitches = [392.0, 349.2]
        let resonances: [(f: Double, bw: Double)] = [(450, 120), (1100, 250), (2800, 600)]
        func body(_ f: Double) -> Double {
            resonances.reduce(0.15) { $0 + 1 / (1 + pow((f - $1.f) / $1.bw, 2)) }
        }
        let n = Int(seconds * rate)
        var out = [Float](repeating: 0, count: n)
        var phases = [Double](repeating: 0, count: 20)
        for i in 0..<n {
            let t = Double(i) / rate
            let note = Int(t / 4)
            let f0 = pitches[note % pitches.count] * pow(2, 0.3 / 12 * sin(2 * Double.pi * 6 * t))
            let local = t - 4 * Double(note)
            let env = min(1, local / 0.08)
            var v = 0.0
            for h in 1...20 {
                let f = f0 * Double(h)
                guard f < 10_000 else { break }
                phases[h - 1] += f / rate
                phases[h - 1] -= phases[h - 1].rounded(.down)
                v += body(f) / Double(h) * sin(2 * Double.pi * phases[h - 1])
            }
            out[i] = Float(v * env)
        }
        let peak = out.map { abs($0) }.max() ?? 1
        return out.map { gain * $0 / max(peak, 1e-9) }
    }

    static func sine(seconds: Double, frequency: Double = 440, gain: Float = 0.5) -> [Float] {
        (0..<Int(seconds * rate)).map { gain * Float(sin(2 * Double.pi * frequency * Double($0) / rate)) }
    }

    static func whiteNoise(seconds: Double, gain: Float = 0.3) -> [Float] {
        var noise = Noise(state: 99)
        return (0..<Int(seconds * rate)).map { _ in gain * noise.next() }
    }

    static func mix(_ parts: [[Float]]) -> [Float] {
        let n = parts.map(\.count).max() ?? 0
        var out = [Float](repeating: 0, count: n)
        for p in parts { add(p, into: &out, at: 0) }
        return out
    }

    /// Runs the session on mono samples.
    static func analyze(
        _ samples: [Float], for types: Set<AnalysisType>,
        configuration: AnalysisConfiguration = .init()
    ) async throws -> SessionResult {
        let chunk = 8192
        let buffers = stride(from: 0, to: samples.count, by: chunk).map {
            PCMBuffer(sampleRate: rate, channelCount: 1, samples: Array(samples[$0..<min(samples.count, $0 + chunk)]))
        }
        let session = MusicUnderstandingSession(audioProvider: TestSignal.provider(buffers), configuration: configuration)
        return try await session.analyze(for: types)
    }
}

/// Share of `duration` covered by `ranges`.
func activityCoverage(_ ranges: [TimeRange]?, duration: Double) -> Double {
    (ranges ?? []).reduce(0) { $0 + $1.duration } / max(duration, 1e-9)
}

@Suite struct InstrumentActivityTests {
    typealias Instrument = InstrumentActivityResult.Instrument

    /// Checks which instruments cover most of the signal and which (nearly) none of it.
    func check(
        _ samples: [Float], present: Set<Instrument>, absent: Set<Instrument>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let duration = Double(samples.count) / ActivitySynth.rate
        let result = try await ActivitySynth.analyze(samples, for: [.instrumentActivity])
        let activity = try #require(result.instrumentActivity, sourceLocation: sourceLocation)
        for instrument in Instrument.allCases {
            #expect(activity.ranges[instrument] != nil && activity.activity[instrument] != nil, sourceLocation: sourceLocation)
        }
        let shares = Dictionary(uniqueKeysWithValues: Instrument.allCases.map { ($0, activityCoverage(activity.ranges[$0], duration: duration)) })
        for instrument in present {
            #expect((shares[instrument] ?? 0) >= 0.6, "\(instrument) should be present: \(shares)", sourceLocation: sourceLocation)
        }
        for instrument in absent {
            #expect((shares[instrument] ?? 0) <= 0.1, "\(instrument) should be absent: \(shares)", sourceLocation: sourceLocation)
        }
    }

    @Test func drumsAloneAreOnlyDrums() async throws {
        try await check(ActivitySynth.drums(seconds: 8), present: [.drum], absent: [.vocal, .bass, .other])
    }

    /// A loud sub-bass (55 Hz sine, nothing between 120 and 250 Hz) over quiet chords: the
    /// chords are "other". The bass's upper partials are estimated as at most its 120-250 Hz
    /// energy; a fifth of all the energy below 250 Hz (0.3.5) would hide the chords.
    @Test func subBassDoesNotHideChords() async throws {
        let samples = ActivitySynth.mix([ActivitySynth.sine(seconds: 8, frequency: 55, gain: 0.6), ActivitySynth.chords(seconds: 8, gain: 0.06)])
        try await check(samples, present: [.other, .bass], absent: [.vocal])
    }

    @Test func bassAloneIsBass() async throws {
        try await check(ActivitySynth.bass(seconds: 8), present: [.bass], absent: [.vocal, .drum])
    }

    @Test func chordsAloneAreOther() async throws {
        try await check(ActivitySynth.chords(seconds: 8), present: [.other], absent: [.vocal, .drum, .bass])
    }

    @Test func voiceLineIsVocal() async throws {
        try await check(ActivitySynth.voice(seconds: 8), present: [.vocal], absent: [.drum, .bass])
    }

    /// The vocal variance test (Lehner, Sonnleitner & Widmer 2013): a string-like line whose
    /// vibrato moves its partials like a voice's, but whose spectral envelope stays put, is not
    /// vocal while a note is held (the note change itself, a new spectrum inside the 1 s window,
    /// may read as vocal for about a second); without the test (`vocalMinimumVariance` 0) the
    /// pitch motion alone reads all of it as vocal.
    @Test func vibratoStringIsNotVocal() async throws {
        let samples = ActivitySynth.vibratoString(seconds: 8)
        func vocalShare(_ configuration: AnalysisConfiguration) async throws -> Double {
            let result = try await ActivitySynth.analyze(samples, for: [.instrumentActivity], configuration: configuration)
            let activity = try #require(result.instrumentActivity)
            #expect(activityCoverage(activity.ranges[.other], duration: 8) >= 0.6)
            return activityCoverage(activity.ranges[.vocal], duration: 8)
        }
        let with = try await vocalShare(AnalysisConfiguration())
        #expect(with <= 0.2, "held vibrato notes should not be vocal: \(with)")
        var off = AnalysisConfiguration()
        off.instrumentActivity.vocalMinimumVariance = 0
        let without = try await vocalShare(off)
        #expect(without >= 0.6, "without the vocal variance test the vibrato reads as vocal: \(without)")
    }

    /// The settings of the phrase-level pitch motion test for real recordings
    /// (``InstrumentActivityAnalyzer/Configuration/vocalPhraseMotion``).
    static var phraseTest: AnalysisConfiguration {
        var c = AnalysisConfiguration()
        c.instrumentActivity.vocalPhraseMotion = 2.5
        c.instrumentActivity.vocalResidualLevel = -20
        return c
    }

    /// Phrase-level pitch motion (the fluctogram over ±1.5 s): a piano part, whose note changes
    /// and onsets shift the partials now and then but never keep them moving, is harmonic
    /// ("other") and not vocal with the test; without it (the defaults) part of it reads as vocal.
    @Test func pianoIsNotVocalWithThePhraseTest() async throws {
        let samples = ActivitySynth.piano(seconds: 10)
        func shares(_ configuration: AnalysisConfiguration) async throws -> (vocal: Double, other: Double) {
            let result = try await ActivitySynth.analyze(samples, for: [.instrumentActivity], configuration: configuration)
            let activity = try #require(result.instrumentActivity)
            return (activityCoverage(activity.ranges[.vocal], duration: 10), activityCoverage(activity.ranges[.other], duration: 10))
        }
        let with = try await shares(Self.phraseTest)
        #expect(with.vocal <= 0.1, "a piano part should not be vocal: \(with)")
        #expect(with.other >= 0.6, "a piano part is other: \(with)")
        let without = try await shares(AnalysisConfiguration())
        #expect(without.vocal >= 0.2, "without the phrase test part of the piano reads as vocal: \(without)")
    }

    /// The phrase-level test keeps a sung line over an accompaniment: the vibrato voice with
    /// changing vowels over the piano part is vocal most of the time.
    @Test func voiceOverPianoIsVocalWithThePhraseTest() async throws {
        let samples = ActivitySynth.mix([ActivitySynth.voice(seconds: 10), ActivitySynth.piano(seconds: 10, gain: 0.12)])
        let result = try await ActivitySynth.analyze(samples, for: [.instrumentActivity], configuration: Self.phraseTest)
        let activity = try #require(result.instrumentActivity)
        let vocal = activityCoverage(activity.ranges[.vocal], duration: 10)
        #expect(vocal >= 0.6, "the voice over the piano should be vocal: \(vocal)")
    }

    /// The vocal variance: 0 for a constant envelope, positive where the 100-5000 Hz envelope
    /// changes, blind to a change above 5 kHz, MFCCs when there are no bands, nothing without either.
    @Test func vocalVarianceFollowsTheFormantRegion() {
        let centres = (0..<40).map { 30 * pow(11_000 / 30, Double($0) / 39) }
        let inside = centres.firstIndex { $0 > 1000 } ?? 0, above = centres.firstIndex { $0 > 6000 } ?? 0
        func mel(_ band: (Int, Int) -> Float) -> MelFeatures {
            let bands = (0..<40).flatMap { v in (0..<40).map { band(v, $0) } }
            return MelFeatures(
                frameRate: 10, framesPerVector: 1, bandCount: 40, coefficientCount: 13,
                bandCentres: centres, bands: bands, mfcc: [Float](repeating: 0, count: 40 * 13))
        }
        let steady = ActivityFrames.vocalVariance(of: mel { _, _ in 3 }, frames: 40)
        #expect(steady?.allSatisfy { $0 == 0 } == true)
        let vowels = ActivityFrames.vocalVariance(of: mel { v, k in k == inside && v % 4 < 2 ? 5 : 3 }, frames: 40)
        #expect((vowels?[20] ?? 0) > 0.1)
        let cymbal = ActivityFrames.vocalVariance(of: mel { v, k in k == above && v % 4 < 2 ? 5 : 3 }, frames: 40)
        #expect(cymbal?.allSatisfy { $0 == 0 } == true)
        let mfccOnly = MelFeatures(
            frameRate: 10, framesPerVector: 1, bandCount: 40, coefficientCount: 13, bandCentres: centres,
            bands: [], mfcc: (0..<40).flatMap { v in (0..<13).map { $0 == 2 && v % 2 == 0 ? Float(1) : 0 } })
        #expect((ActivityFrames.vocalVariance(of: mfccOnly, frames: 40)?[20] ?? 0) > 0.2)
        let neither = MelFeatures(frameRate: .infinity, framesPerVector: 4, bandCount: 0, coefficientCount: 1, bandCentres: [], bands: [], mfcc: [1, 2])
        #expect(ActivityFrames.vocalVariance(of: neither, frames: 10) == nil)
    }

    @Test func bandMixHasEveryInstrument() async throws {
        let s = 8.0
        try await check(
            ActivitySynth.mix([
                ActivitySynth.drums(seconds: s, gain: 0.35), ActivitySynth.bass(seconds: s), ActivitySynth.chords(seconds: s, gain: 0.06),
                ActivitySynth.voice(seconds: s),
            ]),
            present: [.drum, .bass, .other, .vocal], absent: [])
    }

    @Test func drumsAndBassWithoutVoice() async throws {
        let s = 8.0
        try await check(
            ActivitySynth.mix([ActivitySynth.drums(seconds: s), ActivitySynth.bass(seconds: s)]), present: [.drum, .bass], absent: [.vocal, .other])
    }

    @Test func silenceSineAndNoiseHaveNoVocal() async throws {
        try await check(ActivitySynth.empty(5), present: [], absent: [.vocal, .drum, .bass, .other])
        try await check(ActivitySynth.sine(seconds: 5), present: [], absent: [.vocal, .drum])
        try await check(ActivitySynth.whiteNoise(seconds: 5), present: [], absent: [.vocal, .bass])
    }

    @Test func curvesAreTenHertzInZeroOne() async throws {
        let samples = ActivitySynth.mix([ActivitySynth.drums(seconds: 4.05), ActivitySynth.chords(seconds: 4.05)])
        let result = try await ActivitySynth.analyze(samples, for: [.instrumentActivity])
        let activity = try #require(result.instrumentActivity)
        for instrument in Instrument.allCases {
            let curve = try #require(activity.activity[instrument])
            #expect(curve.count == 41)
            for (i, point) in curve.enumerated() {
                #expect(abs(point.time - Double(i) / 10) < 1e-9)
                #expect(point.value >= 0 && point.value <= 1)
            }
            for r in activity.ranges[instrument] ?? [] { #expect(r.start >= 0 && r.end <= 4.05 + 1e-9 && r.duration > 0) }
        }
        #expect((activity.activity[.drum] ?? []).contains { $0.value > 0.3 })
    }

    @Test func rangeTrackerBridgesGapsAndDropsBlips() {
        let tracker = RangeTracker(on: 0, off: -3, bridge: 1, minimumDuration: 0.5)
        var score = [Float](repeating: -10, count: 100)
        for i in 10..<30 { score[i] = 1 }  // 2 s present
        for i in 35..<50 { score[i] = 1 }  // after a 0.5 s gap: bridged
        score[80] = 5; score[81] = 5  // a 0.2 s blip: dropped
        for i in 50..<55 { score[i] = -2 }  // between off and on: stays open
        let ranges = RangeTracker.ranges(of: tracker.mask(score, rate: 10), rate: 10, duration: 10)
        #expect(ranges.count == 1)
        #expect(abs((ranges.first?.start ?? 0) - 1) < 1e-9 && abs((ranges.first?.end ?? 0) - 5.5) < 1e-9)
        #expect(tracker.mask([.nan, .infinity, -.infinity], rate: 10) == [false, false, false])
    }

    @Test func hostileFeaturesAreSafe() {
        let analyzer = InstrumentActivityAnalyzer()
        let empty = analyzer.analyze(SharedFeatures(duration: 0))
        #expect(Set(empty.ranges.keys) == Set(Instrument.allCases) && empty.activity.values.allSatisfy { $0.isEmpty })
        let hp = HarmonicPercussiveFeatures(
            frameRate: 21.5, framesPerVector: 4, bandEdges: [0, 120, 250, 2000, 5000, 11_000],
            harmonic: [.nan, 1, 2], percussive: [.infinity], residual: [])
        let odd = analyzer.analyze(SharedFeatures(duration: .nan, harmonicPercussive: hp))
        #expect(odd.activity.values.allSatisfy { $0.isEmpty })
        let short = analyzer.analyze(SharedFeatures(duration: 2, harmonicPercussive: hp))
        #expect((short.activity[.drum]?.count ?? 0) <= 20 && short.activity[.drum]?.allSatisfy { $0.value == 0 } == true)
        // A duration far beyond the features allocates nothing unbounded.
        let huge = analyzer.analyze(SharedFeatures(duration: 1e12, harmonicPercussive: hp))
        #expect((huge.activity[.drum]?.count ?? 0) <= 11)
    }
}
