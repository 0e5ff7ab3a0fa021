import Foundation
import Testing

@testable import MusicUnderstanding

// The suite's one test-signal module: every synthesised signal with a known answer, the WAV
// writer, and the deterministic random numbers the signals draw from (one implementation of each
// generator: ``MMIXRandom``, ``LCG32``, ``SplitMix64``). Tests build their inputs from here.

/// Knuth's MMIX linear congruential generator (64-bit), the cheap noise source of the signals,
/// with the output mappings the tests' expectations were measured with.
struct MMIXRandom {
    var state: UInt64
    /// The next state.
    mutating func step() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }
    /// Uniform in [-1, 1), 24 bits.
    mutating func signed24() -> Float { Float(step() >> 40) / Float(1 << 23) - 1 }
    /// Uniform in [-1, 1), 53 bits.
    mutating func signed53() -> Float { Float(Int64(bitPattern: step() >> 11) - (1 << 52)) / Float(1 << 52) }
    /// Uniform in [-0.5, 0.5), 24 bits.
    mutating func centred24() -> Float { Float(step() >> 40) / Float(1 << 24) - 0.5 }
}

/// Numerical Recipes' 32-bit linear congruential generator.
struct LCG32 {
    var state: UInt32 = 12_345
    /// The next state.
    mutating func step() -> UInt32 {
        state = state &* 1_664_525 &+ 1_013_904_223
        return state
    }
    /// Uniform in [-1, 1).
    mutating func signed() -> Float { Float(step() >> 8) / Float(1 << 23) - 1 }
    /// A byte (the state's top 8 bits).
    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: step() >> 24) }
}

extension SplitMix64 {
    /// Uniform in [-1, 1), 53 bits.
    mutating func signed() -> Float { Float(Double(next() >> 11) / Double(1 << 53)) * 2 - 1 }
}

/// Synthesised test signals shared by the session and batch tests.
enum TestSignal {
    /// A stereo sine, interleaved, at `amplitude` (peak), `seconds` long.
    static func stereoSine(frequency: Double = 1000, amplitude: Float = 0.5, seconds: Double, rate: Double = 48_000) -> [Float] {
        let n = Int(seconds * rate)
        var out = [Float](repeating: 0, count: 2 * n)
        for i in 0..<n {
            let v = amplitude * Float(sin(2 * Double.pi * frequency * Double(i) / rate))
            out[2 * i] = v
            out[2 * i + 1] = v
        }
        return out
    }

    /// Splits interleaved stereo into buffers of `frames` frames.
    static func buffers(_ samples: [Float], rate: Double = 48_000, frames: Int = 4800) -> [PCMBuffer] {
        stride(from: 0, to: samples.count, by: 2 * frames).map { start in
            PCMBuffer(sampleRate: rate, channelCount: 2, samples: Array(samples[start..<min(samples.count, start + 2 * frames)]))
        }
    }

    /// An async provider sequence ending with `nil`.
    static func provider(_ buffers: [PCMBuffer]) -> AsyncStream<PCMBuffer?> {
        AsyncStream { c in
            for b in buffers { c.yield(b) }
            c.yield(nil)
            c.finish()
        }
    }
}

/// A tiny seeded generator (SplitMix64), so that the random cases are the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Writes interleaved stereo float samples as a 16-bit PCM WAV file.
enum WAVFile {
    static func write(_ samples: [Float], rate: Int, channels: Int = 2, to url: URL) throws {
        var data = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        let bytes = UInt32(samples.count * 2)
        data.append(contentsOf: Array("RIFF".utf8)); u32(36 + bytes)
        data.append(contentsOf: Array("WAVEfmt ".utf8)); u32(16); u16(1); u16(UInt16(channels))
        u32(UInt32(rate)); u32(UInt32(rate * channels * 2)); u16(UInt16(channels * 2)); u16(16)
        data.append(contentsOf: Array("data".utf8)); u32(bytes)
        data.reserveCapacity(data.count + samples.count * 2)
        for s in samples { u16(UInt16(bitPattern: Int16(max(-1, min(1, s)) * 32767))) }
        try data.write(to: url)
    }
}

