import Foundation
import Testing
@testable import MusicUnderstanding

/// Every decoded sample of a file (the project's decoder), for bit-for-bit comparisons.
private func decodedSamples(_ path: String) throws -> [Float] {
    let decoder = try AudioDecoder(path: path)
    var all: [Float] = []
    while let buffer = try decoder.read() { all += buffer.samples }
    return all
}

private func temporaryFolder(_ name: String) throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cadenza-tags-\(name)-\(getpid())")
    try? FileManager.default.removeItem(at: dir)
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

private func copyFixture(_ name: String, to dir: URL) throws -> String {
    let target = dir.appendingPathComponent(name)
    try FileManager.default.copyItem(at: CLI.fixtures.appendingPathComponent(name), to: target)
    return target.path
}

/// Whether a small tmpfs can be mounted here (root in a sandbox that allows it), for the full-disk case.
enum TmpfsMount {
    static let available: Bool = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cadenza-tmpfs-probe-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        guard mount(dir.path, size: 64 * 1024) else { return false }
        return unmount(dir.path)
    }()

    static func mount(_ path: String, size: Int) -> Bool { run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path]) }
    static func unmount(_ path: String) -> Bool { run("/bin/umount", [path]) }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: tool) else { return false }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }
}

@Suite(.serialized) struct TagWriterTests {
    static let formats = [
        "tone_2s_stereo.mp3", "tone_2s_stereo.flac", "tone_2s_stereo.ogg", "tone_2s_stereo.opus",
        "tone_2s_stereo.m4a", "tone_alac.m4a", "tone_44k_stereo_s16.wav", "tone_44k_stereo.aiff",
    ]

