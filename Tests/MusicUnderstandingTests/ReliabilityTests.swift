import Foundation
@testable import MusicUnderstanding
import Synchronization
import Testing

/// Regression tests of issue 13's found bugs (hostile files, odd file-system objects, failing
/// outputs), numbered as in the issue. Command-line cases run the built `cadenza` through bash,
/// so that a redirection (`> /dev/full`, `trap '' PIPE`, `ulimit -f`) is exactly what a user types.
@Suite(.enabled(if: CLI.executable != nil, "the cadenza executable is not built"))
struct ReliabilityTests {

    // MARK: 1, 2, 13: failing standard output and error

    @Test("Bug 1: meter with stdout on a full disk or a closed pipe (SIGPIPE ignored) stops with status 3, no crash")
    func meterOutputFailure() async throws {
        let full = try await Shell.run(#""$CADENZA" meter Fixtures/tone_2s_stereo.flac > /dev/full"#)
        #expect(full.status == 3, "\(full.err)")
        #expect(full.err.contains("No space left on device"), "\(full.err)")
        let pipe = try await Shell.run(#"trap '' PIPE; "$CADENZA" meter Fixtures/tone_2s_stereo.flac | head -c 1 > /dev/null; exit ${PIPESTATUS[0]}"#)
        #expect(pipe.status == 3, "\(pipe.err)")
        #expect(pipe.err.contains("Broken pipe"), "\(pipe.err)")
    }

    @Test("Bug 2: a failing stderr never crashes analyze (NDJSON or --output with an error record to report)")
    func stderrFailure() async throws {
        let work = try Workspace()
        let ndjson = try await Shell.run(#""$CADENZA" analyze --for loudness Fixtures/notes.mp3 Fixtures/tone_alac.m4a 2>/dev/full"#)
        #expect(ndjson.status == 1, "one input is not audio: \(ndjson.err)")
        #expect(ndjson.lines.count == 2)
        let folder = try await Shell.run(#""$CADENZA" analyze --for loudness -o "$1" Fixtures/notes.mp3 2>/dev/full"#, work.path("out"))
        #expect(folder.status == 1)
        #expect(FileManager.default.fileExists(atPath: work.path("out/Fixtures/notes.mp3.json")))
    }

    @Test("Bug 13: with SIGPIPE ignored, analyze stops soon after its reader goes away (status 3)")
    func analyzeStopsAfterBrokenPipe() async throws {
        let work = try Workspace()
        for i in 0..<30 { try work.copy("tone_alac.m4a", to: "in/\(i).m4a") }
        let run = try await Shell.run(
            #"trap '' PIPE; "$CADENZA" analyze --for loudness --jobs 1 "$1" | head -c 1 > /dev/null; exit ${PIPESTATUS[0]}"#, work.path("in"))
        #expect(run.status == 3, "\(run.err)")
        let stopped = run.err.split(separator: "\n").first { $0.contains("stopped after") }
        let done = stopped.flatMap { line in line.split(separator: " ").reversed().compactMap { Int($0) }.last }
        #expect(done.map { $0 < 30 } == true, "it did not go on through the whole folder: \(run.err)")
    }

    /// Not under ThreadSanitizer: with a file-size limit (`ulimit -f`) the TSan runtime itself
    /// dies of SIGBUS in any instrumented `cadenza analyze`, before Cadenza writes a byte (one
    /// 2-second file with `ulimit -f 4` is enough; Reports/sanitizers.md). Plain and ASan runs
    /// test it.
    @Test(
        "Bug 13: a disk that fills up mid-line leaves only whole NDJSON lines (ulimit -f), status 3",
        .disabled(
            if: ProcessInfo.processInfo.environment["CADENZA_SANITIZER"] == "thread",
            "the ThreadSanitizer runtime crashes under a file-size limit"))
    func noHalfWrittenLine() async throws {
        let work = try Workspace()
        let inputs = ["tone_2s_stereo.flac", "tone_2s_stereo.opus", "tone_2s_stereo.ogg", "tone_2s_stereo.mp3"]
        // 4 blocks of 1024 bytes: room for a line or two of these reports, not all four.
        let run = try await Shell.run(
            #"trap '' XFSZ; ulimit -f 4; "$CADENZA" analyze --for loudness --jobs 1 "${@:2}" > "$1""#,
            [work.path("out.ndjson")] + inputs.map { "Fixtures/" + $0 })
        #expect(run.status == 3, "\(run.err)")
        let data = try Data(contentsOf: URL(fileURLWithPath: work.path("out.ndjson")))
        #expect(data.isEmpty || data.last == 0x0A, "the file ends with a complete line")
        let validator = try SchemaValidator.reportSchema()
        for line in data.split(separator: 0x0A) {
            #expect(validator.validate(Data(line)).isEmpty, "a complete report: \(String(decoding: line.prefix(80), as: UTF8.self))")
        }
        #expect(data.split(separator: 0x0A).count < inputs.count)
    }

    // MARK: 3, 4, 7: odd file-system objects

    @Test("Bug 3: a FIFO in a folder gets an error record; the batch ends")
    func fifoInFolder() async throws {
        let work = try Workspace()
        try work.copy("tone_alac.m4a", to: "in/a.m4a")
        #expect(mkfifo(work.path("in/pipe.wav"), 0o644) == 0)
        let job = try BatchJob(paths: [work.path("in")], types: [.loudness], jobs: 2, sink: .ndjson(fileDescriptor: work.devNull))
        let events = EventLog()
        let summary = await job.run { events.add($0) }
        #expect(summary.done == 2 && summary.failed == 1)
        let record = try #require(events.reports.first { $0.source.path.hasSuffix("pipe.wav") })
        #expect(record.error?.code == "decodeFailed")
        #expect(record.error?.message.contains("named pipe") == true, "\(record.error?.message ?? "")")
    }

    @Test("Bug 4: symbolic links that loop (two to the folder itself, one to its parent) end the walk; each file once")
    func symlinkLoops() async throws {
        let work = try Workspace()
        try work.copy("tone_alac.m4a", to: "in/d/a.m4a")
        try work.copy("tone_alac.m4a", to: "in/b.m4a")
        try FileManager.default.createSymbolicLink(atPath: work.path("in/d/self1"), withDestinationPath: ".")
        try FileManager.default.createSymbolicLink(atPath: work.path("in/d/self2"), withDestinationPath: ".")
        try FileManager.default.createSymbolicLink(atPath: work.path("in/d/up"), withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: work.path("in/link.m4a"), withDestinationPath: "b.m4a")
        let inputs = InputDiscovery().inputs(from: [work.path("in"), work.path("in/d/a.m4a")])
        #expect(inputs == [work.path("in/b.m4a"), work.path("in/d/a.m4a")], "\(inputs)")
    }

    @Test("Bug 7: names that are not UTF-8 are analysed and reported losslessly (escaped), on stdout and with --output")
    func nonUTF8Names() async throws {
        let work = try Workspace()
        let raw: [UInt8] = Array("in/bad".utf8) + [0xFF, 0xFE, 0xC3] + Array(".m4a".utf8)
        try work.copy("tone_alac.m4a", toRaw: raw)
        let run = try await CLI.run(["analyze", "--for", "loudness", "--output", "out", "in"], in: work.root)
        #expect(run.status == 0, "\(run.err)")
        // The report file mirrors the input's raw name (FileManager does not list names that are not UTF-8).
        let folder = work.path("out/in")
        let written = try FilePath.contentsOfDirectory(folder).get()
        try #require(written.count == 1, "\(written)")
        #expect(FilePath.bytes(of: written[0]) == Array("bad".utf8) + [0xFF, 0xFE, 0xC3] + Array(".m4a.json".utf8))
        let report = try JSONDecoder().decode(Report.self, from: try #require(FilePath.contents(folder + "/" + written[0])))
        #expect(report.error == nil)
        #expect(FilePath.bytes(of: report.source.path) == raw, "the escaped path gives back the name's bytes")
        #expect(report.source.path.unicodeScalars.filter { (0x10FE80...0x10FEFF).contains($0.value) }.count == 3)
        // Named on the command line too (raw argv bytes, not Swift's repaired arguments).
        let named = try await Shell.run(#""$CADENZA" analyze --for loudness "$(printf 'in/bad\377\376\303.m4a')""#, in: work.root)
        #expect(named.status == 0, "\(named.err)")
    }

    @Test("Names that are not UTF-8: reports keep the file's stamp (a rerun keeps them), -o writes into the folder named, meter opens the file")
    func nonUTF8NamesEverywhere() async throws {
        let work = try Workspace()
        try work.copy("tone_alac.m4a", toRaw: Array("a".utf8) + [0xFF] + Array("/b.m4a".utf8))
        let script = #""$CADENZA" analyze --for loudness --no-progress -o "$(printf 'out\377')" "$(printf 'a\377')""#
        let first = try await Shell.run(script, in: work.root)
        #expect(first.status == 0, "\(first.err)")
        // The report lies in the folder whose name is the byte 0xFF, not in one named U+10FEFF in UTF-8.
        let out = FilePath.string(fromBytes: Array(work.root.path.utf8) + Array("/out".utf8) + [0xFF])
        let reports = try FilePath.contentsOfDirectory(out).get()
        #expect(reports.count == 1, "\(reports)")
        let escapedInUTF8 = FilePath.string(fromBytes: Array(work.root.path.utf8) + Array("/out".utf8) + [0xF4, 0x8F, 0xBB, 0xBF])
        #expect((try? FilePath.status(escapedInUTF8).get()) == nil, "a folder named U+10FEFF in UTF-8")
        let folder = out + "/" + (reports.first ?? "")
        let report = try #require(try FilePath.contentsOfDirectory(folder).get().first.flatMap { FilePath.contents(folder + "/" + $0) })
        let decoded = try JSONDecoder().decode(Report.self, from: report)
        #expect(decoded.source.size != nil && decoded.source.modified != nil, "the stamp of a non-UTF-8 name")
        let again = try await Shell.run(script, in: work.root)
        #expect(again.status == 0 && again.err.contains("0 analysed now, 1 current"), "\(again.err)")
        let meter = try await Shell.run(#""$CADENZA" meter "$(printf 'a\377/b.m4a')" > /dev/null"#, in: work.root)
        #expect(meter.status == 0, "\(meter.err)")
        // Tagged through its raw name (the kept report's values, no new analysis).
        let tagged = try await Shell.run(script.replacingOccurrences(of: "--no-progress", with: "--no-progress --write-tags"), in: work.root)
        #expect(tagged.status == 0 && tagged.err.contains("0 analysed now, 1 current") && !tagged.err.contains("not tagged"), "\(tagged.err)")
        let audio = FilePath.string(fromBytes: Array(work.root.path.utf8) + Array("/a".utf8) + [0xFF] + Array("/b.m4a".utf8))
        #expect(TagWriter.holds(try TagWriter.read(audio), TagWriter.tags(for: decoded, path: audio)))
    }

    @Test("FilePath: escaping is exact both ways for any bytes, including bytes that spell the escape characters")
    func filePathRoundTrip() {
        var generator = SystemRandomNumberGenerator()
        var cases: [[UInt8]] = [Array("plain/ünïcødé 音楽.flac".utf8), [0xFF], [0xC3], [0xED, 0xA0, 0x80], [0xF4, 0x8F, 0xBA, 0x80], [0xC0, 0xAF]]
        for _ in 0..<200 { cases.append((0..<Int.random(in: 1...12, using: &generator)).map { _ in UInt8.random(in: 1...255, using: &generator) }) }
        for bytes in cases {
            let s = FilePath.string(fromBytes: bytes)
            #expect(FilePath.bytes(of: s) == bytes, "\(bytes)")
            #expect(FilePath.string(fromBytes: FilePath.bytes(of: s)) == s)
        }
        #expect(FilePath.string(fromBytes: Array("a/b.mp3".utf8)) == "a/b.mp3", "valid UTF-8 is unchanged")
    }

    @Test("Bug 7: a path longer than the system allows, a dangling link and (as a non-root user) a locked subfolder each get an error record")
    func unlistableAndUnreachable() async throws {
        let work = try Workspace()
        try work.copy("tone_alac.m4a", to: "in/ok.m4a")
        try FileManager.default.createSymbolicLink(atPath: work.path("in/dangling.mp3"), withDestinationPath: "nowhere")
        try work.makeDeepFolder(relative: "in", component: String(repeating: "n", count: 200), depth: 22)  // over 4,096 bytes
        try work.copy("tone_alac.m4a", to: "in/locked/x.m4a")
        #expect(chmod(work.path("in/locked"), 0o000) == 0)
        defer { chmod(work.path("in/locked"), 0o755) }

        let asUser: [String] = getuid() == 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
        let run = try await Shell.run(#"exec "${@:2}" "$CADENZA" analyze --for loudness "$1""#, [work.path("in")] + asUser)
        let records = try run.lines.map { try JSONDecoder().decode(Report.self, from: Data($0.utf8)) }
        var codes: [String: String] = [:]
        for r in records { codes[String(r.source.path.dropFirst(work.path("in").count + 1).prefix(20))] = r.error?.code ?? "ok" }
        #expect(codes["ok.m4a"] == "ok", "\(codes)")
        #expect(codes["dangling.mp3"] == "fileNotFound", "\(codes)")
        #expect(codes["locked"] == "permissionDenied", "\(codes)")
        #expect(records.contains { $0.error?.code == "unreadable" && $0.error?.message.contains("File name too long") == true }, "\(codes)")
    }

    // MARK: 5, 8, 9, 10, 13: hostile content

    @Test("Bug 5: sample rates below 4 kHz are refused with a clear error, in bounded memory (file, raw PCM, audio provider)")
    func absurdlyLowSampleRates() async throws {
        for name in ["rate_1hz.wav", "rate_19hz.wav"] {
            let report = FileAnalyzer(types: [.loudness, .rhythm]).report(path: CLI.fixtures.appendingPathComponent("hostile/" + name).path)
            #expect(report.error?.code == "decodeFailed")
            #expect(report.error?.message.contains("sample rate") == true && report.error?.message.contains("4000") == true, "\(report.error?.message ?? "")")
        }
        let meter = try await CLI.run(["meter", "--format", "s16le", "--rate", "10", "--channels", "1"], stdin: Data(count: 100))
        #expect(meter.status == 2 && meter.err.contains("--rate"))
        let session = MusicUnderstandingSession(
            audioProvider: AsyncStream<PCMBuffer?> { c in
                c.yield(PCMBuffer(sampleRate: 19, channelCount: 1, samples: [Float](repeating: 0.1, count: 100)))
                c.yield(nil)
                c.finish()
            })
        await #expect(throws: AnalysisError.self) { try await session.analyze(for: [.loudness]) }
    }

    @Test("Bug 8: a readable corrupt WMA is decodeFailed, not permissionDenied")
    func corruptWMAIsNotPermission() {
        let report = FileAnalyzer(types: [.loudness]).report(path: CLI.fixtures.appendingPathComponent("hostile/corrupt.wma").path)
        #expect(report.error?.code == "decodeFailed", "\(report.error?.message ?? "")")
    }

    @Test("Bug 9: NaN, ±infinity and 1e30 samples are analysed as silence and flagged; loudness of the rest is right")
    func nonFiniteSamples() throws {
        // 1 s of a 1 kHz sine at amplitude 0.3, 8 kHz mono float, with 3 NaN, +inf, -inf and 1e30.
        let result = try FileAnalyzer(types: [.loudness]).analyze(path: CLI.fixtures.appendingPathComponent("hostile/nan_inf_huge.wav").path)
        let loudness = try #require(result.loudness)
        // BS.1770: -0.691 + 10 log10(0.3² / 2) + K-weighting at 1 kHz (+0.69 dB) = -13.47 LUFS.
        #expect(abs(loudness.integrated.value - -13.47) < 0.15, "\(loudness.integrated.value)")
        #expect(loudness.truePeak < 0, "no 600 dB true peak: \(loudness.truePeak)")
        let warning = try #require(result.warning)
        #expect(warning.contains("5 non-finite") && warning.contains("1 sample beyond"), "\(warning)")
    }

    @Test(
        "Bug 10: truncated Ogg Vorbis and Opus files get a report with a warning; intact ones none",
        arguments: [
            ("hostile/truncated.ogg", true), ("hostile/truncated.opus", true),
            ("tone_2s_stereo.ogg", false), ("tone_2s_stereo.opus", false), ("chained_rate_change.ogg", false),
        ])
    func truncatedOgg(_ name: String, _ truncated: Bool) throws {
        let result = try FileAnalyzer(types: [.loudness]).analyze(path: CLI.fixtures.appendingPathComponent(name).path)
        #expect((result.warning != nil) == truncated, "\(name): \(result.warning ?? "no warning")")
        if truncated { #expect(result.warning?.contains("Ogg") == true) }
    }

    @Test("Bug 13: a WAV with 0 bits per sample is named as such, not an unknown codec")
    func wavWithoutBitsPerSample() {
        let report = FileAnalyzer(types: [.loudness]).report(path: CLI.fixtures.appendingPathComponent("hostile/bits_0.wav").path)
        #expect(report.error?.code == "decodeFailed")
        #expect(report.error?.message.contains("0 bits per sample") == true, "\(report.error?.message ?? "")")
    }

    @Test("OggEnd: only a whole last page flagged end-of-stream counts as a complete stream")
    func oggEndParser() throws {
        let data = try Data(contentsOf: CLI.fixtures.appendingPathComponent("tone_2s_stereo.ogg"))
        let bytes = [UInt8](data)
        #expect(OggEnd.endsWithEndOfStream(bytes))
        #expect(!OggEnd.endsWithEndOfStream(Array(bytes.dropLast())))
        #expect(!OggEnd.endsWithEndOfStream(Array(bytes.prefix(8500))))
        #expect(!OggEnd.endsWithEndOfStream([]))
        #expect(!OggEnd.endsWithEndOfStream(Array("OggS".utf8)))
    }
}

// MARK: - Helpers

/// A scratch folder, removed afterwards.
final class Workspace {
    let root: URL
    let devNull: Int32

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("cadenza-rel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        devNull = open("/dev/null", O_WRONLY)
    }

    deinit {
        close(devNull)
        _ = try? Shell.runBlocking(#"chmod -R u+rwx "$1" 2>/dev/null; rm -rf "$1""#, [root.path], in: URL(fileURLWithPath: "/"))
    }

    func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    func copy(_ fixture: String, to relative: String) throws {
        let target = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: CLI.fixtures.appendingPathComponent(fixture), to: target)
    }

    /// Copies a fixture to a relative path given as raw bytes (which need not be UTF-8).
    func copy(_ fixture: String, toRaw relative: [UInt8]) throws {
        let data = try Data(contentsOf: CLI.fixtures.appendingPathComponent(fixture))
        let target = FilePath.string(fromBytes: Array(root.path.utf8) + [0x2F] + relative)
        if let slash = relative.lastIndex(of: 0x2F) {
            _ = mkdir(FilePath.cString(FilePath.string(fromBytes: Array(root.path.utf8) + [0x2F] + relative[..<slash])), 0o755)
        }
        let fd = open(FilePath.cString(target), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        defer { close(fd) }
        try FileHandle(fileDescriptor: fd, closeOnDealloc: false).write(contentsOf: data)
    }

    /// `relative/c/c/.../c` (depth times) with a copy of a fixture at the bottom, built with
    /// relative `mkdir` calls (an absolute path that long cannot be created in one call).
    func makeDeepFolder(relative: String, component: String, depth: Int) throws {
        let script = #"cd "$1" && for i in $(seq 1 "$3"); do mkdir "$2" && cd "$2" || exit 1; done; echo x > deep.wav"#
        let run = try Shell.runBlocking(script, [path(relative), component, String(depth)], in: root)
        try #require(run.status == 0, "\(run.err)")
    }

    /// Every file (not folder) below `relative`.
    func files(under relative: String) throws -> [String] {
        let dir = path(relative)
        return (FileManager.default.enumerator(atPath: dir)?.allObjects as? [String] ?? []).filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: dir + "/" + name, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
    }
}

/// Batch events, collected.
final class EventLog: Sendable {
    private let list = Locked<[BatchEvent]>([])
    func add(_ e: BatchEvent) { list.withLock { $0.append(e) } }
    var reports: [Report] {
        list.withLock { $0.compactMap { event in if case .inputFinished(_, let report, _) = event { report } else { nil } } }
    }
}

/// Runs bash scripts with `$CADENZA` set to the built executable, in the package root.
enum Shell {
    static func run(_ script: String, _ arguments: String..., in directory: URL = CLI.packageRoot, timeout: Double = 60) async throws -> CommandRun {
        try await run(script, arguments, in: directory, timeout: timeout)
    }

    static func run(_ script: String, _ arguments: [String], in directory: URL = CLI.packageRoot, timeout: Double = 60) async throws -> CommandRun {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try runBlocking(script, arguments, in: directory, timeout: timeout) })
            }
        }
    }

    /// `bash -c script bash arguments...`; killed after `timeout` seconds.
    static func runBlocking(_ script: String, _ arguments: [String], in directory: URL, timeout: Double = 60) throws -> CommandRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script, "bash"] + arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["CADENZA"] = CLI.executable?.path ?? "cadenza"
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let collected = Locked<(Data, Data)>((Data(), Data()))
        let readers = DispatchGroup()
        for (pipe, isOut) in [(out, true), (err, false)] {
            readers.enter()
            Thread.detachNewThread {
                let d = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.withLock { if isOut { $0.0 = d } else { $0.1 = d } }
                readers.leave()
            }
        }
        var timedOut = false
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
        }
        readers.wait()
        let (o, e) = collected.withLock { $0 }
        return CommandRun(status: process.terminationStatus, stdout: o, stderr: e, timedOut: timedOut)
    }
}

/// The committed bad-input suite (Fixtures/hostile, Fixtures/README.md) plus the file-system
/// objects that cannot be committed, analysed by `cadenza analyze` as a user would: each input
/// gives exactly the expected error record or a report, the run ends, nothing crashes.
@Suite(.enabled(if: CLI.executable != nil, "the cadenza executable is not built"))
struct BadInputSuiteTests {
    /// Expected `error.code` per input name, or "ok" for a report, "warning" for a report with a warning.
    static let expected: [String: String] = [
        "empty.mp3": "decodeFailed", "text.mp3": "decodeFailed", "random.flac": "decodeFailed",
        "rate_1hz.wav": "decodeFailed", "rate_19hz.wav": "decodeFailed", "channels_1000.wav": "decodeFailed",
        "bits_0.wav": "decodeFailed", "rate_0.ogg": "decodeFailed", "corrupt.wma": "decodeFailed", "bad_chunk.aiff": "decodeFailed",
        "truncated.ogg": "warning", "truncated.opus": "warning", "nan_inf_huge.wav": "warning",
        "name with spaces.wav": "ok",
        // made at run time
        "fifo.wav": "decodeFailed", "loop": "-", "dangling.mp3": "fileNotFound", "new\nline.wav": "ok",
        "bad\u{10FEFF}name.wav": "ok", "unreadable.wav": "permissionDenied", "locked": "permissionDenied",
        "zero_frames.wav": "zeroLength", "truncated.mp3": "warning", "video_only.mp4": "noAudioStream",
        "huge_samplerate.wav": "decodeFailed",
    ]

    @Test("Every bad input yields its error record or a correct report; one record each; the run ends")
    func suite() async throws {
        let work = try Workspace()
        let hostile = CLI.fixtures.appendingPathComponent("hostile")
        for name in try FileManager.default.contentsOfDirectory(atPath: hostile.path) {
            try work.copy("hostile/" + name, to: "in/" + name)
        }
        for name in ["zero_frames.wav", "truncated.mp3", "video_only.mp4", "huge_samplerate.wav"] { try work.copy(name, to: "in/" + name) }
        #expect(mkfifo(work.path("in/fifo.wav"), 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: work.path("in/loop"), withDestinationPath: ".")
        try FileManager.default.createSymbolicLink(atPath: work.path("in/dangling.mp3"), withDestinationPath: "nowhere")
        try work.copy("hostile/name with spaces.wav", to: "in/new\nline.wav")
        try work.copy("hostile/name with spaces.wav", toRaw: Array("in/bad".utf8) + [0xFF] + Array("name.wav".utf8))
        try work.copy("hostile/name with spaces.wav", to: "in/unreadable.wav")
        try work.copy("hostile/name with spaces.wav", to: "in/locked/x.wav")
        #expect(chmod(work.path("in/unreadable.wav"), 0o000) == 0)
        #expect(chmod(work.path("in/locked"), 0o000) == 0)

        // As a user without root's powers, so that permissions mean something.
        let asUser: [String] = getuid() == 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
        let run = try await Shell.run(#"exec "${@:2}" "$CADENZA" analyze --for loudness "$1""#, [work.path("in")] + asUser, timeout: 120)
        #expect(!run.timedOut)
        #expect(run.status == 1, "\(run.err)")
        let validator = try SchemaValidator.reportSchema()
        var seen: [String: String] = [:]
        for line in run.lines {
            #expect(validator.validate(Data(line.utf8)).isEmpty, "\(line.prefix(200))")
            let report = try JSONDecoder().decode(Report.self, from: Data(line.utf8))
            let name = String(report.source.path.dropFirst(work.path("in").count + 1))
            #expect(seen[name] == nil, "one record per input: \(name) twice")
            seen[name] = report.error?.code ?? (report.warning != nil ? "warning" : "ok")
            if let error = report.error { #expect(error.message.contains(report.source.path), "the message names the input") }
        }
        var wanted = Self.expected.filter { $0.value != "-" }
        if getuid() == 0 && asUser.isEmpty { wanted["unreadable.wav"] = "ok" }
        #expect(seen == wanted)
    }

    @Test("Standard input keeps --timeout: a writer that stalls before or inside the audio gives timedOut at once, not a hang")
    func standardInputTimeout() throws {
        let executable = try #require(CLI.executable)
        let wav = try Data(contentsOf: CLI.fixtures.appendingPathComponent("tone_44k_stereo_s16.wav"))
        for prefix in [Data(), wav.prefix(3000)] {
            // This test is the writer: it sends `prefix`, then stalls with the pipe open.
            let process = Process()
            process.executableURL = executable
            process.arguments = ["analyze", "--for", "loudness", "--timeout", "2", "--no-progress", "-"]
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            let exited = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in exited.signal() }
            try process.run()
            input.fileHandleForWriting.write(prefix)
            let ended = exited.wait(timeout: .now() + 30) == .success
            if !ended { process.terminate() }
            try input.fileHandleForWriting.close()
            #expect(ended, "\(prefix.count) bytes, then a stall: the analysis hung")
            let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
            #expect(process.terminationStatus == 1 && lines.count == 1)
            let report = try JSONDecoder().decode(Report.self, from: Data((lines.first ?? "").utf8))
            #expect(report.error?.code == "timedOut" && report.source.path == "-", "\(lines)")
        }
    }

    @Test("Damaged data on standard input is decodeFailed, never permissionDenied (a demuxer's EPERM is not the system's)")
    func damagedStandardInput() async throws {
        for name in ["bad_chunk.aiff", "corrupt.wma"] {
            let run = try await Shell.run(
                #""$CADENZA" analyze --for loudness --no-progress - < "$1""#, [CLI.fixtures.appendingPathComponent("hostile/" + name).path],
                timeout: 60)
            #expect(run.status == 1 && run.lines.count == 1, "\(name): \(run.err)")
            let report = try JSONDecoder().decode(Report.self, from: Data((run.lines.first ?? "").utf8))
            #expect(report.error?.code == "decodeFailed", "\(name): \(report.error?.code ?? "no error")")
        }
    }
}

/// The limits standard input is analysed under (in the batch process, not in a worker).
@Suite struct StandardInputLimitTests {
    @Test("An analysis whose memory grows past the limit is stopped: outOfMemory, naming the input")
    func memoryLimit() {
        var limits = WorkerLimits(timeout: 60)
        limits.memoryBytes = 32 << 20
        let report = ProcessReportProducer.watched(
            path: "-", limits: limits, analyzer: AnalyzerInfo(types: [.loudness], configuration: .init()), cancellation: CancellationToken()
        ) { token, progress in
            // Grows 8 MB at a time (touched, so resident) until told to stop.
            var blocks: [[UInt8]] = []
            while !token.isCancelled && blocks.count < 200 {
                blocks.append([UInt8](repeating: 1, count: 8 << 20))
                progress(Double(blocks.count))
                usleep(20_000)
            }
            return Report(path: "-", error: AnalysisError.cancelled)
        }
        #expect(report.error?.code == "outOfMemory", "\(String(describing: report.error))")
        #expect(report.error?.message.contains("-") == true && report.analyzer != nil)
    }

    @Test("Time limit: the scaled default grows with the audio decoded; a stall past it is timedOut; an outer cancel passes through")
    func timeLimit() {
        var limits = WorkerLimits()
        limits.baseTimeout = 0.3
        limits.timeoutPerAudioSecond = 0.5
        let info = AnalyzerInfo(types: [.loudness], configuration: .init())
        // 1 s of audio decoded: the limit is 0.8 s, so the stall is stopped.
        let stalled = ProcessReportProducer.watched(path: "-", limits: limits, analyzer: info, cancellation: CancellationToken()) { token, progress in
            progress(1)
            while !token.isCancelled { usleep(10_000) }
            return Report(path: "-", error: AnalysisError.cancelled)
        }
        #expect(stalled.error?.code == "timedOut")
        let outer = CancellationToken()
        outer.cancel()
        let cancelled = ProcessReportProducer.watched(path: "-", limits: WorkerLimits(timeout: 60), analyzer: info, cancellation: outer) { token, _ in
            while !token.isCancelled { usleep(10_000) }
            return Report(path: "-", error: AnalysisError.cancelled)
        }
        #expect(cancelled.error?.code == "cancelled")
    }
}