/// Synthesised signals and a minimal STFT driver for the spectral-frame consumers.
enum FeatureSynth {
    static let rate = 22_050.0
    static let configuration = FeatureConfiguration()

    /// Deterministic white noise, uniform in [-1, 1).
    /// Deterministic white noise, uniform in [-1, 1) (``MMIXRandom/signed24()``).
    struct Noise {
        var random: MMIXRandom
        init(state: UInt64) { random = MMIXRandom(state: state) }
        mutating func next() -> Float { random.signed24() }
    }

    static func noise(seconds: Double, amplitude: Float, seed: UInt64 = 1) -> [Float] {
        var g = Noise(state: seed)
        return (0..<Int(seconds * rate)).map { _ in amplitude * g.next() }
    }

    /// Sum of sines `(frequency, amplitude)`, constant over `seconds`.
    static func tones(_ partials: [(Double, Float)], seconds: Double) -> [Float] {
        (0..<Int(seconds * rate)).map { i in
            let t = Double(i) / rate
            var s: Float = 0
            for (f, a) in partials { s += a * Float(sin(2 * Double.pi * f * t)) }
            return s
        }
    }

    /// Single-sample impulses of `amplitude` every `period` seconds, the first at `first`.
    static func clicks(seconds: Double, period: Double, first: Double, amplitude: Float = 0.9) -> [Float] {
        var x = [Float](repeating: 0, count: Int(seconds * rate))
        var t = first
        while t < seconds {
            let i = Int((t * rate).rounded())
            if i < x.count { x[i] = amplitude }
            t += period
        }
        return x
    }

    static func mix(_ a: [Float], _ b: [Float]) -> [Float] {
        (0..<max(a.count, b.count)).map { i in (i < a.count ? a[i] : 0) + (i < b.count ? b[i] : 0) }
    }

    /// Runs the centred STFT of the feature stage (periodic Hann 2048, hop 256, half a frame of
    /// zeros at both ends) over `signal` and feeds every frame to `consumer`; returns the frame
    /// count.
    @discardableResult
    static func feed(_ signal: [Float], to consumer: some SpectralFrameConsumer) -> Int {
        let n = configuration.frameSize, hop = configuration.hopSize
        let fft = RealFFT(size: n)
        let window = (0..<n).map { i in Float(0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n))) }
        let padded = [Float](repeating: 0, count: n / 2) + signal + [Float](repeating: 0, count: n / 2)
        var power = [Float](repeating: 0, count: configuration.binCount)
        var index = 0
        var start = 0
        while start + n <= padded.count {
            padded.withUnsafeBufferPointer { src in
                window.withUnsafeBufferPointer { win in
                    power.withUnsafeMutableBufferPointer { p in
                        fft.powerSpectrum(of: UnsafeBufferPointer(rebasing: src[start..<start + n]), window: win, into: p)
                    }
                }
            }
            consumer.consume(SpectralFrame(index: index, magnitude: power.map { $0.squareRoot() }))
            index += 1
            start += hop
        }
        return index
    }

    static func mel(_ signal: [Float], _ settings: MelConfiguration = .init()) -> (MelFeatures, Int) {
        let acc = MelBandAccumulator(configuration: configuration, settings: settings)
        let frames = feed(signal, to: acc)
        return (acc.finish(), frames)
    }

    static func hpss(_ signal: [Float], _ settings: HarmonicPercussiveConfiguration = .init()) -> HarmonicPercussiveFeatures {
        let acc = HarmonicPercussiveAccumulator(configuration: configuration, settings: settings)
        feed(signal, to: acc)
        return acc.finish()
    }
}

/// Synthesised test signals for the key analysis (22 050 Hz mono).
enum KeySignals {
    static let rate = 22_050.0

    /// SplitMix64, for deterministic noise.
    /// Uniform in [-1, 1) (``SplitMix64/signed()``).
    struct Random {
        var random: SplitMix64
        init(state: UInt64) { random = SplitMix64(seed: state) }
        mutating func next() -> Float { random.signed() }
    }

