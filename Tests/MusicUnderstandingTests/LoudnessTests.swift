import Foundation
import Testing
@testable import MusicUnderstanding

// Tests of the BS.1770-4 / EBU R128 loudness meter against the published EBU test cases
// (Tech 3341 "EBU Mode" metering, Tech 3342 loudness range), each synthesised here, with the
// published tolerances.

/// Runs a meter over a whole signal.
private func measure(
    _ samples: [Float], sampleRate: Double = 48_000, channels: [AudioChannel]? = nil,
    truePeak: Bool = false
) -> (LoudnessResult, LoudnessMeter) {
    let layout = channels ?? AudioChannel.defaultLayout(channelCount: 2)
    let meter = LoudnessMeter(
        sampleRate: sampleRate, channels: layout,
        configuration: .init(measuresTruePeak: truePeak))
    meter.add(samples)
    return (meter.result(), meter)
}

private func values(_ series: [MusicUnderstandingSession.TimedValue<Float>], from start: Double, to end: Double) -> [Float] {
    series.filter { $0.time >= start - 1e-9 && $0.time <= end + 1e-9 }.map(\.value)
}

// MARK: - K-weighting

@Test func kWeightingAt48kHzReproducesBS1770Tables() {
    let k = KWeighting(sampleRate: 48_000)
    // ITU-R BS.1770-4, Annex 1, Table 1 (pre-filter) and Table 2 (RLB filter).
    #expect(abs(k.preFilter.b0 - 1.53512485958697) < 1e-10)
    #expect(abs(k.preFilter.b1 - -2.69169618940638) < 1e-10)
    #expect(abs(k.preFilter.b2 - 1.19839281085285) < 1e-10)
    #expect(abs(k.preFilter.a1 - -1.69065929318241) < 1e-10)
    #expect(abs(k.preFilter.a2 - 0.73248077421585) < 1e-10)
    #expect(abs(k.rlbFilter.a1 - -1.99004745483398) < 1e-10)
    #expect(abs(k.rlbFilter.a2 - 0.99007225036621) < 1e-10)
}

// MARK: - EBU Tech 3341, Table 1

@Test(arguments: [(-23.0, -23.0), (-33.0, -33.0)])
func tech3341Cases1And2StationarySine(level: Double, expected: Double) {
    let (r, _) = measure(Signal.sines([(level, 20)]))
    #expect(abs(Double(r.integrated.value) - expected) <= 0.1)
    let m = values(r.momentary, from: 0.4, to: 20)
    let s = values(r.shortTerm, from: 3.0, to: 20)
    #expect(m.count == 197 && s.count == 171)
    #expect(m.allSatisfy { abs(Double($0) - expected) <= 0.1 })
    #expect(s.allSatisfy { abs(Double($0) - expected) <= 0.1 })
    #expect(abs(r.integrated.time - 20) < 1e-9)
}

@Test func tech3341Case3GatesTheQuietEnds() {
    let (r, _) = measure(Signal.sines([(-36, 10), (-23, 60), (-36, 10)]))
    #expect(abs(Double(r.integrated.value) - -23) <= 0.1)
}

@Test func tech3341Case4GatesSilenceAndQuietParts() {
    let (r, _) = measure(Signal.sines([(-72, 10), (-36, 10), (-23, 60), (-36, 10), (-72, 10)]))
    #expect(abs(Double(r.integrated.value) - -23) <= 0.1)
}

@Test func tech3341Case5AveragesLoudParts() {
    let (r, _) = measure(Signal.sines([(-26, 20), (-20, 20.1), (-26, 20)]))
    #expect(abs(Double(r.integrated.value) - -23) <= 0.1)
}

@Test func tech3341Case6FiveChannels() {
    // 5.0: L, R at -28 dBFS, C at -24, Ls, Rs at -30 (surround weight 1.41).
    let layout: [AudioChannel] = [.frontLeft, .frontRight, .frontCenter, .backLeft, .backRight]
    let x = Signal.sines([(0, 20)], channels: 5, channelGains: [-28, -28, -24, -30, -30])
    let (r, _) = measure(x, channels: layout)
    #expect(abs(Double(r.integrated.value) - -23) <= 0.1)
}

