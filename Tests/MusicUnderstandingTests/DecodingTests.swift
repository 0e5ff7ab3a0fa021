import Foundation
import Testing
@testable import MusicUnderstanding

/// The committed audio fixtures (see Fixtures/README.md), found relative to this file so the
/// tests run from any checkout.
private let fixtures = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

private func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

/// Decodes a whole input: the decoder, its interleaved samples and the frame count.
private func decodeAll(_ path: String, raw: RawPCMFormat? = nil) throws -> (AudioDecoder, [Float]) {
    let decoder = try AudioDecoder(path: path, rawFormat: raw)
    var samples: [Float] = []
    while let buffer = try decoder.read() {
        #expect(buffer.sampleRate == Double(decoder.sampleRate))
        #expect(buffer.channels == decoder.channels)
        #expect(buffer.samples.count % max(1, buffer.channelCount) == 0)
        samples.append(contentsOf: buffer.samples)
    }
    #expect(try decoder.read() == nil)  // stays at the end
    return (decoder, samples)
}

/// Frequency of a (near) pure tone in one channel, from its zero crossings over the middle 80 %.
private func toneFrequency(_ samples: [Float], channel: Int, of channelCount: Int, rate: Double) -> Double {
    let frames = samples.count / channelCount
    let start = frames / 10, end = frames - frames / 10
    guard end > start + 1 else { return 0 }
    var crossings = 0
    var previous = samples[start * channelCount + channel]
    for i in (start + 1)..<end {
        let x = samples[i * channelCount + channel]
        if (previous < 0) != (x < 0) { crossings += 1 }
        previous = x
    }
    return Double(crossings) / 2 / (Double(end - start) / rate)
}

private func temporaryPath(_ name: String) -> String {
    FileManager.default.temporaryDirectory
        .appendingPathComponent("cadenza-decoding-\(UUID().uuidString)-\(name)").path
}

// MARK: - Formats

/// One committed fixture and what decoding it must give.
struct FixtureExpectation: Sendable, CustomStringConvertible {
    let file: String
    let sampleRate: Int
    let channels: Int
    let codec: String
    /// Duration of the encoded signal in seconds.
    let duration: Double
    /// Allowed difference: codec priming and padding (AAC and WMA frames) may add a little.
    let tolerance: Double
    var description: String { file }
}

private let formatFixtures: [FixtureExpectation] = [
    .init(file: "tone_44k_stereo_s16.wav", sampleRate: 44100, channels: 2, codec: "pcm_s16le", duration: 0.5, tolerance: 0),
    .init(file: "tone_22k_mono_f32.wav", sampleRate: 22050, channels: 1, codec: "pcm_f32le", duration: 1.0, tolerance: 0),
    .init(file: "tone_48k_mono_s24.wav", sampleRate: 48000, channels: 1, codec: "pcm_s24le", duration: 0.5, tolerance: 0),
    .init(file: "tone_44k_stereo.aiff", sampleRate: 44100, channels: 2, codec: "pcm_s16be", duration: 0.25, tolerance: 0),
    .init(file: "tone_2s_stereo.flac", sampleRate: 44100, channels: 2, codec: "flac", duration: 2.0, tolerance: 0),
    .init(file: "tone_alac.m4a", sampleRate: 44100, channels: 2, codec: "alac", duration: 0.5, tolerance: 0),
    .init(file: "tone_2s_stereo.mp3", sampleRate: 44100, channels: 2, codec: "mp3", duration: 2.0, tolerance: 0.001),
    .init(file: "tone_2s_stereo.ogg", sampleRate: 44100, channels: 2, codec: "vorbis", duration: 2.0, tolerance: 0.001),
    .init(file: "tone_2s_stereo.opus", sampleRate: 48000, channels: 2, codec: "opus", duration: 2.0, tolerance: 0.001),
    .init(file: "tone_2s_stereo.m4a", sampleRate: 44100, channels: 2, codec: "aac", duration: 2.0, tolerance: 0.05),
    .init(file: "tone_2s_stereo.wma", sampleRate: 44100, channels: 2, codec: "wmav2", duration: 2.0, tolerance: 0.05),
    .init(file: "video_with_audio.mp4", sampleRate: 44100, channels: 1, codec: "aac", duration: 1.0, tolerance: 0.05),
]

@Test(
    "Each format decodes at its native rate and layout, with the right length and pitch",
    arguments: formatFixtures)