    /// Frequency of MIDI note `m` with A4 = `a4` Hz.
    static func frequency(_ m: Int, a4: Double = 440) -> Double { a4 * pow(2, Double(m - 69) / 12) }

    /// Adds a harmonic-rich tone (sawtooth-like: partials 1/h up to 8 kHz) with a short attack
    /// and release to `out`, starting at `start` seconds for `length` seconds.
    static func addTone(_ out: inout [Float], midi: Int, start: Double, length: Double, gain: Double = 0.08, a4: Double = 440) {
        let f0 = frequency(midi, a4: a4)
        let s0 = Int(start * rate), n = Int(length * rate)
        let attack = 0.01 * rate, release = 0.05 * rate
        var partials: [(Double, Double)] = []
        var h = 1
        while Double(h) * f0 < 8000 && h <= 12 {
            partials.append((2 * Double.pi * Double(h) * f0 / rate, gain / Double(h)))
            h += 1
        }
        for i in 0..<n where s0 + i < out.count {
            let t = Double(i)
            let env = min(1, t / attack) * min(1, Double(n - i) / release)
            var v = 0.0
            for (w, a) in partials { v += a * sin(w * t) }
            out[s0 + i] += Float(v * env)
        }
    }

    /// Pitch classes (relative to the tonic) of the chords of a cadence I-IV-V-I (major) or
    /// i-iv-V-i (minor, with the leading tone).
    static func cadence(minor: Bool) -> [[Int]] {
        let third = minor ? 3 : 4
        let sixth = minor ? 8 : 9
        return [[0, third, 7], [5, sixth, 12], [7, 11, 14], [0, third, 7]]
    }

    /// A cadence in the key of `tonic` (pitch class), chords of `chordLength` seconds, repeated
    /// `repeats` times, starting at `start`; bass an octave and a half below the chord.
    static func addCadence(
        _ out: inout [Float], tonic: Int, minor: Bool, start: Double, chordLength: Double,
        repeats: Int, a4: Double = 440
    ) {
        var t = start
        for _ in 0..<repeats {
            for chord in cadence(minor: minor) {
                let base = 60 + tonic  // C4 ... B4
                for pc in chord { addTone(&out, midi: base + pc, start: t, length: chordLength * 0.95, a4: a4) }
                addTone(&out, midi: base - 12 + chord[0] % 12, start: t, length: chordLength * 0.95, gain: 0.1, a4: a4)
                t += chordLength
            }
        }
    }

    /// Chords given as pitch classes relative to `tonic`, each `chordLength` seconds, repeated
    /// `repeats` times from `start`; each chord's first note is also played as a bass note an
    /// octave and a half below the chord (the chord's root, in the bass register).
    static func addProgression(
        _ out: inout [Float], chords: [[Int]], tonic: Int, start: Double, chordLength: Double,
        repeats: Int
    ) {
        var t = start
        for _ in 0..<repeats {
            for chord in chords {
                let base = 60 + tonic
                for pc in chord { addTone(&out, midi: base + pc, start: t, length: chordLength * 0.95) }
                let root = ((chord[0] % 12) + 12) % 12
                addTone(&out, midi: base - 24 + root, start: t, length: chordLength * 0.95, gain: 0.1)
                t += chordLength
            }
        }
    }

    /// A vocal-like line: a harmonic tone (partials 1/h² up to 4 kHz) whose pitch glides
    /// between the MIDI `notes` (each held `noteLength` seconds, the last 30 % of each note a
    /// portamento to the next) with a 5.5 Hz vibrato of ±40 cents, from `start`.
    static func addGlide(_ out: inout [Float], notes: [Int], start: Double, noteLength: Double, gain: Double = 0.12) {
        guard let lastNote = notes.last else { return }
        let s0 = Int(start * rate), n = Int(Double(notes.count) * noteLength * rate)
        var phases = [Double](repeating: 0, count: 12)
        for i in 0..<n where s0 + i < out.count {
            let t = Double(i) / rate
            let index = min(notes.count - 1, Int(t / noteLength))
            let within = t / noteLength - Double(index)
            let next = index + 1 < notes.count ? notes[index + 1] : lastNote
            let glide = within > 0.7 ? (within - 0.7) / 0.3 : 0
            let midi = Double(notes[index]) + glide * Double(next - notes[index]) + 0.4 * sin(2 * Double.pi * 5.5 * t)
            let f0 = 440 * pow(2, (midi - 69) / 12)
            let env = min(1, t / 0.05) * min(1, Double(n - i) / (0.05 * rate))
            var v = 0.0
            for h in 1...12 where Double(h) * f0 < 4000 {
                phases[h - 1] += 2 * Double.pi * Double(h) * f0 / rate
                v += sin(phases[h - 1]) / Double(h * h)
            }
            out[s0 + i] += Float(gain * v * env)
        }
    }

