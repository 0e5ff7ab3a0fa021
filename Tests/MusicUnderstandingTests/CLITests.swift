import Foundation
import Synchronization
import Testing
@testable import MusicUnderstanding

/// End-to-end tests of the `cadenza` executable, run as a user runs it: a child process with
/// arguments, standard input, output and exit status. The executable is the one `swift test` builds
/// beside the tests (.build/<configuration>/cadenza). Expected values of the committed fixtures come
/// from independent tools (ffprobe, ffmpeg's ebur128 filter) via Tests/MusicUnderstandingTests/Resources/fixtures-expected.json, made by
/// scripts/make-fixture-expectations.sh.
@Suite(.enabled(if: CLI.executable != nil, "the cadenza executable is not built: run `swift build` (`swift test` builds it)"))
struct CLITests {

    // MARK: analyze on the fixtures folder

    @Test("analyze --for loudness Fixtures: one valid NDJSON line per input, values as ffmpeg measures them, exit 1")
    func analyzeFixtureFolder() async throws {
        let run = try await CLI.fixtureFolderRun.value
        #expect(!run.timedOut)
        #expect(run.status == 1, "some fixtures are undecodable: exit status 1; stderr: \(run.err)")
        // Error records go to stdout, and each failed input is also named on stderr (with its
        // reason); no progress bar without a terminal; the summary last.
        let errLines = run.err.split(separator: "\n").map(String.init)
        let errorRecords = run.lines.filter { $0.contains("\"error\":{") }
        #expect(errLines.last.map { $0.hasPrefix("cadenza: ") && $0.contains(" inputs; ") } == true, "\(run.err)")
        #expect(errLines.dropLast().allSatisfy { $0.hasPrefix("error: ") }, "\(run.err)")
        #expect(errLines.count - 1 == errorRecords.count, "one stderr line per error record: \(run.err)")
        let expected = try FixtureExpectations.load()
        let validator = try SchemaValidator.reportSchema()
        var seen: [String: Int] = [:]
        for line in run.lines {
            let errors = validator.validate(Data(line.utf8))
            #expect(errors.isEmpty, "\(errors) in \(line.prefix(300))")
            let report = try CLI.object(line)
            let path = try #require((report["source"] as? [String: Any])?["path"] as? String)
            #expect(path.hasPrefix("Fixtures/"), "paths are reported as given: \(path)")
            if path.hasPrefix("Fixtures/hostile/") { continue }  // the bad-input suite: ReliabilityTests
            let name = (path as NSString).lastPathComponent
            seen[name, default: 0] += 1
            #expect(report["key"] == nil && report["rhythm"] == nil, "\(name): only the analyses asked for")
            if let good = expected.good[name] {
                good.check(report, name: name)
            } else if let bad = expected.bad[name] {
                bad.check(report, path: path)
            } else {
                Issue.record("a record for \(path), which is no audio fixture (README.md and cover.png are skipped)")
            }
        }
        #expect(Set(seen.keys) == Set(expected.good.keys).union(expected.bad.keys), "one record per input")
        #expect(seen.values.allSatisfy { $0 == 1 }, "no input twice: \(seen.filter { $0.value > 1 })")
        #expect(seen["cover.png"] == nil)
        let failed = try run.lines.filter { try CLI.object($0)["error"] != nil }.count
        #expect(run.err.contains("cadenza: \(run.lines.count) inputs;") && run.err.contains(", \(failed) failed"), "\(run.err)")
    }

    @Test("Files named on the command line are always inputs: an image or a missing file gets its error record")
    func namedFilesAreInputs() async throws {
        let expected = try FixtureExpectations.load()
        let run = try await CLI.run(["analyze", "--for", "loudness", "Fixtures/cover.png", "Fixtures/no-such-file.flac", "Fixtures/tone_alac.m4a"])
        #expect(run.status == 1)
        let reports = try run.lines.map(CLI.object)
        #expect(reports.count == 3)
        for report in reports {
            let path = (report["source"] as? [String: Any])?["path"] as? String ?? ""
            switch path {
            case "Fixtures/cover.png": try #require(expected.skipped["cover.png"]).check(report, path: path)
            case "Fixtures/no-such-file.flac": FixtureExpectations.Bad(code: "fileNotFound").check(report, path: path)
            case "Fixtures/tone_alac.m4a": try #require(expected.good["tone_alac.m4a"]).check(report, name: path)
            default: Issue.record("unexpected record for \(path)")
            }
        }
    }

    @Test("Exit status 0 when every input is analysed, and only the summary on stderr without a terminal")
    func allGoodExitsZero() async throws {
        let run = try await CLI.run(["analyze", "--for", "loudness", "Fixtures/tone_44k_stereo_s16.wav", "Fixtures/tone_48k_mono_s24.wav"])
        #expect(run.status == 0)
        #expect(run.lines.count == 2)
        #expect(try run.lines.map(CLI.object).allSatisfy { $0["error"] == nil && $0["loudness"] != nil })
        #expect(CLI.onlySummary(run.err) && run.err.contains("2 inputs; 2 analysed now, 0 failed"), "\(run.err)")
    }

    // MARK: usage