    @Test("Tag values: integer BPM, key in ID3 or Camelot notation, ReplayGain 2.0 at -18 LUFS; Opus R128 Q7.8 at -23 LUFS")
    func values() {
        let report = SampleReport.report()  // 120 BPM, A minor (8A), -14.25 LUFS, sample peak -1.5 dBFS, true peak -0.75 dBTP
        let tags = TagWriter.tags(for: report, path: "a.flac")
        #expect(
            tags == [
                "BPM": "120", "INITIALKEY": "Am", "REPLAYGAIN_TRACK_GAIN": "-3.75 dB", "REPLAYGAIN_TRACK_PEAK": "0.841395",
                "REPLAYGAIN_REFERENCE_LOUDNESS": "-18.00 LUFS",
            ], "the sample peak by default, as rsgain and loudgain")
        #expect(
            TagWriter.tags(for: report, path: "a.flac", peak: .truePeak)["REPLAYGAIN_TRACK_PEAK"] == "0.917276",
            "the true peak where the user asks")
        #expect(TagWriter.tags(for: report, path: "a.flac", keyNotation: .camelot)["INITIALKEY"] == "8A")
        let opus = TagWriter.tags(for: report, path: "a.opus")
        #expect(opus["R128_TRACK_GAIN"] == "-2240", "256 × (−23 + 14.25) = −2240")
        #expect(
            opus["REPLAYGAIN_TRACK_GAIN"] == "" && opus["REPLAYGAIN_TRACK_PEAK"] == ""
                && opus["REPLAYGAIN_REFERENCE_LOUDNESS"] == "", "removed on Opus")
        var silent = report
        silent.result?.loudness?.integrated.value = -.infinity
        silent.result?.rhythm = nil
        #expect(TagWriter.tags(for: silent, path: "a.flac") == ["INITIALKEY": "Am"], "no gain for silence, no BPM without beats")
    }

    @Test(
        "Every format: tags written in its native fields, the decoded audio bit-identical, a rerun changes nothing",
        arguments: formats)
    func everyFormat(_ name: String) throws {
        let dir = try temporaryFolder("fmt-\(name)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try copyFixture(name, to: dir)
        let before = try decodedSamples(path)
        let tags = TagWriter.tags(for: SampleReport.report(path: path), path: path)
        #expect(try TagWriter().write(tags, to: path) == .written)
        let after = try decodedSamples(path)
        #expect(before.count == after.count && before == after, "\(name): decoded audio bit-identical (\(before.count) samples)")
        let read = try TagWriter.read(path)
        #expect(TagWriter.holds(read, tags), "\(name): \(read)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        func has(_ s: String) -> Bool { bytes.range(of: Data(s.utf8)) != nil }
        switch (name as NSString).pathExtension {
        case "mp3", "wav", "aiff":
            #expect(has("TBPM") && has("TKEY") && has("TXXX"), "\(name): ID3v2 TBPM, TKEY and TXXX frames")
        case "m4a":
            #expect(has("tmpo") && has("com.apple.iTunes") && read["MP4:tmpo"] == "120", "\(name): tmpo and freeform atoms: \(read)")
        case "opus":
            #expect(has("R128_TRACK_GAIN=-2240") && !has("REPLAYGAIN_TRACK_GAIN"))
        default:
            #expect(has("BPM=120") && has("INITIALKEY=Am") && has("REPLAYGAIN_TRACK_GAIN=-3.75 dB"), "\(name): Vorbis comments")
        }
        // Idempotent: the second run finds the values and leaves the file alone.
        let first = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try TagWriter().write(tags, to: path) == .unchanged)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == first)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [name], "no working copy left")
    }

    @Test("A read-only file, a file TagLib cannot tag and a corrupt ID3 tag leave the original byte for byte")
    func failuresLeaveTheOriginal() throws {
        let dir = try temporaryFolder("fail")
        defer { try? FileManager.default.removeItem(at: dir) }
        let tags = ["BPM": "120", "INITIALKEY": "Am"]

        let readOnly = try copyFixture("tone_2s_stereo.flac", to: dir)
        chmod(readOnly, 0o444)
        let original = try Data(contentsOf: URL(fileURLWithPath: readOnly))
        #expect(throws: TagWriteError.readOnly(path: readOnly)) { try TagWriter().write(tags, to: readOnly) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: readOnly)) == original)

        let garbage = try copyFixture("random_bytes.flac", to: dir)
        let garbageBytes = try Data(contentsOf: URL(fileURLWithPath: garbage))
        #expect(throws: TagWriteError.self) { try TagWriter().write(tags, to: garbage) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: garbage)) == garbageBytes)

        // An ID3v2 header whose size claims more than the file holds, before the MP3 audio.
        let corrupt = dir.appendingPathComponent("corrupt.mp3").path
        var bytes = Data("ID3".utf8) + Data([4, 0, 0, 0x7F, 0x7F, 0x7F, 0x7F]) + Data("TIT2\u{0}\u{0}\u{0}\u{FF}".utf8)
        bytes += try Data(contentsOf: CLI.fixtures.appendingPathComponent("tone_2s_stereo.mp3"))
        try bytes.write(to: URL(fileURLWithPath: corrupt))
        let audioBefore = try? decodedSamples(corrupt)
        do {
            try TagWriter().write(tags, to: corrupt)
            // TagLib coped: then the audio must still be what it was.
            #expect(try decodedSamples(corrupt) == audioBefore)
        } catch {
            #expect(try Data(contentsOf: URL(fileURLWithPath: corrupt)) == bytes, "\(error)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).allSatisfy { !$0.contains("cadenza-tags") }, "no working copy left")
        #expect(throws: TagWriteError.notAFile(path: "-")) { try TagWriter().write(tags, to: "-") }
        #expect(throws: TagWriteError.notAFile(path: dir.path)) { try TagWriter().write(tags, to: dir.path) }
    }

    @Test(
        "A full disk: the working copy fails, the original is untouched and nothing is left behind",
        .enabled(if: TmpfsMount.available, "cannot mount a tmpfs here (needs root and a sandbox that allows mount)"))
    func fullDisk() throws {
        let dir = try temporaryFolder("full")
        defer { try? FileManager.default.removeItem(at: dir) }
        let fixture = CLI.fixtures.appendingPathComponent("tone_2s_stereo.flac")
        let size = try Data(contentsOf: fixture).count
        let mountPoint = dir.appendingPathComponent("disk")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        try #require(TmpfsMount.mount(mountPoint.path, size: size + 16 * 1024), "mount")
        defer { _ = TmpfsMount.unmount(mountPoint.path) }
        let path = mountPoint.appendingPathComponent("song.flac").path
        try FileManager.default.copyItem(atPath: fixture.path, toPath: path)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            try TagWriter().write(["BPM": "120"], to: path)
            Issue.record("a second copy cannot fit on the disk")
        } catch {
            if case .copyFailed(_, let reason) = error { #expect(reason.contains("space"), "\(reason)") } else { Issue.record("\(error)") }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
        #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint.path) == ["song.flac"])
    }

    @Test("A symbolic link: the target is tagged and the link stays a link")
    func symlink() throws {
        let dir = try temporaryFolder("link")
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = try copyFixture("tone_2s_stereo.ogg", to: dir)
        let link = dir.appendingPathComponent("link.ogg").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(try TagWriter().write(["BPM": "99"], to: link) == .written)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(try TagWriter.read(target)["BPM"] == "99")
    }
}

/// Tagging only the file that was analysed, and leaving nothing behind.
@Suite struct TagIdentityTests {
    /// The sample report for the file at `path`, stamped as the file is now.
    static func stampedReport(_ path: String) throws -> Report {
        var report = SampleReport.report(path: path)
        let stamp = try #require(FileStamp.of(path: path))
        report.source.size = stamp.size
        report.source.modified = stamp.modified
        return report
    }

    @Test("A file replaced (renamed over) after its analysis is not tagged with the old file's values")
    func replacedFileIsNotTagged() throws {
        let dir = try temporaryFolder("replaced")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try copyFixture("tone_2s_stereo.flac", to: dir)
        let report = try Self.stampedReport(path)
        // Another song takes the file's name, as a rename over it does.
        let other = try copyFixture("tone_2s_stereo.mp3", to: dir)
        #expect(rename(other, path) == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: TagWriteError.changedSinceAnalysis(path: path)) { try TagWriter().tag(report) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        // The file as analysed is tagged, and the report gets its new stamp.
        let same = try copyFixture("tone_2s_stereo.mp3", to: dir)
        let tagged = try TagWriter().tag(try Self.stampedReport(same))
        #expect(tagged.source.modified != nil && FileStamp.of(path: same)?.modified == tagged.source.modified)
        #expect(TagWriter.holds(try TagWriter.read(same), TagWriter.tags(for: tagged, path: same)))
    }

    @Test("Working copies of a killed tagger are removed by the next write; a running process's copy is kept")
    func abandonedCopies() throws {
        let dir = try temporaryFolder("abandoned")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try copyFixture("tone_2s_stereo.mp3", to: dir)
        let finished = Process()
        finished.executableURL = URL(fileURLWithPath: "/bin/true")
        try finished.run()
        finished.waitUntilExit()
        let dead = dir.appendingPathComponent(".tone_2s_stereo.mp3.cadenza-tags-\(finished.processIdentifier).mp3").path
        let live = dir.appendingPathComponent(".tone_2s_stereo.mp3.cadenza-tags-1.mp3").path  // init runs
        let foreign = dir.appendingPathComponent(".tone_2s_stereo.mp3.cadenza-tags-notes.txt").path
        for file in [dead, live, foreign] { #expect(FileManager.default.createFile(atPath: file, contents: Data(count: 1000))) }
        try TagWriter().write(["BPM": "120"], to: path)
        #expect(!FileManager.default.fileExists(atPath: dead))
        #expect(FileManager.default.fileExists(atPath: live) && FileManager.default.fileExists(atPath: foreign))
    }

    @Test("Cancelled while tagging: no working copy stays, the file is untouched")
    func cancelled() throws {
        let dir = try temporaryFolder("cancelled")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try copyFixture("tone_2s_stereo.flac", to: dir)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: TagWriteError.cancelled(path: path)) { try TagWriter().write(["BPM": "120"], to: path, isCancelled: { true }) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["tone_2s_stereo.flac"])
    }
}

@Suite(.enabled(if: CLI.executable != nil, "the cadenza executable is not built"))
struct WriteTagsCLITests {
    @Test("analyze --write-tags: BPM, key and ReplayGain in the file, audio unchanged, a second run leaves the bytes")
    func writeTags() async throws {
        let dir = try temporaryFolder("cli")
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("drums.wav")
        try WAVFile.write(ActivitySynth.drums(seconds: 8, bpm: 120), rate: Int(ActivitySynth.rate), channels: 1, to: wav)
        let flac = dir.appendingPathComponent("drums.flac").path
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-nostdin", "-v", "error", "-i", wav.path, flac]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        let before = try decodedSamples(flac)
        let run = try await CLI.run(["analyze", "--for", "rhythm,loudness", "--write-tags", "--key-notation", "camelot", flac])
        #expect(run.status == 0, "\(run.err)")
        let report = try JSONDecoder().decode(Report.self, from: Data(run.out.utf8))
        let tags = try TagWriter.read(flac)
        let bpm = try #require(report.result?.rhythm?.beatsPerMinute)
        #expect(tags["BPM"] == String(Int(Double(bpm).rounded())) && (118...122).contains(Int(tags["BPM"] ?? "") ?? 0), "\(tags)")
        #expect(tags["REPLAYGAIN_TRACK_GAIN"]?.hasSuffix(" dB") == true && tags["REPLAYGAIN_TRACK_PEAK"] != nil)
        #expect(try decodedSamples(flac) == before)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: flac))
        let again = try await CLI.run(["analyze", "--for", "rhythm,loudness", "--write-tags", flac])
        let bytesAgain = try Data(contentsOf: URL(fileURLWithPath: flac))
        #expect(again.status == 0 && bytesAgain == bytes)
        let bad = try await CLI.run(["analyze", "--for", "loudness", "--write-tags", "--key-notation", "open", flac])
        #expect(bad.status == 2 && bad.err.contains("unknown notation 'open'"))
    }

    @Test("--write-tags with --output: the report records the tagged file's stamp, so reruns with or without --write-tags keep it")
    func taggedReportsStayCurrent() async throws {
        let dir = try temporaryFolder("resume")
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = dir.appendingPathComponent("music/drums.wav")
        try FileManager.default.createDirectory(at: wav.deletingLastPathComponent(), withIntermediateDirectories: true)
        try WAVFile.write(ActivitySynth.drums(seconds: 4, bpm: 120), rate: Int(ActivitySynth.rate), channels: 1, to: wav)
        let out = dir.appendingPathComponent("reports").path
        let music = dir.appendingPathComponent("music").path
        let first = try await CLI.run(["analyze", "--for", "rhythm,loudness", "--write-tags", "--no-progress", "--output", out, music])
        #expect(first.status == 0 && first.err.contains("1 analysed now"), "\(first.err)")
        let reportFile = try #require(FileManager.default.subpaths(atPath: out)?.first { $0.hasSuffix(".json") })
        let reportBytes = try Data(contentsOf: URL(fileURLWithPath: out + "/" + reportFile))
        let report = try JSONDecoder().decode(Report.self, from: reportBytes)
        let stamp = try #require(FileStamp.of(path: wav.path))
        #expect(TagWriter.holds(try TagWriter.read(wav.path), TagWriter.tags(for: report, path: wav.path)))
        #expect(report.source.size == stamp.size && report.source.modified == stamp.modified, "the stamp after tagging")
        let audioBytes = try Data(contentsOf: wav)
        for extra in [["--write-tags"], []] {
            let again = try await CLI.run(["analyze", "--for", "rhythm,loudness", "--no-progress", "--output", out] + extra + [music])
            #expect(again.status == 0 && again.err.contains("0 analysed now, 1 current"), "\(extra): \(again.err)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/" + reportFile)) == reportBytes)
            #expect(try Data(contentsOf: wav) == audioBytes)
        }
        // A file changed after tagging is analysed again.
        try (audioBytes + Data([0, 0])).write(to: wav)
        let changed = try await CLI.run(["analyze", "--for", "rhythm,loudness", "--no-progress", "--output", out, music])
        #expect(changed.err.contains("1 analysed now"), "\(changed.err)")
    }
}

extension WriteTagsCLITests {
    @Test("Resume with --write-tags: a folder analysed without tags gets them; a failed tagging is retried once the file is writable")
    func keptReportsAreTagged() async throws {
        let dir = try temporaryFolder("kept")
        defer { try? FileManager.default.removeItem(at: dir) }
        let music = dir.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        let a = music.appendingPathComponent("a.wav"), b = music.appendingPathComponent("b.wav")
        try WAVFile.write(ActivitySynth.drums(seconds: 4, bpm: 120), rate: Int(ActivitySynth.rate), channels: 1, to: a)
        try WAVFile.write(ActivitySynth.drums(seconds: 4, bpm: 100), rate: Int(ActivitySynth.rate), channels: 1, to: b)
        let out = dir.appendingPathComponent("reports").path
        let base = ["analyze", "--for", "rhythm,loudness", "--no-progress", "--output", out]
        // b cannot be tagged in the first run.
        #expect(chmod(b.path, 0o444) == 0)
        let first = try await CLI.run(base + ["--write-tags", music.path])
        #expect(first.status == 1 && first.err.contains("2 analysed now, 0 failed, 1 not tagged"), "\(first.err)")
        #expect(first.err.contains("b.wav: read-only; tags not written"), "\(first.err)")
        #expect(try TagWriter.read(a.path)["REPLAYGAIN_TRACK_GAIN"] != nil)
        #expect(try TagWriter.read(b.path)["REPLAYGAIN_TRACK_GAIN"] == nil)
        // Made writable: the rerun tags b from its kept report, analyses nothing, exits 0.
        #expect(chmod(b.path, 0o644) == 0)
        let second = try await CLI.run(base + ["--write-tags", music.path])
        #expect(second.status == 0 && second.err.contains("0 analysed now, 2 current"), "\(second.err)")
        #expect(try TagWriter.read(b.path)["REPLAYGAIN_TRACK_GAIN"] != nil)
        // b's report records the tagged file's stamp: a third run rewrites nothing.
        let reportFile = try #require(FileManager.default.subpaths(atPath: out)?.first { $0.hasSuffix("b.wav.json") })
        let report = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/" + reportFile)))
        #expect(report.source.modified == FileStamp.of(path: b.path)?.modified)
        let bBytes = try Data(contentsOf: b)
        let third = try await CLI.run(base + ["--write-tags", music.path])
        #expect(third.status == 0 && third.err.contains("0 analysed now, 2 current"), "\(third.err)")
        #expect(try Data(contentsOf: b) == bBytes)
        // A folder analysed without --write-tags gets its tags when the flag is added later.
        let c = music.appendingPathComponent("c.wav")
        try WAVFile.write(ActivitySynth.drums(seconds: 4, bpm: 90), rate: Int(ActivitySynth.rate), channels: 1, to: c)
        let plain = try await CLI.run(base + [music.path])
        #expect(plain.status == 0 && plain.err.contains("1 analysed now"), "\(plain.err)")
        #expect(try TagWriter.read(c.path)["REPLAYGAIN_TRACK_GAIN"] == nil)
        let later = try await CLI.run(base + ["--write-tags", music.path])
        #expect(later.status == 0 && later.err.contains("0 analysed now, 3 current"), "\(later.err)")
        #expect(try TagWriter.read(c.path)["REPLAYGAIN_TRACK_GAIN"] != nil)
    }
}

/// The ReplayGain values beside loudgain's on the same file (when loudgain is installed: Debian's
/// `loudgain`, which `scripts/setup.sh` installs for the tests). loudgain writes the true peak, so
/// the comparison uses `--true-peak`.
@Suite struct LoudgainComparisonTests {
    @Test func trackGainPeakAndReferenceMatchLoudgain() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/loudgain") else { return }
        let scratch = try ScratchFolder()
        for fixture in ["tone_2s_stereo.flac", "tone_2s_stereo.mp3"] {
            try scratch.copy(fixture, to: "lg/" + fixture)
            try scratch.copy(fixture, to: "cz/" + fixture)
            let loudgain = Process()
            loudgain.executableURL = URL(fileURLWithPath: "/usr/bin/loudgain")
            loudgain.arguments = ["-q", "-s", "e", scratch.path("lg/" + fixture)]
            loudgain.standardOutput = FileHandle.nullDevice
            loudgain.standardError = FileHandle.nullDevice
            try loudgain.run()
            loudgain.waitUntilExit()
            #expect(loudgain.terminationStatus == 0)
            let theirs = try TagWriter.read(scratch.path("lg/" + fixture))
            let report = FileAnalyzer(types: [.loudness]).report(path: scratch.path("cz/" + fixture))
            _ = try TagWriter().tag(report, peak: .truePeak)
            let ours = try TagWriter.read(scratch.path("cz/" + fixture))
            func number(_ text: String?) -> Double? { text.flatMap { Double($0.split(separator: " ").first ?? "") } }
            let gain = try #require(number(ours["REPLAYGAIN_TRACK_GAIN"])), theirGain = try #require(number(theirs["REPLAYGAIN_TRACK_GAIN"]))
            #expect(abs(gain - theirGain) <= 0.011, "\(fixture): \(ours) vs \(theirs)")
            let peak = try #require(number(ours["REPLAYGAIN_TRACK_PEAK"])), theirPeak = try #require(number(theirs["REPLAYGAIN_TRACK_PEAK"]))
            #expect(abs(20 * log10(peak / theirPeak)) <= 0.05, "\(fixture): \(ours) vs \(theirs)")
            #expect(number(ours["REPLAYGAIN_REFERENCE_LOUDNESS"]) == number(theirs["REPLAYGAIN_REFERENCE_LOUDNESS"]), "\(ours) vs \(theirs)")
        }
    }
}