    /// `seconds` of noise with spectral slope 0 (white), -3 dB/octave (pink: Kellet's
    /// three-pole approximation) or -6 dB/octave (brown: leaky integration), peak near `gain`.
    static func noise(seconds: Double, colour: Int, gain: Float = 0.3, seed: UInt64 = 11) -> [Float] {
        var rng = Random(state: seed)
        var b0: Float = 0, b1: Float = 0, b2: Float = 0, brown: Float = 0
        return (0..<Int(seconds * rate)).map { _ in
            let w = rng.next()
            switch colour {
            case 1:
                b0 = 0.99765 * b0 + w * 0.0990460
                b1 = 0.96300 * b1 + w * 0.2965164
                b2 = 0.57000 * b2 + w * 1.0526913
                return gain * 0.25 * (b0 + b1 + b2 + w * 0.1848)
            case 2:
                brown = 0.995 * brown + 0.1 * w
                return gain * brown
            default:
                return gain * w
            }
        }
    }

    /// `seconds` of a drum loop at `bpm`: hi-hat eighths (differentiated noise), kick (a sine
    /// sweeping 150 -> 50 Hz) and snare (noise with a 190 Hz body) alternating on the beats, and
    /// with `toms` a fill of three pitched toms (180, 140, 110 Hz, gliding down 10 %) every bar.
    static func drums(seconds: Double, bpm: Double, toms: Bool, seed: UInt64 = 7) -> [Float] {
        var rng = Random(state: seed)
        var samples = [Float](repeating: 0, count: Int(seconds * rate))
        var t = 0.0, index = 0
        while t < seconds - 0.3 {
            let s0 = Int(t * rate)
            var previous: Float = 0
            for i in 0..<Int(0.1 * rate) where s0 + i < samples.count {
                let x = rng.next()
                samples[s0 + i] += 0.15 * (x - previous) * Float(exp(-Double(i) / (0.03 * rate)))
                previous = x
            }
            if index % 2 == 0 {
                if (index / 2) % 2 == 0 {
                    var phase = 0.0
                    for i in 0..<Int(0.4 * rate) where s0 + i < samples.count {
                        let time = Double(i) / rate
                        phase += 2 * Double.pi * (50 + 100 * exp(-time / 0.04)) / rate
                        samples[s0 + i] += Float(0.6 * sin(phase) * exp(-time / 0.15))
                    }
                } else {
                    for i in 0..<Int(0.25 * rate) where s0 + i < samples.count {
                        let time = Double(i) / rate
                        let body = 0.3 * sin(2 * Double.pi * 190 * time)
                        samples[s0 + i] += Float((0.4 * Double(rng.next()) + body) * exp(-time / 0.08))
                    }
                }
            }
            if toms && index % 8 == 7 {
                for (k, f0) in [180.0, 140, 110].enumerated() {
                    let start = s0 + Int(Double(k) * 0.08 * rate)
                    for i in 0..<Int(0.3 * rate) where start + i < samples.count {
                        let time = Double(i) / rate
                        samples[start + i] += Float(0.4 * sin(2 * Double.pi * f0 * (1 - 0.1 * time) * time) * exp(-time / 0.12))
                    }
                }
            }
            t += 30 / bpm
            index += 1
        }
        return samples
    }