func decodesFixture(_ expected: FixtureExpectation) throws {
    let path = fixture(expected.file)
    let (decoder, samples) = try decodeAll(path)
    #expect(decoder.sampleRate == expected.sampleRate)
    #expect(decoder.channels.count == expected.channels)
    #expect(decoder.source.path == path)
    #expect(decoder.source.codec == expected.codec)
    #expect(decoder.source.sampleRate == expected.sampleRate)
    #expect(decoder.source.channels == expected.channels)
    #expect(decoder.damageNote == nil)

    let decoded = Double(samples.count / expected.channels) / Double(expected.sampleRate)
    #expect(
        abs(decoded - expected.duration) <= expected.tolerance + 0.5 / Double(expected.sampleRate),
        "decoded \(decoded) s")
    // After the end, `source.duration` is the exact decoded length.
    #expect(decoder.source.duration == decoded)

    // The fixtures carry 440 Hz on the first channel and 660 Hz on the second: this checks
    // both the decoding and the interleaving order.
    let rate = Double(expected.sampleRate)
    let left = toneFrequency(samples, channel: 0, of: expected.channels, rate: rate)
    #expect(abs(left - 440) < 440 * 0.02, "channel 0 at \(left) Hz")
    if expected.channels == 2 {
        let right = toneFrequency(samples, channel: 1, of: expected.channels, rate: rate)
        #expect(abs(right - 660) < 660 * 0.02, "channel 1 at \(right) Hz")
        #expect(decoder.channels == [.frontLeft, .frontRight])
    } else {
        #expect(decoder.channels == [.frontCenter])
    }
    // Float PCM of a 1/8-amplitude sine, not silence and not clipped garbage.
    let peak = samples.reduce(0) { max($0, abs($1)) }
    #expect(peak > 0.1 && peak < 0.3)
}

@Test func fivePointOneMapsEachPositionIncludingLFE() throws {
    let (decoder, samples) = try decodeAll(fixture("surround_51_48k.wav"))
    #expect(decoder.channels == [.frontLeft, .frontRight, .frontCenter, .lowFrequency, .backLeft, .backRight])
    #expect(decoder.channels[3] == .lowFrequency)
    #expect(decoder.channels[3].loudnessWeight == 0)
    // Each position carries its own tone (FL 200, FR 300, FC 400, LFE 50, BL 500, BR 600 Hz).
    for (channel, hz) in [200.0, 300, 400, 50, 500, 600].enumerated() {
        let measured = toneFrequency(samples, channel: channel, of: 6, rate: 48000)
        #expect(abs(measured - hz) < hz * 0.1, "channel \(channel): \(measured) Hz, expected \(hz)")
    }
}

@Test func fileURLDecodesAndNamesTheURL() throws {
    let url = "file://" + fixture("tone_2s_stereo.ogg")
    let (decoder, samples) = try decodeAll(url)
    #expect(decoder.source.path == url)
    #expect(samples.count == 88200 * 2)
    let missing = "file://" + fixture("missing.ogg")
    #expect(openError(missing) == .fileNotFound(path: missing))
}

/// Runs `body` with `bytes` (at most a pipe buffer, 64 KiB) waiting on standard input.
private func withStandardInput<T>(_ bytes: Data, _ body: () throws -> T) throws -> T {
    precondition(bytes.count < 65_536)
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { throw CocoaError(.fileWriteUnknown) }
    let written = bytes.withUnsafeBytes { write(fds[1], $0.baseAddress, bytes.count) }
    close(fds[1])
    let saved = dup(0)
    dup2(fds[0], 0)
    close(fds[0])
    defer { dup2(saved, 0); close(saved) }
    #expect(written == bytes.count)
    return try body()
}

@Test func standardInputDecodesAnEncodedStreamInSmallChunks() throws {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: fixture("tone_2s_stereo.ogg")))
    let (decoder, chunks, total) = try withStandardInput(bytes) { () throws -> (AudioDecoder, Int, Int) in
        let decoder = try AudioDecoder(path: "-")
        var chunks = 0, total = 0
        while let buffer = try decoder.read() {
            chunks += 1
            total += buffer.frameCount
            // About 50 ms at a time on a pipe (plus at most one codec frame).
            #expect(buffer.frameCount <= 2205 + 2048)
        }
        return (decoder, chunks, total)
    }
    #expect(decoder.source.path == "-")
    #expect(decoder.source.codec == "vorbis")
    #expect(decoder.sampleRate == 44100)
    #expect(decoder.channels == [.frontLeft, .frontRight])
    #expect(total == 88200)
    #expect(chunks >= 20)
}