/// `--album`: ReplayGain 2.0 album gain over the gating blocks of all tracks of a folder.
@Suite struct AlbumGainTests {
    static func tone(_ path: String, frequency: Int, seconds: Int, gainDB: Int) throws {
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = [
            "-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=f=\(frequency):d=\(seconds)",
            "-af", "volume=\(gainDB)dB", path,
        ]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
    }

    @Test func albumLoudnessOfOneTrackIsTheTrackAndGatesTheUnion() throws {
        let scratch = try ScratchFolder()
        try Self.tone(scratch.path("loud.flac"), frequency: 440, seconds: 6, gainDB: -6)
        try Self.tone(scratch.path("soft.flac"), frequency: 660, seconds: 4, gainDB: -12)
        let loud = try #require(FileAnalyzer(types: [.loudness]).analyze(path: scratch.path("loud.flac")).loudness)
        let soft = try #require(FileAnalyzer(types: [.loudness]).analyze(path: scratch.path("soft.flac")).loudness)
        var one = AlbumLoudness()
        let added = one.add(loud)
        #expect(added)
        #expect(abs(one.integrated - Double(loud.integrated.value)) < 0.01)
        var both = AlbumLoudness()
        both.add(loud)
        both.add(soft)
        // Blocks of both tracks pass the relative gate (6 dB apart): the album lies between them,
        // nearer the longer, louder track; the peak is the louder track's.
        #expect(both.integrated < Double(loud.integrated.value) && both.integrated > Double(soft.integrated.value))
        #expect(both.samplePeak == Double(loud.peak.value) && both.trackCount == 2)
        var noSeries = loud
        noSeries.momentary = []
        let refused = !one.add(noSeries)
        #expect(refused, "a track without its gating blocks cannot join an album")
    }