    /// Runs the shared feature stage and the key analysis on `samples`.
    static func analyze(
        _ samples: [Float], rhythm: RhythmResult? = nil,
        configuration: KeyAnalyzer.Configuration = .init()
    ) -> (KeyResult, SharedFeatures) {
        let stage = FeatureStage(features: [.onset, .chroma])
        var i = 0
        while i < samples.count {
            let j = min(samples.count, i + 4096)
            stage.append(Array(samples[i..<j]))
            i = j
        }
        let features = stage.finish(duration: Double(samples.count) / 22_050)
        return (KeyAnalyzer(configuration: configuration).analyze(features, rhythm: rhythm), features)
    }

    /// The global key (longest range).
    static func globalKey(_ result: KeyResult) -> (pitchClass: Int, mode: KeyResult.Mode)? {
        guard let longest = result.ranges.max(by: { $0.range.duration < $1.range.duration }) else { return nil }
        return (longest.value.tonic.pitchClass, longest.value.mode)
    }

    /// Checks that ranges are contiguous and cover 0 ... duration.
    static func covers(_ result: KeyResult, duration: Double) -> Bool {
        guard let first = result.ranges.first, let last = result.ranges.last else { return false }
        guard abs(first.range.start) < 1e-9, abs(last.range.end - duration) < 1e-6 else { return false }
        for (a, b) in zip(result.ranges, result.ranges.dropFirst()) where abs(a.range.end - b.range.start) > 1e-9 {
            return false
        }
        return true
    }
}

/// Test-signal synthesis.
enum Signal {
    /// A continuous-phase sine sequence: each segment is (peak level in dBFS per channel, seconds);
    /// the same sine on every channel, scaled per channel by `channelGains` (dB, default 0),
    /// interleaved. The sine is tiled from one exact period group, so long signals are cheap.
    static func sines(
        _ segments: [(dBFS: Double, seconds: Double)], sampleRate: Double = 48_000,
        frequency: Double = 1_000, channels: Int = 2, channelGains: [Double]? = nil,
        phaseDegrees: Double = 0
    ) -> [Float] {
        let gains = (channelGains ?? [Double](repeating: 0, count: channels)).map { pow(10, $0 / 20) }
        let total = segments.reduce(0) { $0 + Int(($1.seconds * sampleRate).rounded()) }
        // Smallest number of samples holding a whole number of periods (or 1 s at most).
        var period = Int(sampleRate)
        for n in 1...Int(sampleRate) where (Double(n) * frequency / sampleRate).rounded() * sampleRate == Double(n) * frequency {
            period = n
            break
        }
        let phase = phaseDegrees * .pi / 180
        let table = (0..<period).map { sin(2 * .pi * frequency * Double($0) / sampleRate + phase) }
        return [Float](unsafeUninitializedCapacity: total * channels) { buffer, count in
            var n = 0
            for segment in segments {
                let amplitude = pow(10, segment.dBFS / 20)
                let length = Int((segment.seconds * sampleRate).rounded())
                for _ in 0..<length {
                    let v = amplitude * table[n % period]
                    for c in 0..<channels { buffer[n * channels + c] = Float(v * gains[c]) }
                    n += 1
                }
            }
            count = total * channels
        }
    }

    /// Deterministic "music-like" noise: white noise shaped by a slowly varying envelope.
    static func noise(
        seconds: Double, sampleRate: Double = 48_000, channels: Int = 2, seed: UInt64 = 1,
        envelopeHz: Double = 0.7
    ) -> [Float] {
        var state = seed
        let frames = Int(seconds * sampleRate)
        var out = [Float](repeating: 0, count: frames * channels)
        for n in 0..<frames {
            let envelope = 0.05 + 0.25 * (1 + sin(2 * .pi * envelopeHz * Double(n) / sampleRate))
            for c in 0..<channels {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let u = Double(state >> 11) / Double(1 << 53) * 2 - 1
                out[n * channels + c] = Float(u * envelope)
            }
        }
        return out
    }
}

/// Synthesised signals with known beats, fed through the shared feature stage.
enum Synth {
    static let rate = 22_050.0

