import Foundation
import Testing
@testable import MusicUnderstanding

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

    /// The same voice 30 dB quieter (a quietly mastered recording) is as vocal: the pitch-motion
    /// grid's floor and gate and the mel bands' floor follow the loudest level so far below a loud
    /// master's (with the fixed floors, the real dev set's singing read 0.8 % vocal at −24 dB).
    @Test func quietVoiceIsAsVocal() async throws {
        let loud = ActivitySynth.voice(seconds: 8)
        let quiet = loud.map { $0 * Float(pow(10, -30.0 / 20)) }
        var shares: [Double] = []
        for samples in [loud, quiet] {
            let result = try await ActivitySynth.analyze(samples, for: [.instrumentActivity])
            let activity = try #require(result.instrumentActivity)
            shares.append(activityCoverage(activity.ranges[.vocal], duration: 8))
        }
        #expect(shares[0] >= 0.6 && shares[1] >= 0.6, "vocal share loud / quiet: \(shares)")
        #expect(abs(shares[0] - shares[1]) <= 0.1, "vocal share loud / quiet: \(shares)")
    }

    /// The mel bands' floor follows the loudest band so far: the band values of a copy 40 dB
    /// down are those of the original less a constant (the gain in bels, less the knee) wherever
    /// the original lies well above its floor, so the cepstral variances do not change. The line
    /// is played twice and the second time compared, when the loudest level of both is reached.
    @Test func melBandsFollowTheGainBelowALoudMaster() {
        let line = ActivitySynth.voice(seconds: 3, gain: 0.1)
        let loud = line + line
        func bands(_ samples: [Float]) -> [Float] { FeatureSynth.mel(samples).0.bands }
        let a = bands(loud), b = bands(loud.map { $0 * 0.01 })  // 40 dB down
        #expect(a.count == b.count && !a.isEmpty)
        var differences: [Float] = []
        for i in (a.count / 2 + 400)..<a.count where a[i] > 3 { differences.append(a[i] - b[i]) }
        #expect(differences.count > 100)
        let spread = (differences.max() ?? 0) - (differences.min() ?? 0)
        #expect(spread < 0.05, "the quiet copy's bands are the loud ones less a constant (spread \(spread) bels)")
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