@Test func rawPCMInputDecodesExactly() throws {
    // 0.3 s of stereo f32le at 48 kHz: left a ramp, right its negative.
    let frames = 14_400
    var written: [Float] = []
    written.reserveCapacity(frames * 2)
    for i in 0..<frames {
        let x = Float(i % 1000) / 1000 - 0.5
        written.append(x)
        written.append(-x)
    }
    let path = temporaryPath("raw.f32")
    defer { try? FileManager.default.removeItem(atPath: path) }
    try written.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: path)) }

    let (decoder, samples) = try decodeAll(path, raw: RawPCMFormat(sampleFormat: .f32le, sampleRate: 48000, channels: 2))
    #expect(decoder.sampleRate == 48000)
    #expect(decoder.channels == [.frontLeft, .frontRight])
    #expect(decoder.source.codec == "pcm_f32le")
    #expect(samples == written)

    // The same bytes as s16le mono: 4 bytes per frame become two 16-bit samples.
    let (mono, monoSamples) = try decodeAll(path, raw: RawPCMFormat(sampleFormat: .s16le, sampleRate: 8000, channels: 1))
    #expect(mono.sampleRate == 8000)
    #expect(mono.channels == [.frontCenter])
    #expect(monoSamples.count == frames * 4)
}

@Test func rawPCMRejectsImpossibleFormats() {
    let path = fixture("tone_22k_mono_f32.wav")
    #expect(throws: AudioDecodingError.self) {
        _ = try AudioDecoder(path: path, rawFormat: RawPCMFormat(sampleFormat: .f32le, sampleRate: 0, channels: 2))
    }
    #expect(throws: AudioDecodingError.self) {
        _ = try AudioDecoder(path: path, rawFormat: RawPCMFormat(sampleFormat: .s16le, sampleRate: 48000, channels: 65))
    }
}

// MARK: - Errors and damage

/// The error `AudioDecoder(path:)` throws for `path`, or nil when it opens.
private func openError(_ path: String) -> AudioDecodingError? {
    do {
        _ = try AudioDecoder(path: path)
        return nil
    } catch {
        return error
    }
}

@Test func missingFileIsFileNotFound() {
    let path = fixture("no-such-file.mp3")
    let error = openError(path)
    #expect(error == .fileNotFound(path: path))
    #expect(error?.description.contains(path) == true)
}

@Test(
    "Inputs that are not audio fail as corrupt data, naming the file",
    arguments: ["notes.mp3", "random_bytes.flac", "huge_samplerate.wav"])
func notAudioIsCorruptData(_ name: String) {
    let path = fixture(name)
    let error = openError(path)
    guard case .corruptData(let p, let reason)? = error else {
        Issue.record("expected corruptData, got \(String(describing: error))")
        return
    }
    #expect(p == path)
    #expect(!reason.isEmpty)
    #expect(error?.code == "decodeFailed")
    #expect(error?.description.contains(path) == true)
}

@Test func absurdSampleRateIsNamedInTheReason() {
    guard case .corruptData(_, let reason)? = openError(fixture("huge_samplerate.wav")) else {
        Issue.record("expected corruptData")
        return
    }
    #expect(reason.contains("4000000000 Hz"))
}

@Test func videoWithoutAudioIsNoAudioStream() {
    let path = fixture("video_only.mp4")
    #expect(openError(path) == .noAudioStream(path: path))
}

@Test func imageIsNoAudioStream() {
    let path = fixture("cover.png")
    #expect(openError(path) == .noAudioStream(path: path))
}

@Test func formatChangeMidStreamKeepsTheFirstFormat() throws {
    // A chained Ogg: 1 s of 44.1 kHz stereo, then 1 s of 48 kHz mono, both 440 Hz.
    let (decoder, samples) = try decodeAll(fixture("chained_rate_change.ogg"))
    #expect(decoder.sampleRate == 44100)
    #expect(decoder.channels == [.frontLeft, .frontRight])
    let frames = samples.count / 2
    #expect(abs(Double(frames) / 44100 - 2.0) < 0.01, "\(frames) frames")
    // The second link is resampled to 44.1 kHz (same pitch) and upmixed to both channels.
    let secondHalf = Array(samples[(Int(1.1 * 44100) * 2)...])
    #expect(abs(toneFrequency(secondHalf, channel: 0, of: 2, rate: 44100) - 440) < 9)
    #expect(abs(toneFrequency(secondHalf, channel: 1, of: 2, rate: 44100) - 440) < 9)
    #expect(decoder.damageNote == nil)
}