    /// Deterministic white noise in [-1, 1].
    /// Deterministic white noise, uniform in [-1, 1) (``MMIXRandom/signed53()``).
    struct Noise {
        var random: MMIXRandom
        init(state: UInt64) { random = MMIXRandom(state: state) }
        mutating func next() -> Float { random.signed53() }
    }

    /// Adds `sound(t)` (t = seconds since onset) starting at `time`, for `length` seconds.
    static func add(_ buffer: inout [Float], at time: Double, length: Double, _ sound: (Double) -> Float) {
        let start = Int((time * rate).rounded())
        let count = Int(length * rate)
        guard start >= 0 else { return }
        for i in 0..<count where start + i < buffer.count {
            buffer[start + i] += sound(Double(i) / rate)
        }
    }

    /// A click: a 2 kHz tone burst with a 5 ms exponential decay.
    static func click(_ buffer: inout [Float], at time: Double, gain: Float = 0.5) {
        add(&buffer, at: time, length: 0.03) { t in gain * Float(exp(-t / 0.005) * sin(2 * .pi * 2000 * t)) }
    }

    /// A kick: a sine sweeping from 150 to 50 Hz with a 100 ms decay.
    static func kick(_ buffer: inout [Float], at time: Double, gain: Float = 0.8) {
        add(&buffer, at: time, length: 0.3) { t in
            let phase = 2 * Double.pi * (50 * t + 100 * 0.03 * (1 - exp(-t / 0.03)))
            return gain * Float(exp(-t / 0.1) * sin(phase))
        }
    }

    /// A snare: noise plus a 190 Hz tone, 80 ms decay.
    static func snare(_ buffer: inout [Float], at time: Double, noise: inout Noise, gain: Float = 0.4) {
        var values = [Float](repeating: 0, count: Int(0.25 * rate))
        for i in values.indices {
            let t = Double(i) / rate
            values[i] = gain * Float(exp(-t / 0.08)) * (0.7 * noise.next() + 0.5 * Float(sin(2 * .pi * 190 * t)))
        }
        add(&buffer, at: time, length: 0.25) { t in values[min(values.count - 1, Int(t * rate))] }
    }

    /// A hi-hat: differentiated (high-passed) noise, 25 ms decay.
    static func hat(_ buffer: inout [Float], at time: Double, noise: inout Noise, gain: Float = 0.15) {
        var values = [Float](repeating: 0, count: Int(0.1 * rate))
        var previous: Float = 0
        for i in values.indices {
            let x = noise.next()
            values[i] = gain * Float(exp(-Double(i) / rate / 0.025)) * (x - previous)
            previous = x
        }
        add(&buffer, at: time, length: 0.1) { t in values[min(values.count - 1, Int(t * rate))] }
    }

    /// A sustained chord (three sines with harmonics) from `time` for `length` seconds.
    static func chord(_ buffer: inout [Float], at time: Double, length: Double, midi: [Int], gain: Float = 0.05) {
        add(&buffer, at: time, length: length) { t in
            var s = 0.0
            for p in midi {
                let f = 440 * pow(2, Double(p - 69) / 12)
                s += sin(2 * .pi * f * t) + 0.5 * sin(4 * .pi * f * t)
            }
            let envelope = min(1, t / 0.02) * min(1, (length - t) / 0.02)
            return gain * Float(s * envelope)
        }
    }

    /// A plucked (piano-like) note: four harmonics, a 5 ms attack and an exponential decay.
    static func pluck(_ buffer: inout [Float], at time: Double, midi: Int, gain: Float = 0.1, decay: Double = 0.5) {
        let f = 440 * pow(2, Double(midi - 69) / 12)
        add(&buffer, at: time, length: 4 * decay) { t in
            var s = 0.0
            for h in 1...4 { s += sin(2 * .pi * Double(h) * f * t) / Double(h * h) }
            return gain * Float(min(1, t / 0.005) * exp(-t / decay) * s)
        }
    }