    struct UsageCase: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        /// Every one must appear in the message on stderr.
        var mentions: [String]
        var testDescription: String { arguments.joined(separator: " ") }
    }

    @Test(
        "Usage errors: exit 2, nothing analysed, a message naming the option",
        arguments: [
            UsageCase(arguments: ["analyze", "--bogus", "Fixtures"], mentions: ["--bogus"]),
            UsageCase(arguments: ["analyze", "--jobs", "0", "Fixtures"], mentions: ["--jobs", "'0'"]),
            UsageCase(arguments: ["analyze", "--jobs", "many", "Fixtures"], mentions: ["--jobs", "'many'"]),
            UsageCase(arguments: ["analyze", "Fixtures", "--jobs"], mentions: ["--jobs"]),
            UsageCase(arguments: ["analyze", "--for", "tempo", "Fixtures"], mentions: ["unknown analysis 'tempo'"]),
            UsageCase(arguments: ["analyze", "--for", ",", "Fixtures"], mentions: ["at least one analysis"]),
            UsageCase(arguments: ["analyze", "--for", "bogus", "Fixtures"], mentions: ["--for", "bogus"]),
            UsageCase(arguments: ["analyze", "--output", "Fixtures/README.md/out", "Fixtures"], mentions: ["--output", "Fixtures/README.md/out"]),
            UsageCase(arguments: ["analyze"], mentions: ["no input"]),
            UsageCase(arguments: ["meter", "--format", "f64le", "--rate", "48000", "--channels", "2"], mentions: ["--format", "f64le"]),
            UsageCase(arguments: ["meter", "--format", "f32le"], mentions: ["--rate", "--channels"]),
            UsageCase(arguments: ["meter", "--format", "s16le", "--rate", "0", "--channels", "2"], mentions: ["--rate"]),
            UsageCase(arguments: ["meter", "--target", "5", "Fixtures/tone_alac.m4a"], mentions: ["--target", "'5'"]),
            UsageCase(arguments: ["meter", "--target", "nan", "Fixtures/tone_alac.m4a"], mentions: ["--target", "'nan'"]),
            UsageCase(arguments: ["bench", "--repeat", "0", "Fixtures/tone_alac.m4a"], mentions: ["--repeat"]),
            UsageCase(arguments: ["frobnicate"], mentions: ["frobnicate"]),
            UsageCase(arguments: ["analyze", "--tempo-range", "100-150", "Fixtures"], mentions: ["100-150", "octave"]),
            UsageCase(arguments: ["analyze", "--tempo-range", "20-300", "Fixtures"], mentions: ["20-300", "40-240"]),
            UsageCase(arguments: ["analyze", "--tempo-range", "fast", "Fixtures"], mentions: ["'fast'", "70-140"]),
        ])
    func usageError(_ usage: UsageCase) async throws {
        let run = try await CLI.run(usage.arguments)
        #expect(run.status == 2, "stderr: \(run.err)")
        #expect(run.stdout.isEmpty, "a usage error analyses nothing")
        for mention in usage.mentions {
            #expect(run.err.contains(mention), "'\(mention)' not in: \(run.err)")
        }
    }

    @Test("--tempo-range 70-140 folds a 150 BPM click track to 75 in the worker, with tempoCandidates")
    func tempoRangeFolds() async throws {
        let fm = FileManager.default
        let work = fm.temporaryDirectory.appendingPathComponent("cadenza-cli-\(UUID().uuidString)")
        try fm.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: work) }
        // 16-bit mono 22.05 kHz WAV: a 2 kHz click every 0.4 s for 16 s.
        let rate = 22_050, count = 16 * rate
        var pcm = [Int16](repeating: 0, count: count)
        for start in stride(from: rate / 2, to: count - rate / 2, by: rate * 2 / 5) {
            for i in 0..<Int(0.03 * Double(rate)) {
                let t = Double(i) / Double(rate)
                pcm[start + i] = Int16(16_000 * exp(-t / 0.005) * sin(2 * .pi * 2000 * t))
            }
        }
        var wav = Data("RIFF".utf8)
        func le<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { wav.append(contentsOf: $0) } }
        le(UInt32(36 + 2 * count)); wav.append(contentsOf: Array("WAVEfmt ".utf8))
        le(UInt32(16)); le(UInt16(1)); le(UInt16(1)); le(UInt32(rate)); le(UInt32(2 * rate)); le(UInt16(2)); le(UInt16(16))
        wav.append(contentsOf: Array("data".utf8)); le(UInt32(2 * count))
        for v in pcm { le(v) }
        let file = work.appendingPathComponent("clicks150.wav")
        try wav.write(to: file)
        for (arguments, expected) in [([String](), 150.0), (["--tempo-range", "70-140"], 75.0)] {
            let run = try await CLI.run(["analyze", "--for", "rhythm", "--no-progress"] + arguments + [file.path])
            #expect(run.status == 0, "\(run.err)")
            let rhythm = try #require(try CLI.object(run.lines.first ?? "")["rhythm"] as? [String: Any])
            let bpm = CLI.number(rhythm["beatsPerMinute"])
            #expect(abs(bpm / expected - 1) < 0.04, "\(arguments): \(bpm)")
            let candidates = try #require(rhythm["tempoCandidates"] as? [[String: Any]])
            #expect(abs(CLI.number(candidates.first?["beatsPerMinute"]) - bpm) < 0.01)
        }
    }

    @Test("--configuration FILE: settings over the defaults reach the analysis; an unknown key or bad range is a usage error")
    func configurationFile() async throws {
        let fm = FileManager.default
        let work = fm.temporaryDirectory.appendingPathComponent("cadenza-cli-\(UUID().uuidString)")
        try fm.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: work) }
        func file(_ name: String, _ json: String) throws -> String {
            let url = work.appendingPathComponent(name)
            try Data(json.utf8).write(to: url)
            return url.path
        }
        let good = try file("good.json", #"{"rhythm": {"meters": [3], "foldedTempoRange": [70, 140]}, "key": {"finalChordDuration": 0}}"#)
        let run = try await CLI.run(["analyze", "--for", "loudness", "--no-progress", "--configuration", good, "Fixtures/tone_2s_stereo.flac"])
        #expect(run.status == 0, "\(run.err)")
        let analyzer = try #require(try CLI.object(run.lines.first ?? "")["analyzer"] as? [String: Any])
        #expect((analyzer["configuration"] as? String)?.hasPrefix("custom-") == true)
        // A pipe works as the file (`--configuration <(...)`, /dev/stdin): the same settings, the same id.
        let piped = try await CLI.run(
            ["analyze", "--for", "loudness", "--no-progress", "--configuration", "/dev/stdin", "Fixtures/tone_2s_stereo.flac"],
            stdin: Data(#"{"rhythm": {"meters": [3], "foldedTempoRange": [70, 140]}, "key": {"finalChordDuration": 0}}"#.utf8))
        let pipedAnalyzer = try #require(try CLI.object(piped.lines.first ?? "")["analyzer"] as? [String: Any])
        #expect(piped.status == 0 && pipedAnalyzer["configuration"] as? String == analyzer["configuration"] as? String, "\(piped.err)")
        // The library's merge: only the named settings change.
        let merged = try AnalysisConfiguration(overridingDefaultsWith: Data(#"{"rhythm": {"meters": [3]}}"#.utf8))
        var expected = AnalysisConfiguration()
        expected.rhythm.downbeats.meters = [3]
        #expect(merged == expected)
        // Rhythm settings are grouped by step; the flat keys of 0.7 and earlier mean the same.
        let grouped = try AnalysisConfiguration(
            overridingDefaultsWith: Data(
                #"{"rhythm": {"downbeats": {"meters": [3]}, "tempo": {"minimumBPM": 50}, "level": {"foldedTempoRange": [70, 140]}}}"#.utf8))
        let flat = try AnalysisConfiguration(
            overridingDefaultsWith: Data(#"{"rhythm": {"meters": [3], "minimumBPM": 50, "foldedTempoRange": [70, 140]}}"#.utf8))
        #expect(grouped == flat)
        #expect(grouped.rhythm.tempo.minimumBPM == 50 && grouped.rhythm.level.foldedTempoRange == 70...140)
        #expect(grouped != merged)
        #expect(throws: ConfigurationError.self) {
            try AnalysisConfiguration(overridingDefaultsWith: Data(#"{"rhythm": {"meters": [3], "downbeats": {"meters": [4]}}}"#.utf8))
        }
        for (name, json, mention) in [
            ("typo.json", #"{"rhythm": {"meter": [3]}}"#, "unknown setting 'rhythm.meter'"),
            ("range.json", #"{"rhythm": {"foldedTempoRange": [100, 150]}}"#, "less than an octave"),
            ("bpm.json", #"{"rhythm": {"maximumBeatBPM": 30}}"#, "maximumBeatBPM (30.0)"),
            ("type.json", #"{"key": {"stepDuration": "long"}}"#, "key.stepDuration"),
            ("list.json", "[1, 2]", "not a JSON object"),
            ("twice.json", #"{"rhythm": {"meters": [3], "downbeats": {"meters": [4]}}}"#, "rhythm.meters and rhythm.downbeats.meters are the same setting"),
            ("grouptypo.json", #"{"rhythm": {"tempo": {"meters": [3]}}}"#, "unknown setting 'rhythm.tempo.meters'"),
            ("ratio.json", #"{"rhythm": {"beats": {"silenceRatio": 0.25}}}"#, "rhythm.beats.silenceRatio was replaced in 0.8.17 by rhythm.beats.silenceDepth"),
            ("flatRatio.json", #"{"rhythm": {"silenceRatio": 0.25}}"#, "rhythm.silenceRatio was replaced in 0.8.17 by rhythm.beats.silenceDepth"),
            ("depth.json", #"{"rhythm": {"beats": {"silenceDepth": -1}}}"#, "rhythm.beats.silenceDepth: -1 is outside"),
            // Settings that size buffers or divide: refused once, naming the setting,
            // instead of crashing, hanging or exhausting memory on every input.
            ("frame0.json", #"{"features": {"frameSize": 0}}"#, "features.frameSize: 0 is outside"),
            ("frameHuge.json", #"{"features": {"frameSize": 1073741824}}"#, "features.frameSize"),
            ("hopNegative.json", #"{"features": {"hopSize": -256}}"#, "features.hopSize: -256"),
            ("hop0.json", #"{"features": {"hopSize": 0}}"#, "features.hopSize: 0"),
            ("hopOverFrame.json", #"{"features": {"frameSize": 512, "hopSize": 1024}}"#, "must not exceed features.frameSize"),
            ("bands.json", #"{"mel": {"bandCount": 1e8}}"#, "mel.bandCount"),
            ("rate.json", #"{"features": {"sampleRate": 0}}"#, "features.sampleRate: 0"),
            ("meter0.json", #"{"rhythm": {"meters": [0]}}"#, "rhythm.downbeats.meters"),
            ("meterNegative.json", #"{"rhythm": {"meters": [-4]}}"#, "rhythm.downbeats.meters"),
            ("metersEmpty.json", #"{"rhythm": {"meters": []}}"#, "rhythm.downbeats.meters"),
            ("tempoWindow.json", #"{"rhythm": {"tempoCurveWindowBeats": 1}}"#, "rhythm.tempoCurve.tempoCurveWindowBeats: 1 is outside"),
            ("tempoDrift.json", #"{"rhythm": {"tempoCurveDrift": 5}}"#, "rhythm.tempoCurve.tempoCurveDrift: 5"),
            ("votePeriod.json", #"{"rhythm": {"octaveVotePeriod": 0}}"#, "rhythm.level.octaveVotePeriod: 0"),
            ("span.json", #"{"rhythm": {"harmonicContextBeats": 0}}"#, "rhythm.downbeats.harmonicContextBeats: 0"),
            ("altSpan.json", #"{"rhythm": {"alternativeHarmonicContextBeats": 100}}"#, "rhythm.downbeats.alternativeHarmonicContextBeats: 100"),
            ("unit.json", #"{"structure": {"maximumUnitSeconds": 0}}"#, "structure.maximumUnitSeconds: 0"),
            ("floor.json", #"{"rhythm": {"beats": {"impulsiveActivationFloor": 0}}}"#, "rhythm.beats.impulsiveActivationFloor: 0 is outside"),
            ("prior.json", #"{"rhythm": {"beats": {"impulsivePeriodPriorWeight": -1}}}"#, "rhythm.beats.impulsivePeriodPriorWeight: -1 is outside"),
            ("degree.json", #"{"rhythm": {"placement": {"beatSmoothingDegree": 3}}}"#, "rhythm.placement.beatSmoothingDegree: 3 is outside"),
            ("backbeat.json", #"{"rhythm": {"downbeats": {"backbeatCorrelation": -2}}}"#, "rhythm.downbeats.backbeatCorrelation: -2 is outside"),
            ("tie.json", #"{"rhythm": {"level": {"salienceTie": 2}}}"#, "rhythm.level.salienceTie: 2 is outside"),
            ("start.json", #"{"rhythm": {"tempo": {"startFrames": 100}}}"#, "rhythm.tempo.startFrames: 100 is outside"),
            ("pitched.json", #"{"rhythm": {"tempo": {"pitchedShare": -1}}}"#, "rhythm.tempo.pitchedShare: -1 is outside"),
            ("harmonic.json", #"{"rhythm": {"tempo": {"minimumHarmonicSalience": -1}}}"#, "rhythm.tempo.minimumHarmonicSalience: -1 is outside"),
            ("share.json", #"{"rhythm": {"beats": {"harmonicChangeBeatShare": 2}}}"#, "rhythm.beats.harmonicChangeBeatShare: 2 is outside"),
            ("nan.json", #"{"key": {"tonicChordWeight": "nan"}}"#, "expected a number, not the string 'nan'"),
        ] {
            let bad = try await CLI.run(["analyze", "--configuration", try file(name, json), "Fixtures/tone_2s_stereo.flac"])
            #expect(bad.status == 2 && bad.stdout.isEmpty && bad.err.contains(mention), "\(name): \(bad.err)")
        }
        // /dev/zero never ends: refused after 64 KB, not read into memory.
        let endless = try await CLI.run(["analyze", "--configuration", "/dev/zero", "Fixtures/tone_2s_stereo.flac"], timeout: 30)
        #expect(!endless.timedOut && endless.status == 2 && endless.err.contains("larger than 64 KB"), "\(endless.err)")
        // A valid file just under the cap (60 KB, mostly spaces) works: workers get the settings
        // re-encoded compactly on their command line, never the file as it was.
        let padded = #"{"rhythm": {"meters": [3]}"# + String(repeating: " ", count: 60_000) + "}"
        let large = try await CLI.run(["analyze", "--for", "rhythm", "--configuration", try file("padded.json", padded), "Fixtures/tone_2s_stereo.flac"])
        #expect(large.status == 0 && large.lines.count == 1, "\(large.err)")
        #expect(large.out.contains(#""configuration":"custom-"#))
    }

    @Test("analyze opens files, folders and '-' only: URLs, concat: and devices get protocolNotAllowed unless --allow-protocols")
    func protocolsNeedConsent() async throws {
        let inputs = ["http://127.0.0.1:9/x.mp3", "concat:Fixtures/tone_alac.m4a", "lavfi:sine=f=1000:d=1"]
        let run = try await CLI.run(["analyze", "--for", "loudness", "--no-progress"] + inputs + ["Fixtures/tone_alac.m4a"])
        #expect(run.status == 1)
        let records = try run.lines.map(CLI.object)
        let codes = records.compactMap { ($0["error"] as? [String: Any])?["code"] as? String }
        #expect(codes == ["protocolNotAllowed", "protocolNotAllowed", "protocolNotAllowed"], "\(run.out)")
        #expect(records.filter { $0["loudness"] != nil }.count == 1, "the file is analysed")
        for input in inputs { #expect(run.err.contains(input), "named on stderr: \(run.err)") }
        let allowed = try await CLI.run(["analyze", "--for", "loudness", "--no-progress", "--allow-protocols", "lavfi", "lavfi:sine=f=1000:d=1"])
        #expect(allowed.status == 0 && allowed.lines.count == 1, "\(allowed.err)")
    }

    @Test(
        "--help lists every option of the command and exits 0",
        arguments: [
            ("analyze", ["--for", "--output", "--jobs", "--no-progress", "--tempo-range", "--help"]),
            ("meter", ["--format", "--rate", "--channels", "--ndjson", "--target", "--realtime", "--help"]),
            ("bench", ["--repeat", "--no-peer", "--help"]),
        ])
    func help(_ command: String, _ options: [String]) async throws {
        for flag in ["--help", "-h"] {
            let run = try await CLI.run([command, flag])
            #expect(run.status == 0)
            #expect(run.out.contains("USAGE: cadenza \(command)"))
            for option in options { #expect(run.out.contains(option), "\(command) \(flag) does not list \(option)") }
        }
    }

    @Test("cadenza --help lists the commands")
    func topLevelHelp() async throws {
        let run = try await CLI.run(["--help"])
        #expect(run.status == 0)
        for command in ["analyze", "meter", "bench"] { #expect(run.out.contains(command)) }
    }

    // MARK: --output

    @Test("--output DIR: DIR/<input path>.json per input, each a valid report, no temporary files left")
    func outputFolder() async throws {
        let fm = FileManager.default
        let work = fm.temporaryDirectory.appendingPathComponent("cadenza-cli-\(UUID().uuidString)")
        defer { try? fm.removeItem(at: work) }
        try fm.createDirectory(at: work.appendingPathComponent("in/sub"), withIntermediateDirectories: true)
        try fm.copyItem(at: CLI.fixtures.appendingPathComponent("tone_44k_stereo_s16.wav"), to: work.appendingPathComponent("in/sub/a.wav"))
        try fm.copyItem(at: CLI.fixtures.appendingPathComponent("tone_2s_stereo.opus"), to: work.appendingPathComponent("in/c.opus"))
        try fm.copyItem(at: CLI.fixtures.appendingPathComponent("notes.mp3"), to: work.appendingPathComponent("in/b.mp3"))
        try Data("{}".utf8).write(to: work.appendingPathComponent("in/sub/a.wav.json"))  // a sidecar: skipped
        try Data("x".utf8).write(to: work.appendingPathComponent("in/.hidden.wav"))  // hidden: skipped

        let run = try await CLI.run(["analyze", "--for", "loudness", "--output", "out", "in"], in: work)
        #expect(run.status == 1, "in/b.mp3 is not audio")
        #expect(run.stdout.isEmpty, "reports go to files, not stdout")
        #expect(run.err.contains("in/b.mp3"), "the failed input is named on stderr: \(run.err)")

        let out = work.appendingPathComponent("out")
        let written = Set(
            (fm.enumerator(atPath: out.path)?.allObjects as? [String] ?? []).filter { name in
                var isDirectory: ObjCBool = false
                return fm.fileExists(atPath: out.appendingPathComponent(name).path, isDirectory: &isDirectory) && !isDirectory.boolValue
            })
        #expect(written == ["in/b.mp3.json", "in/c.opus.json", "in/sub/a.wav.json"], "exactly one file per input, no temporary files")
        let validator = try SchemaValidator.reportSchema()
        for name in written {
            let data = try Data(contentsOf: out.appendingPathComponent(name))
            #expect(data.last == 0x0A && data.dropLast().firstIndex(of: 0x0A) == nil, "\(name): one JSON line")
            #expect(validator.validate(data.dropLast()).isEmpty, "\(name)")
            let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect((report["source"] as? [String: Any])?["path"] as? String == String(name.dropLast(".json".count)))
            #expect((report["error"] != nil) == (name == "in/b.mp3.json"))
        }
    }

    @Test("--output: a report that cannot be written is named on stderr with the system's reason, exit 1")
    func outputWriteFailure() async throws {
        let fm = FileManager.default
        let work = fm.temporaryDirectory.appendingPathComponent("cadenza-cli-\(UUID().uuidString)")
        defer { try? fm.removeItem(at: work) }
        try fm.createDirectory(at: work.appendingPathComponent("out"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: work.appendingPathComponent("out/Fixtures"))  // a file where a folder must go
        let input = CLI.fixtures.appendingPathComponent("tone_44k_stereo.aiff").path
        try fm.createDirectory(at: work.appendingPathComponent("Fixtures"), withIntermediateDirectories: true)
        try fm.copyItem(atPath: input, toPath: work.appendingPathComponent("Fixtures/a.aiff").path)

        let run = try await CLI.run(["analyze", "--for", "loudness", "--output", "out", "Fixtures/a.aiff"], in: work)
        #expect(run.status == 1)
        #expect(run.err.contains("Fixtures/a.aiff") && run.err.contains("out/Fixtures: exists and is not a directory"), "\(run.err)")
        #expect(!run.err.contains("NSCocoaErrorDomain"), "a readable reason, not a Foundation error dump: \(run.err)")
    }

    @Test(
        "NDJSON to a full disk (/dev/full): the report's failure is named on stderr, the batch stops, exit 3",
        .enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "needs /dev/full (Linux)"))
    func stdoutWriteFailure() async throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        defer { try? full.close() }
        let run = try await CLI.run(["analyze", "--for", "loudness", "Fixtures/tone_44k_stereo.aiff"], stdoutTo: full)
        #expect(run.status == 3)
        #expect(run.err.contains("Fixtures/tone_44k_stereo.aiff") && run.err.contains("No space left on device"), "\(run.err)")
    }

    @Test("File names with quotes, backslashes, control characters and non-ASCII are reported exactly, on stdout and with --output")
    func awkwardFileNames() async throws {
        let fm = FileManager.default
        let work = fm.temporaryDirectory.appendingPathComponent("cadenza-cli-\(UUID().uuidString)")
        defer { try? fm.removeItem(at: work) }
        try fm.createDirectory(at: work.appendingPathComponent("in"), withIntermediateDirectories: true)
        let names = ["a \"quote\".aiff", "back\\slash.aiff", "new\nline.aiff", "tab\tand\u{1}.aiff", "ünïcødé 音楽.aiff"]
        for name in names {
            try fm.copyItem(at: CLI.fixtures.appendingPathComponent("tone_44k_stereo.aiff"), to: work.appendingPathComponent("in/" + name))
        }
        async let ndjson = CLI.run(["analyze", "--for", "loudness", "in"], in: work)
        async let files = CLI.run(["analyze", "--for", "loudness", "--output", "out", "in"], in: work)
        let (lines, written) = try await (ndjson, files)
        #expect(lines.status == 0 && written.status == 0, "\(lines.err) \(written.err)")
        let validator = try SchemaValidator.reportSchema()
        let reported = try lines.lines.map { line in
            #expect(validator.validate(Data(line.utf8)).isEmpty)
            return try #require((CLI.object(line)["source"] as? [String: Any])?["path"] as? String)
        }
        #expect(Set(reported) == Set(names.map { "in/" + $0 }))
        for name in names {
            let data = try Data(contentsOf: work.appendingPathComponent("out/in/\(name).json"))
            let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect((report["source"] as? [String: Any])?["path"] as? String == "in/" + name)
        }
    }

    // MARK: determinism

    @Test("Two runs (1 and 2 jobs, inputs in another order) give byte-identical reports")
    func deterministic() async throws {
        let inputs = ["Fixtures/tone_2s_stereo.flac", "Fixtures/tone_2s_stereo.opus", "Fixtures/surround_51_48k.wav", "Fixtures/notes.mp3"]
        async let first = CLI.run(["analyze", "--jobs", "1"] + inputs)
        async let second = CLI.run(["analyze", "--jobs", "2"] + inputs.reversed())
        let (a, b) = try await (first, second)
        #expect(a.lines.count == inputs.count)
        #expect(a.lines.sorted() == b.lines.sorted())
    }

    // MARK: standard input

    @Test("'-' analyses an encoded stream piped to standard input")
    func encodedStdin() async throws {
        let expected = try #require(try FixtureExpectations.load().good["tone_2s_stereo.flac"])
        let run = try await CLI.run(
            ["analyze", "--for", "loudness", "-"],
            stdin: try Data(contentsOf: CLI.fixtures.appendingPathComponent("tone_2s_stereo.flac")))
        #expect(run.status == 0, "\(run.err)")
        try #require(run.lines.count == 1)
        #expect(try SchemaValidator.reportSchema().validate(Data(run.lines[0].utf8)).isEmpty)
        let report = try CLI.object(run.lines[0])
        #expect((report["source"] as? [String: Any])?["path"] as? String == "-")
        expected.check(report, name: "stdin")
    }

    @Test("'-' with --output DIR writes DIR/stdin.json")
    func stdinToOutputFolder() async throws {
        let fm = FileManager.default
        let work = fm.temporaryDirectory.appendingPathComponent("cadenza-cli-\(UUID().uuidString)")
        defer { try? fm.removeItem(at: work) }
        try fm.createDirectory(at: work, withIntermediateDirectories: true)
        let run = try await CLI.run(
            ["analyze", "--for", "loudness", "--output", "out", "-"], stdin: try Data(contentsOf: CLI.fixtures.appendingPathComponent("tone_alac.m4a")),
            in: work)
        #expect(run.status == 0, "\(run.err)")
        #expect(try fm.contentsOfDirectory(atPath: work.appendingPathComponent("out").path) == ["stdin.json"])
        let data = try Data(contentsOf: work.appendingPathComponent("out/stdin.json"))
        #expect(try SchemaValidator.reportSchema().validate(data).isEmpty)
    }

    @Test("Garbage or nothing on standard input is an error record, not a hang or a crash")
    func badStdin() async throws {
        for input in [Data("not audio at all\n".utf8), Data()] {
            let run = try await CLI.run(["analyze", "--for", "loudness", "-"], stdin: input)
            #expect(run.status == 1)
            try #require(run.lines.count == 1)
            let error = try CLI.object(run.lines[0])["error"] as? [String: Any]
            #expect(error?["code"] as? String == "decodeFailed")
        }
    }

    // MARK: meter

    /// EBU Tech 3341 case 1: a 1 kHz sine at -23 dBFS (peak) in both channels of a stereo signal
    /// reads -23.0 LUFS (BS.1770: -0.691 + 10 log10 of the channel sum of K-weighted mean squares,
    /// 2 x A^2/2 = A^2, and the K-filter's +0.69 dB at 1 kHz cancel the offset).
    @Test("meter on raw f32le stereo: 30 lines for 3 s of -23 dBFS 1 kHz, integrated -23.0, summary on stderr")
    func meterRawFloat() async throws {
        let amplitude = Float(pow(10, -23.0 / 20))
        var pcm = Data(capacity: 3 * 48_000 * 8)
        for n in 0..<(3 * 48_000) {
            let v = amplitude * Float(sin(2 * Double.pi * 1000 * Double(n) / 48_000))
            withUnsafeBytes(of: v.bitPattern.littleEndian) { pcm.append(contentsOf: $0) }
            withUnsafeBytes(of: v.bitPattern.littleEndian) { pcm.append(contentsOf: $0) }
        }
        let run = try await CLI.run(["meter", "--format", "f32le", "--rate", "48000", "--channels", "2"], stdin: pcm)
        #expect(run.status == 0, "\(run.err)")
        let steps = try run.lines.map(CLI.object)
        #expect(steps.count == 30)
        for (i, step) in steps.enumerated() {
            #expect(Set(step.keys) == ["time", "momentary", "shortTerm", "integrated", "loudnessRange", "truePeak"])
            #expect(abs(CLI.number(step["time"]) - Double(i + 1) / 10) < 1e-9, "line \(i + 1): one line per 100 ms")
        }
        let last = try #require(steps.last)
        #expect(abs(CLI.number(last["integrated"]) - -23.0) <= 0.1)
        #expect(abs(CLI.number(last["momentary"]) - -23.0) <= 0.1)
        #expect(abs(CLI.number(last["truePeak"]) - -23.0) <= 0.3)
        #expect(steps.first?["integrated"] is NSNull, "no integrated loudness before the first 400 ms block")
        #expect(run.err.contains("Integrated loudness: -23.0 LUFS"), "summary on stderr: \(run.err)")
        #expect(!run.out.contains("Summary"))
    }

    /// A mono 1 kHz sine at -20 dBFS: -0.691 + 10 log10(A^2/2) + 0.691 = -23.0 LUFS.
    @Test("meter on raw s16le mono: 10 lines for 1 s, integrated -23.0")
    func meterRawInt16() async throws {
        let amplitude = pow(10, -20.0 / 20) * 32767
        var pcm = Data(capacity: 48_000 * 2)
        for n in 0..<48_000 {
            let v = Int16((amplitude * sin(2 * Double.pi * 1000 * Double(n) / 48_000)).rounded())
            withUnsafeBytes(of: v.littleEndian) { pcm.append(contentsOf: $0) }
        }
        let run = try await CLI.run(["meter", "--format", "s16le", "--rate", "48000", "--channels", "1"], stdin: pcm)
        #expect(run.status == 0, "\(run.err)")
        let steps = try run.lines.map(CLI.object)
        #expect(steps.count == 10)
        #expect(abs(CLI.number(steps.last?["integrated"]) - -23.0) <= 0.1)
    }

    @Test("meter on a file path: one line per 100 ms, final values as ffmpeg measures them, summary on stderr")
    func meterFile() async throws {
        let expected = try #require(try FixtureExpectations.load().good["tone_2s_stereo.flac"])
        let run = try await CLI.run(["meter", "Fixtures/tone_2s_stereo.flac"])
        #expect(run.status == 0, "\(run.err)")
        let steps = try run.lines.map(CLI.object)
        #expect(steps.count == 20)
        let last = try #require(steps.last)
        #expect(abs(CLI.number(last["time"]) - 2.0) < 1e-9)
        #expect(abs(CLI.number(last["integrated"]) - (expected.integrated ?? .nan)) <= expected.integratedTolerance)
        #expect(abs(CLI.number(last["truePeak"]) - expected.truePeak) <= expected.truePeakTolerance)
        let summaryLine = run.err.split(separator: "\n").first { $0.contains("Integrated loudness:") }
        let summaryValue = summaryLine.flatMap { $0.split(separator: " ").compactMap { Double($0) }.first }
        #expect(abs((summaryValue ?? .nan) - (expected.integrated ?? .nan)) <= 0.1, "summary on stderr: \(run.err)")
    }

    @Test("meter on an undecodable file: exit 1 and the file named on stderr")
    func meterBadFile() async throws {
        let run = try await CLI.run(["meter", "Fixtures/notes.mp3"])
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        #expect(run.err.contains("Fixtures/notes.mp3"))
    }

    // MARK: interrupt

    @Test(
        "Ctrl-C ends analyze (status 130) and meter (status 0) within seconds even when the input stalls",
        .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "needs /proc to see when the handler is installed"),
        arguments: [
            (["analyze", "--for", "loudness", "-"], Int32(130)),
            (["meter", "--format", "f32le", "--rate", "48000", "--channels", "2"], Int32(0)),
        ])
    func interruptOnStalledInput(_ arguments: [String], _ status: Int32) async throws {
        let run = try await CLI.run(arguments, stdin: Data(), keepStdinOpen: true, interruptWhenReady: true, timeout: 20)
        #expect(!run.timedOut, "still running 20 s after SIGINT")
        #expect(run.status == status, "stderr: \(run.err)")
        if status == 130 { #expect(run.err.contains("interrupted")) }
    }

    @Test(
        "Ctrl-C with --output while one input stalls: status 130, the count on stderr, only complete reports in the folder",
        .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "needs /proc to see when the handler is installed"))
    func interruptWithOutputFolder() async throws {
        let fm = FileManager.default
        let out = fm.temporaryDirectory.appendingPathComponent("cadenza-cli-\(UUID().uuidString)")
        defer { try? fm.removeItem(at: out) }
        let run = try await CLI.run(
            ["analyze", "--for", "loudness", "--jobs", "2", "--output", out.path, "Fixtures/tone_2s_stereo.flac", "-"],
            stdin: Data(), keepStdinOpen: true, interruptWhenReady: true, timeout: 20)
        #expect(!run.timedOut, "still running 20 s after SIGINT")
        #expect(run.status == 130, "stderr: \(run.err)")
        #expect(run.err.contains("interrupted:") && run.err.contains("of 2 inputs analysed"), "\(run.err)")
        let left = (fm.enumerator(atPath: out.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".json") || $0.contains(".tmp") }
        #expect(left.allSatisfy { $0 == "Fixtures/tone_2s_stereo.flac.json" }, "no temporary file, no record of the stalled input: \(left)")
        for name in left {
            let data = try Data(contentsOf: out.appendingPathComponent(name))
            #expect(try SchemaValidator.reportSchema().validate(data.dropLast()).isEmpty, "\(name) is a complete report")
        }
    }

    @Test("Options are found under every declared name and spelling: --jobs=2, -j 2, -o; --help wins over a bad value")
    func optionSpellings() async throws {
        let fm = FileManager.default
        let out = fm.temporaryDirectory.appendingPathComponent("cadenza-cli-\(UUID().uuidString)")
        defer { try? fm.removeItem(at: out) }
        for jobs in [["--jobs=2"], ["-j", "2"]] {
            let run = try await CLI.run(["analyze", "--for=loudness"] + jobs + ["Fixtures/tone_2s_stereo.flac"])
            #expect(run.status == 0 && run.lines.count == 1, "\(jobs): \(run.err)")
        }
        let written = try await CLI.run(["analyze", "--for", "loudness", "-o", out.path, "--no-progress", "Fixtures/tone_2s_stereo.flac"])
        #expect(written.status == 0 && written.stdout.isEmpty, "\(written.err)")
        #expect(fm.fileExists(atPath: out.appendingPathComponent("Fixtures/tone_2s_stereo.flac.json").path))
        let help = try await CLI.run(["analyze", "--jobs", "0", "--help"])
        #expect(help.status == 0 && help.out.contains("USAGE: cadenza analyze"))
        let flagWithValue = try await CLI.run(["analyze", "--no-progress=yes", "Fixtures"])
        #expect(flagWithValue.status == 2 && flagWithValue.err.contains("--no-progress takes no value"), "\(flagWithValue.err)")
    }

    // MARK: bench

    @Test("bench --no-peer --repeat 1 prints a Markdown table of stages")
    func bench() async throws {
        let run = try await CLI.run(["bench", "--no-peer", "--repeat", "1", "Fixtures/tone_44k_stereo_s16.wav"])
        #expect(run.status == 0, "\(run.err)")
        let lines = run.lines
        #expect(lines.contains("| stage | CPU s | wall s | x real time |"))
        #expect(lines.contains("|---|---:|---:|---:|"))
        let rows = lines.filter { $0.hasPrefix("| ") && !$0.hasPrefix("| stage") }
        let names = rows.map { $0.split(separator: "|")[0].trimmingCharacters(in: .whitespaces) }
        #expect(names.contains("decode") && names.contains("decode + loudness"), "\(names)")
        #expect(!names.contains { $0.contains("ffmpeg") }, "--no-peer runs no peer")
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(cells.count == 4 && cells.dropFirst().allSatisfy { Double($0) != nil }, "\(row)")
        }
    }
}

// MARK: - Expectations

/// Tests/MusicUnderstandingTests/Resources/fixtures-expected.json (scripts/make-fixture-expectations.sh).
struct FixtureExpectations: Decodable {
    /// A decodable fixture: stream parameters from ffprobe and ffmpeg's decoder, loudness from ffmpeg's ebur128.
    struct Good: Decodable {
        var sampleRate: Int
        var channels: Int
        var codec: String
        var duration: Double
        var durationTolerance: Double
        /// nil for files shorter than 0.4 s (no gating block: undefined).
        var integrated: Double?
        var integratedTolerance: Double
        var truePeak: Double
        var truePeakTolerance: Double
        /// A damaged file: analysed as far as it decodes, with a warning.
        var warning: Bool

        func check(_ report: [String: Any], name: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(report["error"] == nil, "\(name): \(report["error"] ?? "")", sourceLocation: sourceLocation)
            let source = report["source"] as? [String: Any] ?? [:]
            #expect(source["sampleRate"] as? Int == sampleRate, "\(name) sampleRate", sourceLocation: sourceLocation)
            #expect(source["channels"] as? Int == channels, "\(name) channels", sourceLocation: sourceLocation)
            #expect(source["codec"] as? String == codec, "\(name) codec", sourceLocation: sourceLocation)
            let d = CLI.number(source["duration"])
            #expect(abs(d - duration) <= durationTolerance, "\(name) duration \(d), ffmpeg decodes \(duration)", sourceLocation: sourceLocation)
            let loudness = report["loudness"] as? [String: Any] ?? [:]
            let measured = (loudness["integrated"] as? [String: Any])?["value"]
            if let integrated {
                let i = CLI.number(measured)
                #expect(abs(i - integrated) <= integratedTolerance, "\(name) integrated \(i), ffmpeg \(integrated)", sourceLocation: sourceLocation)
            } else {
                #expect(
                    measured is NSNull, "\(name) is shorter than one 400 ms block: integrated null, not \(measured ?? "absent")", sourceLocation: sourceLocation
                )
            }
            let tp = CLI.number(loudness["truePeak"])
            #expect(abs(tp - truePeak) <= truePeakTolerance, "\(name) true peak \(tp), ffmpeg \(truePeak)", sourceLocation: sourceLocation)
            let note = report["warning"] as? String
            #expect((note != nil) == warning, "\(name) warning: \(note ?? "none")", sourceLocation: sourceLocation)
            if let note { #expect(!note.isEmpty, sourceLocation: sourceLocation) }
        }
    }

    /// An undecodable fixture and its error code.
    struct Bad: Decodable {
        var code: String

        func check(_ report: [String: Any], path: String, sourceLocation: SourceLocation = #_sourceLocation) {
            let error = report["error"] as? [String: Any]
            #expect(error?["code"] as? String == code, "\(path): code \(error?["code"] ?? "none")", sourceLocation: sourceLocation)
            #expect(
                (error?["message"] as? String)?.contains(path) == true, "the message names the file: \(error?["message"] ?? "")", sourceLocation: sourceLocation
            )
            #expect(report["loudness"] == nil, "\(path): no analysis in an error record", sourceLocation: sourceLocation)
        }
    }

    var good: [String: Good]
    var bad: [String: Bad]
    /// Not inputs in a folder walk; named on the command line they give this error.
    var skipped: [String: Bad]

    static func load() throws -> FixtureExpectations {
        try JSONDecoder().decode(
            Self.self, from: Data(contentsOf: CLI.packageRoot.appendingPathComponent("Tests/MusicUnderstandingTests/Resources/fixtures-expected.json")))
    }
}

// MARK: - Running the executable

/// What one run of `cadenza` did.
struct CommandRun: Sendable {
    var status: Int32
    var stdout: Data
    var stderr: Data
    /// The process was killed after the timeout.
    var timedOut: Bool

    var out: String { String(decoding: stdout, as: UTF8.self) }
    var err: String { String(decoding: stderr, as: UTF8.self) }
    var lines: [String] { out.split(separator: "\n").map(String.init) }
}

enum CLI {
    /// The package root: this file is Tests/MusicUnderstandingTests/CLITests.swift.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = packageRoot.appendingPathComponent("Fixtures")

    /// `cadenza` built with these tests: $CADENZA_EXECUTABLE, else beside the test resources
    /// (.build/<triple>/<configuration>/), else .build/debug/cadenza.
    static let executable: URL? = {
        var candidates: [URL] = []
        if let path = ProcessInfo.processInfo.environment["CADENZA_EXECUTABLE"] { candidates.append(URL(fileURLWithPath: path)) }
        candidates.append(Bundle.module.bundleURL.deletingLastPathComponent().appendingPathComponent("cadenza"))
        candidates.append(packageRoot.appendingPathComponent(".build/debug/cadenza"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// The fixtures folder analysed once, shared by the tests that look at it (a 240 s limit: a
    /// debug build under the whole suite on 2 shared cores).
    static let fixtureFolderRun = Task { try await run(["analyze", "--for", "loudness", "--no-progress", "Fixtures"], timeout: 240) }

    /// Whether `stderr` is exactly the one summary line `cadenza analyze` always ends with.
    static func onlySummary(_ stderr: String) -> Bool {
        let lines = stderr.split(separator: "\n")
        return lines.count == 1 && lines[0].hasPrefix("cadenza: ") && lines[0].contains(" inputs; ")
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
    }

    /// A JSON number as Double (NaN for null or anything else, so that a comparison fails).
    static func number(_ value: Any?) -> Double {
        (value as? NSNumber)?.doubleValue ?? .nan
    }

    /// Runs `cadenza arguments` in `directory` (default: the package root), writing `stdin` to its
    /// standard input (nothing: /dev/null). With `keepStdinOpen` the input stays open after that
    /// (a stalled stream); with `interruptWhenReady` SIGINT is sent once the process has installed
    /// its handler. `stdoutTo` replaces the captured standard output (e.g. /dev/full).
    /// A run still going after `timeout` seconds is killed and marked `timedOut`.
    static func run(
        _ arguments: [String], stdin: Data? = nil, in directory: URL = packageRoot,
        keepStdinOpen: Bool = false, interruptWhenReady: Bool = false, stdoutTo: FileHandle? = nil,
        timeout: Double = 60
    ) async throws -> CommandRun {
        let executable = try #require(executable)
        return try await withCheckedThrowingContinuation { continuation in
            // Blocking waits get threads of their own: not the cooperative pool, and not Dispatch's
            // (whose width is the core count; it adds threads for blocked ones only slowly).
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        try runBlocking(
                            executable, arguments, stdin: stdin, in: directory, keepStdinOpen: keepStdinOpen,
                            interruptWhenReady: interruptWhenReady, stdoutTo: stdoutTo, timeout: timeout)
                    })
            }
        }
    }

    private final class Output: Sendable {
        let data = Locked(Data())
    }

    private static func runBlocking(
        _ executable: URL, _ arguments: [String], stdin: Data?, in directory: URL,
        keepStdinOpen: Bool, interruptWhenReady: Bool, stdoutTo: FileHandle?, timeout: Double
    ) throws -> CommandRun {
        signal(SIGPIPE, SIG_IGN)  // a child that exits early must not take the test runner down with EPIPE
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let outPipe = Pipe(), errPipe = Pipe(), inPipe = Pipe()
        process.standardOutput = stdoutTo ?? outPipe
        process.standardError = errPipe
        process.standardInput = stdin == nil ? FileHandle.nullDevice : inPipe
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()

        let out = Output(), err = Output()
        let readers = DispatchGroup()
        for (pipe, output) in [(outPipe, out), (errPipe, err)] {
            readers.enter()
            Thread.detachNewThread {
                let d = pipe.fileHandleForReading.readDataToEndOfFile()
                output.data.withLock { $0 = d }
                readers.leave()
            }
        }
        if let stdin {
            let writer = inPipe.fileHandleForWriting
            Thread.detachNewThread {
                try? writer.write(contentsOf: stdin)
                if !keepStdinOpen { try? writer.close() }
            }
        }
        if interruptWhenReady {
            let pid = process.processIdentifier
            let deadline = Date().addingTimeInterval(timeout)
            while !catchesSIGINT(pid), process.isRunning, Date() < deadline { usleep(10_000) }
            kill(pid, SIGINT)
        }
        var timedOut = false
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
        }
        if keepStdinOpen { try? inPipe.fileHandleForWriting.close() }
        if stdoutTo != nil { try? outPipe.fileHandleForWriting.close() }  // the reader gets EOF
        readers.wait()
        return CommandRun(
            status: process.terminationStatus, stdout: out.data.withLock { $0 },
            stderr: err.data.withLock { $0 }, timedOut: timedOut)
    }

    /// Whether the process catches SIGINT (its handler is installed: SigCgt in /proc/PID/status).
    /// Not SigIgn: `cadenza` ignores the signal first and catches it a moment later.
    private static func catchesSIGINT(_ pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
        for line in status.split(separator: "\n") where line.hasPrefix("SigCgt:") {
            if let mask = UInt64(line.split(separator: "\t").last ?? "", radix: 16), mask & (1 << (SIGINT - 1)) != 0 { return true }
        }
        return false
    }
}