@Test func unknownCodecIsUnsupportedCodec() {
    let path = fixture("unknown_codec.wav")
    #expect(openError(path) == .unsupportedCodec(path: path, codec: "unknown, codec tag 0x2222"))
}

@Test func headerWithoutFramesIsZeroLength() {
    let path = fixture("zero_frames.wav")
    #expect(openError(path) == .zeroLength(path: path))
}

@Test func emptyFileFailsFast() throws {
    let path = temporaryPath("empty.wav")
    #expect(FileManager.default.createFile(atPath: path, contents: Data()))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let start = Date()
    let error = openError(path)
    // Wall-clock by nature (failing fast instead of hanging): alone it takes milliseconds; the
    // wide margin covers the whole suite running in parallel on 2 shared cores.
    #expect(Date().timeIntervalSince(start) < 30)
    guard case .corruptData(let p, let reason)? = error else {
        Issue.record("expected corruptData, got \(String(describing: error))")
        return
    }
    #expect(p == path)
    #expect(reason.contains("empty"))
}

@Test func directoryIsRejected() {
    let error = openError(fixtures.path)
    guard case .corruptData? = error else {
        Issue.record("expected corruptData, got \(String(describing: error))")
        return
    }
}

@Test func unreadableFileIsPermissionDenied() throws {
    let path = temporaryPath("unreadable.wav")
    try FileManager.default.copyItem(atPath: fixture("tone_22k_mono_f32.wav"), toPath: path)
    defer { try? FileManager.default.removeItem(atPath: path) }
    try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: path)
    let error = openError(path)
    if geteuid() == 0 {
        // Root reads any file: decoding simply works.
        #expect(error == nil)
    } else {
        #expect(error == .permissionDenied(path: path))
    }
}

@Test func truncatedMP3DecodesWhatIsThereAndSaysSo() throws {
    let (decoder, samples) = try decodeAll(fixture("truncated.mp3"))
    let seconds = Double(samples.count / 2) / 44100
    // The file holds the first ~40 % of a 2 s encoding.
    #expect(seconds > 0.6 && seconds < 1.0, "decoded \(seconds) s")
    let note = try #require(decoder.damageNote)
    #expect(note.contains("ends early"))
    #expect(note.contains("2.0 s"))
}

@Test(
    "Files cut in half decode their first half and say the data ends early",
    arguments: ["tone_2s_stereo.flac", "tone_44k_stereo.aiff"])
func halfFileSaysItEndsEarly(_ name: String) throws {
    let original = try Data(contentsOf: URL(fileURLWithPath: fixture(name)))
    let path = temporaryPath("half-" + name)
    defer { try? FileManager.default.removeItem(atPath: path) }
    try original.prefix(original.count / 2).write(to: URL(fileURLWithPath: path))
    let (decoder, samples) = try decodeAll(path)
    let seconds = Double(samples.count / 2) / 44100
    let full = name.hasSuffix(".flac") ? 2.0 : 0.25
    #expect(seconds > full * 0.3 && seconds < full * 0.6, "decoded \(seconds) s")
    let note = try #require(decoder.damageNote)
    #expect(note.contains("ends early"))
}

@Test func overclaimingWAVHeaderDecodesWhatIsThereAndSaysSo() throws {
    let (decoder, samples) = try decodeAll(fixture("header_overclaims.wav"))
    #expect(samples.count == 5513)  // 0.25 s at 22.05 kHz (rounded up by the generator)
    let note = try #require(decoder.damageNote)
    #expect(note.contains("ends early at 0.3 s"))
}

/// Deterministic noise bytes (a linear congruential generator; Numerical Recipes constants).
private func noiseBytes(_ count: Int, seed: UInt32) -> [UInt8] {
    var random = LCG32(state: seed)
    return (0..<count).map { _ in random.byte() }
}

@Test func garbageAfterAValidStartEndsWithoutHanging() throws {
    // A valid MP3 start followed by 256 KiB of noise: the decoder must give up after a bounded
    // number of failures and keep the audio decoded before the damage.
    let original = try Data(contentsOf: URL(fileURLWithPath: fixture("tone_2s_stereo.mp3")))
    let path = temporaryPath("garbage.mp3")
    defer { try? FileManager.default.removeItem(atPath: path) }
    try (original.prefix(6000) + Data(noiseBytes(262_144, seed: 7))).write(to: URL(fileURLWithPath: path))
    let start = Date()
    let (decoder, samples) = try decodeAll(path)
    // Wall-clock by nature (giving up instead of grinding through the noise); wide margin for
    // the whole suite running in parallel on 2 shared cores.
    #expect(Date().timeIntervalSince(start) < 60)
    #expect(samples.count / 2 > 44100 / 2)  // the valid half second or more survives
    #expect(decoder.source.duration ?? 0 < 30)
    #expect(decoder.damageNote != nil)
}