    /// Runs `samples` through the feature stage and the rhythm analyzer.
    static func analyze(_ samples: [Float], configuration: RhythmAnalyzer.Configuration = .init()) -> RhythmResult {
        let stage = FeatureStage(features: RhythmStage.features)
        var i = 0
        while i < samples.count {  // chunks of an awkward size, as a decoder would deliver
            let end = min(samples.count, i + 3001)
            stage.append(Array(samples[i..<end]))
            i = end
        }
        return RhythmAnalyzer(configuration: configuration).analyze(stage.finish(duration: Double(samples.count) / 22_050))
    }

    /// Share of `truth` beats (after `skip` seconds) with an estimate within `tolerance` s.
    static func hitRate(_ estimate: [Double], _ truth: [Double], tolerance: Double = 0.07, skip: Double = 1) -> Double {
        let reference = truth.filter { $0 >= skip }
        guard !reference.isEmpty else { return 0 }
        let hits = reference.filter { t in estimate.contains { abs($0 - t) <= tolerance } }.count
        return Double(hits) / Double(reference.count)
    }

    /// Median signed offset of the estimate nearest each truth beat (within 70 ms).
    static func medianOffset(_ estimate: [Double], _ truth: [Double]) -> Double {
        var offsets: [Double] = []
        for t in truth {
            if let e = estimate.min(by: { abs($0 - t) < abs($1 - t) }), abs(e - t) <= 0.07 { offsets.append(e - t) }
        }
        offsets.sort()
        return offsets.isEmpty ? .infinity : offsets[offsets.count / 2]
    }
}

/// Synthesised test instruments at 22.05 kHz mono (deterministic).
enum ActivitySynth {
    static let rate = 22_050.0

    /// A deterministic uniform noise source in -1...1 (LCG).
    /// Deterministic white noise, uniform in [-1, 1) (``LCG32``).
    struct Noise {
        var random: LCG32
        init(state: UInt32 = 12_345) { random = LCG32(state: state) }
        mutating func next() -> Float { random.signed() }
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

/// Synthetic material for the structure tests.
enum StructureFixture {
    /// A deterministic pseudo-random generator (tests must not depend on the system RNG).
    /// Uniform in [-0.5, 0.5) (``MMIXRandom/centred24()``).
    struct Generator {
        var random: MMIXRandom
        init(state: UInt64) { random = MMIXRandom(state: state) }
        mutating func next() -> Float { random.centred24() }
    }

    /// Bar features for a form such as "ABAB": each part `barsPerPart` bars, each part a 4-bar
    /// cycle of its own vectors (part-specific "chords" and "timbre"), plus small noise.
    static func bars(form: String, barsPerPart: Int = 8, dimension: Int = 16, noise: Float = 0.05) -> StructureAnalyzer.BarFeatures {
        var g = Generator(state: 42)
        var prototypes: [Character: [[Float]]] = [:]
        var values: [Float] = []
        var energy: [Float] = []
        for part in form {
            if prototypes[part] == nil {
                prototypes[part] = (0..<4).map { _ in (0..<dimension).map { _ in g.next() * 2 } }
            }
            let cycle = prototypes[part] ?? []
            for b in 0..<barsPerPart {
                values += cycle[b % 4].map { $0 + noise * g.next() }
                energy.append(part == "A" ? 1 : 2)
            }
        }
        return StructureAnalyzer.BarFeatures(values: values, dimension: dimension, energy: energy)
    }

    /// Bar edges for `count` bars of `bar` seconds from 0.
    static func edges(count: Int, bar: Double = 2) -> [Double] { (0...count).map { Double($0) * bar } }

