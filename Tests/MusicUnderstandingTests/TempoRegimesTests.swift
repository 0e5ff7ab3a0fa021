import Foundation
import Testing
@testable import MusicUnderstanding

/// Step 4a of the rhythm chain: passages of another tempo (``TempoRegimes``).
@Suite struct TempoRegimesTests {
    /// Local periods (frames) of windows every 100 frames at 10 frames per second (10 s apart,
    /// 40 s long), so the 30 s shortest passage is three windows.
    private func changes(_ local: [Double?], period: Double = 40) -> [TempoRegimes.Change] {
        TempoRegimes(settings: .init()).changes(local: local, hop: 100, length: 400, period: period, frameRate: 10)
    }

    /// Twelve windows at the global period, then twelve at 0.775 of it (a second song 1.29 times
    /// as fast): the prior moves to the second tempo from between the runs' windows on.
    @Test func aSecondTempoIsAPassage() throws {
        let found = changes(Array(repeating: 40, count: 12) + Array(repeating: 31, count: 12))
        try #require(found.count == 2)
        #expect(found[0] == .init(frame: 0, ratio: 1))
        #expect(found[1].frame == 1350)
        #expect(abs(found[1].ratio - 0.775) < 1e-9)
        // The global tempo may as well be the second one.
        let reversed = changes(Array(repeating: 31, count: 12) + Array(repeating: 40, count: 12), period: 40)
        #expect(reversed.map(\.ratio) == [0.775, 1])
    }

    /// Octave swaps, a 4:3 or 3:2 level of the same pulse, a passage shorter than 30 s and a
    /// drift of 8 % are no passages.
    @Test func octavesMetricalLevelsShortRunsAndDriftAreNot() {
        #expect(changes((0..<24).map { $0 % 3 == 0 ? 20 : ($0 % 3 == 1 ? 40 : 80) }).isEmpty)
        #expect(changes(Array(repeating: 40, count: 12) + Array(repeating: 30, count: 12)).isEmpty)
        #expect(changes(Array(repeating: 40, count: 12) + Array(repeating: 26.67, count: 12)).isEmpty)
        #expect(changes(Array(repeating: 40, count: 12) + Array(repeating: 31, count: 2) + Array(repeating: 40, count: 12)).isEmpty)
        #expect(changes((0..<24).map { 40 * (1 + 0.08 * Double($0) / 23) }).isEmpty)
        #expect(changes(Array(repeating: nil, count: 24)).isEmpty)
        var off = RhythmAnalyzer.Configuration.BeatSettings()
        off.tempoRegimeChange = 1
        let local = Array(repeating: 40.0, count: 12) + Array(repeating: 31.0, count: 12)
        #expect(TempoRegimes(settings: off).changes(local: local, hop: 100, length: 400, period: 40, frameRate: 10).isEmpty)
    }

    /// A run in which fewer than half the windows agree with its class (scattered estimates, as
    /// in a rubato solo) is no passage.
    @Test func scatteredEstimatesAreNoPassage() {
        let scattered: [Double?] = [31, 52, 33, 47, 31, 57, 29, 44, 36, 55, 31, 49]
        #expect(changes(Array(repeating: 40, count: 12) + scattered).isEmpty)
    }

    /// The step on an onset curve of pulses at 128 BPM for 60 s and 100 BPM for 60 s (100 frames
    /// per second): a passage in a drummed texture, none in a legato one (impulsive share under
    /// `tempoRegimeTexture`, where the weak prior follows the change by itself) or a clip too
    /// short for two 30 s passages.
    @Test func passagesAreLookedForInDrummedTexturesOnly() throws {
        let rate = 100.0
        var curve = [Float](repeating: 0.05, count: 12_000)
        for t in stride(from: 0.0, to: 60, by: 60 / 128.0) { curve[Int(t * rate)] = 1 }
        for t in stride(from: 60.0, to: 119.9, by: 0.6) { curve[Int(t * rate)] = 1 }
        let analyzer = RhythmAnalyzer()
        let estimator = TempoEstimator(configuration: analyzer.configuration)
        let global = rate * 60 / 128
        let found = analyzer.tempoPassages(curve, frameRate: rate, period: global, estimator: estimator, impulsiveShare: 1)
        try #require(found.count == 2)
        #expect(found[0].ratio == 1)
        #expect(abs(found[1].ratio - 1.28) < 0.03)
        #expect(abs(Double(found[1].frame) / rate - 60) < 6)
        #expect(analyzer.tempoPassages(curve, frameRate: rate, period: global, estimator: estimator, impulsiveShare: 0.3).isEmpty)
        let clip = Array(curve[3_000..<9_000])
        #expect(analyzer.tempoPassages(clip, frameRate: rate, period: global, estimator: estimator, impulsiveShare: 1).isEmpty)
    }

    /// Two drum loops in one file, 128 BPM for 50 s and then 100 BPM for 50 s (a medley; 1.28
    /// apart, no metrical relation), tracked with a strong tempo prior (κ 60, where clean drums
    /// would overrule the default one): with step 4a the prior follows each loop and both get
    /// their beats; with the step off, the prior around the one global tempo pulls one loop's
    /// beats onto another period.
    @Test func beatsFollowASecondSongAtAnotherTempo() {
        let samples = KeySignals.drums(seconds: 50, bpm: 128, toms: false) + KeySignals.drums(seconds: 50, bpm: 100, toms: true, seed: 9)
        let first = stride(from: 0.0, to: 49.5, by: 60 / 128.0).map { $0 }
        let second = stride(from: 50.0, to: 99.5, by: 0.6).map { $0 }
        func hits(_ result: RhythmResult, _ truth: [Double], from start: Double, to end: Double) -> Double {
            Synth.hitRate(result.beats.filter { $0 >= start && $0 < end }, truth.filter { $0 >= start && $0 < end }, skip: start)
        }
        var strong = RhythmAnalyzer.Configuration()
        strong.beats.periodPriorWeight = 60
        strong.beats.impulsivePeriodPriorWeight = 60
        let result = Synth.analyze(samples, configuration: strong)
        #expect(hits(result, first, from: 3, to: 45) >= 0.95)
        #expect(hits(result, second, from: 58, to: 97) >= 0.95)
        var off = strong
        off.beats.tempoRegimeChange = 1
        let held = Synth.analyze(samples, configuration: off)
        #expect(min(hits(held, first, from: 3, to: 45), hits(held, second, from: 58, to: 97)) < 0.8)
    }
}