@Test func validHeaderWithoutDecodableFramesIsCorruptData() throws {
    // FLAC STREAMINFO announcing 2 s, then noise: not "zero length" but undecodable.
    let original = try Data(contentsOf: URL(fileURLWithPath: fixture("tone_2s_stereo.flac")))
    let path = temporaryPath("noise.flac")
    defer { try? FileManager.default.removeItem(atPath: path) }
    try (original.prefix(100) + Data(noiseBytes(65_536, seed: 3))).write(to: URL(fileURLWithPath: path))
    guard case .corruptData(let p, _)? = openError(path) else {
        Issue.record("expected corruptData, got \(String(describing: openError(path)))")
        return
    }
    #expect(p == path)
}

@Test func damagedMiddleDecodesAroundTheDamage() throws {
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture("tone_2s_stereo.mp3"))))
    let middle = bytes.count / 2
    let noise = noiseBytes(1500, seed: 42)
    bytes.replaceSubrange(middle..<(middle + noise.count), with: noise)
    let path = temporaryPath("damaged.mp3")
    defer { try? FileManager.default.removeItem(atPath: path) }
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let (_, samples) = try decodeAll(path)
    let seconds = Double(samples.count / 2) / 44100
    // Audio after the damaged stretch is decoded too.
    #expect(seconds > 1.5 && seconds < 2.1, "decoded \(seconds) s")
}

// MARK: - MonoResampler

/// Interleaved stereo: `left(i)` and `right(i)` for `frames` frames.
private func stereo(frames: Int, left: (Int) -> Float, right: (Int) -> Float) -> [Float] {
    var samples = [Float](repeating: 0, count: frames * 2)
    for i in 0..<frames {
        samples[2 * i] = left(i)
        samples[2 * i + 1] = right(i)
    }
    return samples
}

/// Runs the resampler over `samples` in irregular chunks, then flushes.
private func resampleInChunks(
    _ resampler: MonoResampler, _ samples: [Float], rate: Double,
    channels: [AudioChannel], chunkFrames: [Int] = [4096, 1000, 777, 8192]
) -> [Float] {
    var output: [Float] = []
    var frame = 0, turn = 0
    let total = samples.count / channels.count
    while frame < total {
        let n = min(chunkFrames[turn % chunkFrames.count], total - frame)
        turn += 1
        let slice = Array(samples[(frame * channels.count)..<((frame + n) * channels.count)])
        output += resampler.process(PCMBuffer(sampleRate: rate, channels: channels, samples: slice))
        frame += n
    }
    return output + resampler.flush()
}

@Test func monoResamplerKeepsLengthPitchAndLevel() throws {
    let rate = 44100.0, hz = 1000.0
    let sine = { (i: Int) in Float(0.5 * sin(2 * .pi * hz * Double(i) / rate)) }
    let input = stereo(frames: 44100, left: sine, right: sine)
    let resampler = try MonoResampler(inputRate: rate, channels: [.frontLeft, .frontRight], outputRate: 22050)
    let output = resampleInChunks(resampler, input, rate: rate, channels: [.frontLeft, .frontRight])
    #expect(abs(output.count - 22050) <= 2, "\(output.count) samples")
    let measured = toneFrequency(output, channel: 0, of: 1, rate: 22050)
    #expect(abs(measured - hz) < 2, "\(measured) Hz")
    // RMS of a 0.5 sine is 0.354; the pass band is flat.
    let middle = output[2000..<20000]
    let rms = (middle.reduce(0) { $0 + Double($1 * $1) } / Double(middle.count)).squareRoot()
    #expect(abs(rms - 0.5 / 2.squareRoot()) < 0.005, "rms \(rms)")
}