@Test func lowFrequencyEffectsChannelIsExcluded() {
    // Case 6 as 5.1, once with a silent LFE and once with a loud 60 Hz tone on it.
    let layout = AudioChannel.defaultLayout(channelCount: 6)  // L R C LFE Ls Rs
    let main = Signal.sines([(0, 6)], channels: 6, channelGains: [-28, -28, -24, -200, -30, -30])
    let lfe = Signal.sines([(-10, 6)], frequency: 60, channels: 6, channelGains: [-300, -300, -300, 0, -300, -300])
    let withLFE = zip(main, lfe).map { $0 + $1 }
    let (quiet, _) = measure(main, channels: layout)
    let (loud, _) = measure(withLFE, channels: layout)
    #expect(abs(Double(quiet.integrated.value) - -23) <= 0.1)
    #expect(abs(quiet.integrated.value - loud.integrated.value) < 1e-4)
    // The LFE still counts for the peaks.
    #expect(loud.peak.value > -10.5 && loud.peak.value < -9.5)
}

@Test func tech3341Case9ShortTermIsConstant() {
    // 1.34 s at -20 dBFS + 1.66 s at -30 dBFS repeated: every 3 s window has the same energy.
    let pattern = [(dBFS: -20.0, seconds: 1.34), (dBFS: -30.0, seconds: 1.66)]
    let (r, _) = measure(Signal.sines(Array(repeating: pattern, count: 5).flatMap { $0 }))
    let s = values(r.shortTerm, from: 3.0, to: 15)
    #expect(s.count == 121)
    #expect(s.allSatisfy { abs(Double($0) - -23) <= 0.1 })
}

@Test func tech3341Case12MomentaryIsConstant() {
    // 0.18 s at -20 dBFS + 0.22 s at -30 dBFS repeated: every 400 ms window has the same energy.
    let pattern = [(dBFS: -20.0, seconds: 0.18), (dBFS: -30.0, seconds: 0.22)]
    let (r, _) = measure(Signal.sines(Array(repeating: pattern, count: 25).flatMap { $0 }))
    let m = values(r.momentary, from: 0.4, to: 10)
    #expect(m.count == 97)
    #expect(m.allSatisfy { abs(Double($0) - -23) <= 0.1 })
}

@Test func tech3341Cases10And11MaximaOfSingleBursts() {
    // Single-burst forms: a 3 s and a 0.4 s burst at -23 dBFS, aligned with the 100 ms grid.
    let (s, _) = measure(Signal.sines([(-200, 2), (-23, 3), (-200, 2)]))
    let maxShortTerm = s.shortTerm.map(\.value).max() ?? -.infinity
    #expect(abs(Double(maxShortTerm) - -23) <= 0.1)
    let (m, _) = measure(Signal.sines([(-200, 2), (-23, 0.4), (-200, 2)]))
    let maxMomentary = m.momentary.map(\.value).max() ?? -.infinity
    #expect(abs(Double(maxMomentary) - -23) <= 0.1)
    // The maximum comes exactly when the window holds the whole burst.
    #expect(m.momentary.first { $0.value == maxMomentary }.map { abs($0.time - 2.4) < 1e-9 } == true)
}

// MARK: - EBU Tech 3342, loudness range

@Test(arguments: [
    ([(-20.0, 20.0), (-30.0, 20.0)], 10.0),
    ([(-20.0, 20.0), (-15.0, 20.0)], 5.0),
    ([(-40.0, 20.0), (-20.0, 20.0)], 20.0),
    ([(-50.0, 20.0), (-35.0, 20.0), (-20.0, 20.0), (-35.0, 20.0), (-50.0, 20.0)], 15.0),
])
func tech3342Cases1To4LoudnessRange(segments: [(Double, Double)], expected: Double) {
    let (r, _) = measure(Signal.sines(segments.map { (dBFS: $0.0, seconds: $0.1) }))
    #expect(abs(Double(r.loudnessRange) - expected) <= 1)
}

// MARK: - True peak (BS.1770-4 Annex 2; sines modelled on EBU Tech 3341 cases 15-19)