    /// The library's batch tagger without the CLI: the track that completes its album gets the
    /// album tags in its own write and the earlier track then, whose report ``BatchTagger/finish(reportPath:sink:)``
    /// rewrites with the file's new stamp; an album with a failed track gets no album gain, and
    /// the message says so.
    @Test func batchTaggerTagsAnAlbumWhenItsLastTrackIsDone() throws {
        let scratch = try ScratchFolder()
        for dir in ["a", "b"] {
            try FileManager.default.createDirectory(atPath: scratch.path(dir), withIntermediateDirectories: true)
            try Self.tone(scratch.path(dir + "/t1.flac"), frequency: 440, seconds: 6, gainDB: -6)
            try Self.tone(scratch.path(dir + "/t2.flac"), frequency: 660, seconds: 4, gainDB: -12)
        }
        let analyzer = FileAnalyzer(types: [.loudness])
        let inputs = ["a/t1.flac", "a/t2.flac", "b/t1.flac", "b/t2.flac"].map(scratch.path)
        let tagger = BatchTagger(keyNotation: .standard, peak: .sample)
        tagger.groupAlbums(inputs)
        try FileManager.default.createDirectory(atPath: scratch.path("out"), withIntermediateDirectories: true)
        let sink = ReportSink.directory(scratch.path("out"))
        let reportPaths = Dictionary(uniqueKeysWithValues: inputs.enumerated().map { ($1, scratch.path("out/\($0).json")) })
        func reportPath(_ input: String) -> String? { reportPaths[input] }
        // Album a: both tracks analysed; the first is written before the second completes the album.
        let first = tagger.tag(analyzer.report(path: inputs[0]))
        #expect(try TagWriter.read(inputs[0])["REPLAYGAIN_ALBUM_GAIN"] == nil, "the album is not complete yet")
        try sink.write(first, reportPath: reportPath(inputs[0]))
        _ = tagger.tag(analyzer.report(path: inputs[1]))
        let t1 = try TagWriter.read(inputs[0]), t2 = try TagWriter.read(inputs[1])
        #expect(t1["REPLAYGAIN_ALBUM_GAIN"] != nil && t1["REPLAYGAIN_ALBUM_GAIN"] == t2["REPLAYGAIN_ALBUM_GAIN"], "\(t1) \(t2)")
        // Album b: its second track fails.
        _ = tagger.tag(analyzer.report(path: inputs[2]))
        _ = tagger.tag(Report(path: inputs[3], error: AudioDecodingError.corruptData(path: inputs[3], reason: "test")))
        #expect(try TagWriter.read(inputs[2])["REPLAYGAIN_TRACK_GAIN"] != nil)
        #expect(try TagWriter.read(inputs[2])["REPLAYGAIN_ALBUM_GAIN"] == nil)
        let messages = tagger.finish(reportPath: reportPath, sink: sink)
        #expect(messages.count == 1 && messages[0].hasPrefix("warning: no album gain for ") && messages[0].contains("1 of 2 tracks"), "\(messages)")
        let firstReport = try #require(reportPath(inputs[0]))
        let rewritten = try #require(BatchTagger.readReport(firstReport))
        #expect(rewritten.source.size == FileStamp.of(path: inputs[0])?.size && rewritten.source.modified == FileStamp.of(path: inputs[0])?.modified)
        #expect(tagger.failures == 0)
    }