@Test func monoResamplerRejectsAliasesAboveTheNewNyquist() throws {
    // 15 kHz at 44.1 kHz lies above 11.025 kHz: after resampling to 22.05 kHz it must be gone,
    // not folded to 7.05 kHz.
    let rate = 44100.0
    let tone = { (i: Int) in Float(0.5 * sin(2 * .pi * 15000 * Double(i) / rate)) }
    let input = stereo(frames: 22050, left: tone, right: tone)
    let resampler = try MonoResampler(inputRate: rate, channels: [.frontLeft, .frontRight], outputRate: 22050)
    let output = resampleInChunks(resampler, input, rate: rate, channels: [.frontLeft, .frontRight])
    let peak = output[1000..<(output.count - 1000)].reduce(0) { max($0, abs($1)) }
    #expect(peak < 0.00005, "alias peak \(peak)")  // below -80 dB re 0.5 (measured: < -100 dB)
}

@Test func monoResamplerIsTimeAligned() throws {
    // A click at exactly 1.000 s must come out at 1.000 s.
    let rate = 48000.0
    let input = stereo(frames: 96000, left: { $0 == 48000 ? 1 : 0 }, right: { $0 == 48000 ? 1 : 0 })
    let resampler = try MonoResampler(inputRate: rate, channels: [.frontLeft, .frontRight], outputRate: 22050)
    let output = resampleInChunks(resampler, input, rate: rate, channels: [.frontLeft, .frontRight])
    let peakIndex = output.indices.max { abs(output[$0]) < abs(output[$1]) } ?? -1
    #expect(abs(peakIndex - 22050) <= 1, "peak at \(peakIndex)")
}

@Test func monoResamplerAveragesChannelsAndSkipsLFE() throws {
    let rate = 22050.0
    // Opposite-phase stereo averages to silence (same rate: no resampling involved).
    let sine = { (i: Int) in Float(0.5 * sin(2 * .pi * 440 * Double(i) / rate)) }
    let same = try MonoResampler(inputRate: rate, channels: [.frontLeft, .frontRight], outputRate: rate)
    let cancelled = same.process(
        PCMBuffer(
            sampleRate: rate, channels: [.frontLeft, .frontRight],
            samples: stereo(frames: 4096, left: sine, right: { -sine($0) })))
    #expect(cancelled.count == 4096)
    #expect(cancelled.allSatisfy { abs($0) < 1e-6 })

    // 5.1: a loud LFE is ignored; the centre counts 1/5 (five full-range channels).
    let layout: [AudioChannel] = [.frontLeft, .frontRight, .frontCenter, .lowFrequency, .backLeft, .backRight]
    let surround = try MonoResampler(inputRate: 48000, channels: layout, outputRate: 22050)
    var samples = [Float](repeating: 0, count: 48000 * 6)
    for i in 0..<48000 {
        samples[6 * i + 2] = Float(0.5 * sin(2 * .pi * 440 * Double(i) / 48000))
        samples[6 * i + 3] = Float(0.9 * sin(2 * .pi * 60 * Double(i) / 48000))
    }
    let mono = resampleInChunks(surround, samples, rate: 48000, channels: layout)
    #expect(abs(mono.count - 22050) <= 2)
    let peak = mono[1000..<21000].reduce(0) { max($0, abs($1)) }
    #expect(abs(peak - 0.1) < 0.002, "peak \(peak)")
    #expect(abs(toneFrequency(mono, channel: 0, of: 1, rate: 22050) - 440) < 2)
}

@Test func monoResamplerRejectsImpossibleRates() {
    #expect(throws: AudioDecodingError.self) {
        _ = try MonoResampler(inputRate: 0, channels: [.frontCenter], outputRate: 22050)
    }
    #expect(throws: AudioDecodingError.self) {
        _ = try MonoResampler(inputRate: .nan, channels: [.frontCenter], outputRate: 22050)
    }
    #expect(throws: AudioDecodingError.self) {
        _ = try MonoResampler(inputRate: 44100, channels: [], outputRate: 22050)
    }
}

@Test func decodedFixtureThroughResamplerKeepsDuration() throws {
    let decoder = try AudioDecoder(path: fixture("tone_2s_stereo.opus"))
    let resampler = try MonoResampler(inputRate: Double(decoder.sampleRate), channels: decoder.channels, outputRate: 22050)
    var mono: [Float] = []
    while let buffer = try decoder.read() { mono += resampler.process(buffer) }
    mono += resampler.flush()
    #expect(abs(mono.count - 44100) <= 2, "\(mono.count) samples")
    // 440 Hz left and 660 Hz right average to a two-tone signal: both survive, so the
    // crossing rate lies between them.
    let f = toneFrequency(mono, channel: 0, of: 1, rate: 22050)
    #expect(f > 440 && f < 700)
}