/// A stereo sine of `seconds` at 48 kHz with 50 ms raised-cosine fades (no onset overshoot).
private func fadedSine(frequency: Double, amplitude: Double, phaseDegrees: Double, seconds: Double = 1) -> [Float] {
    let rate = 48_000.0
    let n = Int(seconds * rate)
    let fade = 2_400
    var x = [Float](repeating: 0, count: 2 * n)
    for i in 0..<n {
        var env = 1.0
        if i < fade { env = 0.5 - 0.5 * cos(.pi * Double(i) / Double(fade)) }
        if i >= n - fade { env = 0.5 - 0.5 * cos(.pi * Double(n - 1 - i) / Double(fade)) }
        let v = Float(amplitude * env * sin(2 * .pi * frequency * Double(i) / rate + phaseDegrees * .pi / 180))
        x[2 * i] = v
        x[2 * i + 1] = v
    }
    return x
}

@Test(arguments: [(12_000.0, 0.5, 0.0), (12_000.0, 0.5, 45.0), (8_000.0, 0.5, 60.0), (6_000.0, 0.5, 67.5), (12_000.0, 1.41, 45.0)])
func truePeakOfSinesWithinTech3341Tolerance(frequency: Double, amplitude: Double, phase: Double) {
    let (r, _) = measure(fadedSine(frequency: frequency, amplitude: amplitude, phaseDegrees: phase), truePeak: true)
    let expected = 20 * log10(amplitude)
    let error = Double(r.truePeak) - expected
    #expect(error <= 0.2 && error >= -0.4, "true peak \(r.truePeak) dBTP, expected \(expected)")
    #expect(r.truePeak >= r.peak.value)
}

@Test func truePeakBetweenSamplesExceedsSamplePeak() {
    // fs/4 with a 45° offset: every sample sits at ±sin(45°) of the crest, 3.01 dB below it.
    let x = fadedSine(frequency: 12_000, amplitude: 0.5, phaseDegrees: 45)
    let (r, meter) = measure(x, truePeak: true)
    #expect(abs(Double(r.peak.value) - (-6.0206 - 3.0103)) < 0.01)
    // The 49-tap interpolator's passband loss at fs/4 is 0.03 dB.
    #expect(abs(Double(r.truePeak) - -6.0206) < 0.05)
    #expect(abs(meter.truePeak() - Double(r.truePeak)) < 1e-6)
    // Without true-peak measurement the sample peak is reported.
    let (plain, _) = measure(x, truePeak: false)
    #expect(plain.truePeak == plain.peak.value)
}

@Test func samplePeakAndItsTime() {
    var x = [Float](repeating: 0.1, count: 2 * 48_000)
    x[2 * 30_000 + 1] = -0.5  // right channel, frame 30000
    let (r, _) = measure(x, truePeak: true)
    #expect(abs(Double(r.peak.value) - 20 * log10(0.5)) < 1e-4)
    #expect(abs(r.peak.time - 30_000.0 / 48_000) < 1e-9)
    #expect(r.truePeak >= r.peak.value)
}

// MARK: - Layouts and sample rates

@Test func monoSineIsThreeDecibelsBelowStereo() {
    // BS.1770 sums channel powers: a single channel at -23 dBFS is -23 - 10·log10(2) = -26.01 LUFS.
    let (r, _) = measure(Signal.sines([(-23, 10)], channels: 1), channels: [.frontCenter])
    #expect(abs(Double(r.integrated.value) - -26.01) <= 0.05)
}

@Test(arguments: [(44_100.0, 0.1), (96_000.0, 0.1), (8_000.0, 0.3), (22_050.0, 0.1), (11_025.0, 0.15)])
func integratedLoudnessIsIndependentOfSampleRate(rate: Double, tolerance: Double) {
    let (reference, _) = measure(Signal.sines([(-23, 5)]))
    let (r, _) = measure(Signal.sines([(-23, 5)], sampleRate: rate), sampleRate: rate)
    #expect(abs(Double(reference.integrated.value) - -23) <= 0.1)
    #expect(abs(Double(r.integrated.value - reference.integrated.value)) <= tolerance)
    #expect(r.momentary.count == 50)
}

// MARK: - Silence and bad formats