    /// Mono audio at 22.05 kHz: 120 BPM 4/4, a click on every beat (accented downbeat) over one
    /// chord per bar; each part has its own 4-chord progression and timbre (sine vs. buzzy).
    static func audio(form: String, barsPerPart: Int = 8) -> [Float] {
        let rate = 22_050.0, beat = 0.5
        let progressions: [Character: [[Double]]] = [
            "A": [[261.6, 329.6, 392.0], [220.0, 261.6, 329.6], [174.6, 220.0, 261.6], [196.0, 246.9, 293.7]],
            "B": [[293.7, 370.0, 440.0], [246.9, 311.1, 370.0], [329.6, 415.3, 493.9], [277.2, 349.2, 415.3]],
            "C": [[233.1, 293.7, 349.2], [311.1, 392.0, 466.2], [207.7, 261.6, 311.1], [185.0, 233.1, 277.2]],
        ]
        let barLength = 4 * beat
        let total = Double(form.count * barsPerPart) * barLength
        var out = [Float](repeating: 0, count: Int(total * rate))
        for (p, part) in form.enumerated() {
            let chords = progressions[part] ?? progressions["A"] ?? []
            let buzzy = part != "A"
            for b in 0..<barsPerPart {
                let start = Double(p * barsPerPart + b) * barLength
                let chord = chords[b % chords.count]
                let i0 = Int(start * rate), i1 = min(out.count, Int((start + barLength) * rate))
                for i in i0..<i1 {
                    let t = Double(i) / rate
                    var v = 0.0
                    for f in chord {
                        let phase = 2 * Double.pi * f * t
                        v += buzzy ? (sin(phase) + 0.5 * sin(2 * phase) + 0.33 * sin(3 * phase)) / 1.8 : sin(phase)
                    }
                    out[i] += Float(0.08 * v)
                }
                for k in 0..<4 {
                    let c0 = Int((start + Double(k) * beat) * rate)
                    let amplitude: Float = k == 0 ? 0.6 : 0.3
                    for j in 0..<min(600, out.count - c0) {
                        let decay = Float(exp(-Double(j) / 90))
                        out[c0 + j] += amplitude * decay * Float(sin(2 * Double.pi * 1800 * Double(j) / rate))
                    }
                }
            }
        }
        return out
    }

    /// A provider of one mono signal.
    static func provider(_ samples: [Float], rate: Double = 22_050) -> AsyncStream<PCMBuffer?> {
        let frames = 8192
        let buffers = stride(from: 0, to: samples.count, by: frames).map {
            PCMBuffer(sampleRate: rate, channelCount: 1, samples: Array(samples[$0..<min(samples.count, $0 + frames)]))
        }
        return TestSignal.provider(buffers)
    }

    /// Checks coverage, nesting and snapping of a result: every level is contiguous from
    /// `start` to `end` without zero-length ranges, every coarser boundary is a finer one, and
    /// every interior boundary is one of `grid` (within 1 ms).
    static func checkProperties(
        _ r: StructureResult, start: Double = 0, end: Double, grid: [Double],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let levels = [r.sections, r.segments, r.phrases]
        for level in levels {
            #expect(!level.isEmpty, sourceLocation: sourceLocation)
            guard let first = level.first, let last = level.last else { continue }
            #expect(abs(first.start - start) < 1e-9, sourceLocation: sourceLocation)
            #expect(abs(last.end - end) < 1e-6, sourceLocation: sourceLocation)
            for (a, b) in zip(level, level.dropFirst()) {
                #expect(abs(a.end - b.start) < 1e-6, sourceLocation: sourceLocation)
            }
            for range in level {
                #expect(range.duration > 0, sourceLocation: sourceLocation)
            }
            for range in level.dropFirst() {
                #expect(
                    grid.contains { abs($0 - range.start) < 1e-3 }, "boundary \(range.start) off the bar grid",
                    sourceLocation: sourceLocation)
            }
        }
        for (coarse, fine) in [(r.sections, r.segments), (r.segments, r.phrases)] {
            for range in coarse {
                #expect(
                    fine.contains { abs($0.start - range.start) < 1e-9 }, "level not nested at \(range.start)",
                    sourceLocation: sourceLocation)
            }
        }
        #expect(r.sectionLabels?.count == r.sections.count, sourceLocation: sourceLocation)
        #expect(r.sectionFunctions?.count == r.sections.count, sourceLocation: sourceLocation)
        let allowed: Set<String> = ["intro", "verse", "chorus", "bridge", "outro", "other", "silence"]
        #expect((r.sectionFunctions ?? []).allSatisfy(allowed.contains), sourceLocation: sourceLocation)
    }

    /// The section labels as one string ("ABAB").
    static func labelString(_ r: StructureResult) -> String { (r.sectionLabels ?? []).joined() }
}