    @Test func albumTagsMatchLoudgainAndResumeKeepsTheTaggedTracks() async throws {
        let scratch = try ScratchFolder()
        for dir in ["a", "lg"] {
            try FileManager.default.createDirectory(atPath: scratch.path(dir), withIntermediateDirectories: true)
            try Self.tone(scratch.path(dir + "/t1.flac"), frequency: 440, seconds: 6, gainDB: -6)
            try Self.tone(scratch.path(dir + "/t2.flac"), frequency: 660, seconds: 4, gainDB: -12)
        }
        let usage = try await CLI.run(["analyze", "--album", scratch.path("a")])
        #expect(usage.status == 2 && usage.err.contains("--album needs --write-tags"))
        let run = try await CLI.run(["analyze", "--for", "loudness", "--write-tags", "--album", "-o", scratch.path("out"), scratch.path("a")])
        #expect(run.status == 0, "\(run.err)")
        let t1 = try TagWriter.read(scratch.path("a/t1.flac")), t2 = try TagWriter.read(scratch.path("a/t2.flac"))
        #expect(t1["REPLAYGAIN_ALBUM_GAIN"] != nil && t1["REPLAYGAIN_ALBUM_GAIN"] == t2["REPLAYGAIN_ALBUM_GAIN"], "\(t1) \(t2)")
        #expect(t1["REPLAYGAIN_ALBUM_PEAK"] == t1["REPLAYGAIN_TRACK_PEAK"], "the louder track's peak")
        // The album step rewrote files after their reports: the reports follow, so a rerun keeps them.
        let again = try await CLI.run(["analyze", "--for", "loudness", "--write-tags", "--album", "-o", scratch.path("out"), scratch.path("a")])
        #expect(again.err.contains("0 analysed now, 2 current"), "\(again.err)")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/loudgain") {
            let loudgain = Process()
            loudgain.executableURL = URL(fileURLWithPath: "/usr/bin/loudgain")
            loudgain.arguments = ["-q", "-a", "-s", "e", scratch.path("lg/t1.flac"), scratch.path("lg/t2.flac")]
            loudgain.standardOutput = FileHandle.nullDevice
            loudgain.standardError = FileHandle.nullDevice
            try loudgain.run()
            loudgain.waitUntilExit()
            let theirs = try TagWriter.read(scratch.path("lg/t1.flac"))
            func dB(_ text: String?) -> Double { Double(text?.split(separator: " ").first ?? "") ?? .nan }
            #expect(abs(dB(t1["REPLAYGAIN_ALBUM_GAIN"]) - dB(theirs["REPLAYGAIN_ALBUM_GAIN"])) <= 0.011, "\(t1) vs \(theirs)")
        }
    }
}