@Test func silenceIsMinusInfinity() {
    let (r, meter) = measure([Float](repeating: 0, count: 2 * 48_000 * 5), truePeak: true)
    #expect(r.integrated.value == -.infinity)
    #expect(r.momentary.count == 50 && r.momentary.allSatisfy { $0.value == -.infinity })
    #expect(r.shortTerm.allSatisfy { $0.value == -.infinity })
    #expect(r.loudnessRange == 0)
    #expect(r.truePeak == -.infinity && r.peak.value == -.infinity)
    #expect(meter.integratedLoudness() == -.infinity)
    // The contract writes minus infinity as null.
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let json = String(decoding: (try? encoder.encode(r)) ?? Data(), as: UTF8.self)
    #expect(json.contains("\"integrated\":{\"time\":5,\"value\":null}"))
}

@Test func unusableFormatsAreIgnoredWithoutCrashing() {
    for (rate, layout) in [(0.0, [AudioChannel.frontLeft]), (.nan, [.frontLeft]), (4e300, [.frontLeft]), (48_000, [])] {
        let meter = LoudnessMeter(sampleRate: rate, channels: layout)
        meter.add([0.5, 0.5, 0.5])
        let r = meter.result()
        #expect(r.integrated.value == -.infinity && r.momentary.isEmpty)
    }
    // Non-finite samples do not poison the meter.
    let meter = LoudnessMeter(sampleRate: 48_000, channels: [.frontCenter])
    var x = Signal.sines([(-23, 2)], channels: 1)
    x[100] = .nan
    meter.add(x)
    meter.add(Signal.sines([(-23, 2)], channels: 1))
    #expect(meter.momentaryLoudness().isFinite)
    #expect(meter.integratedLoudness().isFinite)
}

// MARK: - Streaming

@Test(arguments: [1, 7, 4801])
func chunkedInputGivesTheSameResult(chunkFrames: Int) {
    let x = Signal.noise(seconds: chunkFrames == 1 ? 1.5 : 4.05)
    let whole = LoudnessMeter(sampleRate: 48_000, channels: AudioChannel.defaultLayout(channelCount: 2))
    var wholeSteps: [LoudnessStep] = []
    whole.add(x) { wholeSteps.append($0) }
    let chunked = LoudnessMeter(sampleRate: 48_000, channels: AudioChannel.defaultLayout(channelCount: 2))
    var chunkedSteps: [LoudnessStep] = []
    var i = 0
    while i < x.count {
        let end = min(x.count, i + 2 * chunkFrames)
        chunked.add(Array(x[i..<end])) { chunkedSteps.append($0) }
        i = end
    }
    #expect(wholeSteps == chunkedSteps)
    let a = whole.result(), b = chunked.result()
    #expect(a.integrated.value == b.integrated.value && a.loudnessRange == b.loudnessRange)
    #expect(a.truePeak == b.truePeak && a.peak.value == b.peak.value && a.peak.time == b.peak.time)
    #expect(a.momentary.map(\.value) == b.momentary.map(\.value))
    #expect(a.shortTerm.map(\.value) == b.shortTerm.map(\.value))
}

/// The live meter's mode: no series kept, every step and every summary value the same.
@Test func meterWithoutSeriesGivesTheSameValues() {
    let x = Signal.noise(seconds: 12.35)
    let layout = AudioChannel.defaultLayout(channelCount: 2)
    let full = LoudnessMeter(sampleRate: 48_000, channels: layout)
    let live = LoudnessMeter(sampleRate: 48_000, channels: layout, configuration: .init(keepsSeries: false))
    var fullSteps: [LoudnessStep] = [], liveSteps: [LoudnessStep] = []
    full.add(x) { fullSteps.append($0) }
    live.add(x) { liveSteps.append($0) }
    #expect(fullSteps.count == 123 && liveSteps == fullSteps)
    let a = full.result(), b = live.result()
    #expect(a.momentary.count == 123 && b.momentary.isEmpty && b.shortTerm.isEmpty)
    #expect(a.integrated.time == b.integrated.time && a.integrated.value == b.integrated.value && a.peak.time == b.peak.time)
    #expect(a.peak.value == b.peak.value && a.loudnessRange == b.loudnessRange && a.truePeak == b.truePeak)
}

@Test(arguments: [48_000.0, 44_100.0, 22_050.0])
func oneStepPerHundredMilliseconds(rate: Double) {
    let frames = Int(10.05 * rate)
    let meter = LoudnessMeter(
        sampleRate: rate, channels: [.frontLeft, .frontRight],
        configuration: .init(measuresTruePeak: false))
    var steps: [LoudnessStep] = []
    meter.add(Signal.noise(seconds: Double(frames) / rate, sampleRate: rate)) { steps.append($0) }
    #expect(steps.count == 100)
    #expect(steps.enumerated().allSatisfy { abs($0.element.time - Double($0.offset + 1) / 10) < 1e-9 })
    let r = meter.result()
    #expect(r.momentary.count == 100 && r.shortTerm.count == 100)
    // The live values of the last step are the final ones.
    #expect(steps.last?.integrated == r.integrated.value)
    #expect(steps.last?.loudnessRange == r.loudnessRange)
    #expect(abs(r.integrated.time - Double(frames) / rate) < 1e-9)
}

// MARK: - Histogram gating against exact computation

@Test func histogramMatchesExactGating() {
    var state: UInt64 = 7
    func uniform() -> Double {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Double(state >> 11) / Double(1 << 53)
    }
    // Block loudnesses spread over -80 ... 0 LUFS with a loud cluster.
    var values: [Double] = []
    for i in 0..<5000 {
        values.append(i % 3 == 0 ? -80 + 80 * uniform() : -25 + 8 * uniform())
    }
    var histogram = LoudnessHistogram()
    for v in values { histogram.insert(energy: LoudnessScale.energy(ofLoudness: v)) }

    // Exact BS.1770 gating.
    let absGated = values.filter { $0 >= -70 }
    let meanEnergy = absGated.map { LoudnessScale.energy(ofLoudness: $0) }.reduce(0, +) / Double(absGated.count)
    let gate = LoudnessScale.loudness(ofEnergy: meanEnergy) - 10
    let relGated = absGated.filter { $0 >= gate }
    let exactI = LoudnessScale.loudness(ofEnergy: relGated.map { LoudnessScale.energy(ofLoudness: $0) }.reduce(0, +) / Double(relGated.count))
    #expect(abs(histogram.integratedLoudness() - exactI) < 0.01)

    // Exact Tech 3342 range (nearest-rank percentiles).
    let lraGate = LoudnessScale.loudness(ofEnergy: meanEnergy) - 20
    let sorted = absGated.filter { $0 >= lraGate }.sorted()
    let lo = sorted[Int((Double(sorted.count - 1) * 0.1).rounded())]
    let hi = sorted[Int((Double(sorted.count - 1) * 0.95).rounded())]
    #expect(abs(histogram.loudnessRange() - (hi - lo)) < 0.02)
}

@Test func loudnessRangeFollowsItsShortTermValues() {
    // Tech 3342 on a signal whose loudness swings (20 s envelope period), checked against an exact
    // computation from the meter's own short-term series: the values at 3 s, 4 s, 5 s, ...
    // (the default one-per-second stride), gated at -70 LUFS and -20 LU, nearest-rank percentiles.
    let rate = 16_000.0
    let (r, _) = measure(Signal.noise(seconds: 40, sampleRate: rate, channels: 1, envelopeHz: 0.05), sampleRate: rate, channels: [.frontCenter])
    let picked = r.shortTerm.filter { $0.time >= 3 - 1e-9 && abs($0.time - $0.time.rounded()) < 1e-6 }.map { Double($0.value) }
    #expect(picked.count == 38)
    let absGated = picked.filter { $0 >= -70 }
    let mean = absGated.map { LoudnessScale.energy(ofLoudness: $0) }.reduce(0, +) / Double(absGated.count)
    let gated = absGated.filter { $0 >= LoudnessScale.loudness(ofEnergy: mean) - 20 }.sorted()
    let lra = gated[Int((Double(gated.count - 1) * 0.95).rounded())] - gated[Int((Double(gated.count - 1) * 0.1).rounded())]
    #expect(lra > 3)
    #expect(abs(Double(r.loudnessRange) - lra) < 0.02)
}
