import Foundation
import MusicUnderstanding
import Synchronization
import Testing

/// Catalog scale: resume with `--output`, atomic reports after `kill -9`, stale temporary files,
/// report-path collisions, the output folder inside the input folder, shards.
@Suite(.serialized) struct CatalogTests {

    // MARK: resume (library)

    @Test("Resume: a second run keeps every current report; a touched file, other analyses or force redo it")
    func resumeKeepsCurrentReports() async throws {
        let scratch = try ScratchFolder()
        try scratch.copy("tone_2s_stereo.flac", to: "in/a.flac")
        try scratch.copy("tone_44k_stereo.aiff", to: "in/sub/b.aiff")
        try scratch.copy("notes.mp3", to: "in/bad.mp3")  // decodeFailed: about the content, kept
        let out = scratch.path("out")
        func run(_ types: Set<AnalysisType> = [.loudness], force: Bool = false) async throws -> (BatchSummary, BatchPlan, [String]) {
            let producer = RecordingProducer(types: types)
            let job = try BatchJob(paths: [scratch.path("in")], types: types, jobs: 2, sink: .directory(out), producer: producer, force: force)
            let plans = Locked<[BatchPlan]>([])
            let summary = await job.run { event in if case .planned(let p) = event { plans.withLock { $0.append(p) } } }
            return (summary, try #require(plans.withLock { $0.first }), producer.paths.sorted())
        }
        let (first, firstPlan, firstAnalysed) = try await run()
        #expect(first.done == 3 && first.failed == 1 && first.skipped == 0)
        #expect(firstPlan.current.isEmpty && firstAnalysed.count == 3)
        let before = try scratch.contents(of: "out")

        let (second, plan, analysed) = try await run()
        #expect(analysed.isEmpty, "nothing to redo: \(analysed)")
        #expect(plan.current.count == 3 && plan.currentFailed == [scratch.path("in/bad.mp3")])
        #expect(second.done == 3 && second.skipped == 3 && second.failed == 1 && second.exitStatus == 1)
        #expect(try scratch.contents(of: "out") == before, "kept reports are not rewritten")

        // A new modification time (same content) makes the report stale.
        let later = Date(timeIntervalSince1970: 1_800_000_000.5)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: scratch.path("in/a.flac"))
        let (_, _, touched) = try await run()
        #expect(touched == [scratch.path("in/a.flac")])
        let report = try #require(ReportHead.read(path: out + scratch.path("in/a.flac") + ".json"))
        #expect(report.source.modified == "2027-01-15T08:00:00.500000000Z" && report.source.size == 57011)

        let (_, _, otherTypes) = try await run([.loudness, .rhythm])
        #expect(otherTypes.count == 3, "other analyses redo everything")
        let (forced, _, all) = try await run([.loudness, .rhythm], force: true)
        #expect(all.count == 3 && forced.skipped == 0)
    }

    @Test("ResumePolicy: path, analyser, size and time must match; only content errors are kept")
    func resumePolicy() {
        let analyzer = AnalyzerInfo(types: [.loudness])
        let stamp = FileStamp(size: 10, modified: "2026-01-01T00:00:00.000000001Z")
        var source = SourceInfo(path: "a.flac")
        source.size = 10
        source.modified = stamp.modified
        let good = ReportHead(analyzer: analyzer, source: source, error: nil)
        #expect(ResumePolicy.isCurrent(good, input: "a.flac", stamp: stamp, analyzer: analyzer))
        #expect(!ResumePolicy.isCurrent(good, input: "./a.flac", stamp: stamp, analyzer: analyzer), "another spelling")
        #expect(!ResumePolicy.isCurrent(good, input: "a.flac", stamp: nil, analyzer: analyzer), "standard input or gone")
        #expect(!ResumePolicy.isCurrent(good, input: "a.flac", stamp: FileStamp(size: 11, modified: stamp.modified), analyzer: analyzer))
        #expect(!ResumePolicy.isCurrent(good, input: "a.flac", stamp: FileStamp(size: 10, modified: "2026-01-01T00:00:00.000000002Z"), analyzer: analyzer))
        #expect(!ResumePolicy.isCurrent(good, input: "a.flac", stamp: stamp, analyzer: AnalyzerInfo(types: [.loudness, .key])))
        var tuned = AnalysisConfiguration()
        tuned.key.finalChordDuration = 0
        #expect(AnalyzerInfo(types: [.loudness], configuration: tuned).configuration.hasPrefix("custom-"))
        #expect(!ResumePolicy.isCurrent(good, input: "a.flac", stamp: stamp, analyzer: AnalyzerInfo(types: [.loudness], configuration: tuned)))
        var old = good
        old.analyzer = AnalyzerInfo(name: "cadenza", version: "0.0.1", analyses: ["loudness"], configuration: "default")
        #expect(!ResumePolicy.isCurrent(old, input: "a.flac", stamp: stamp, analyzer: analyzer), "another version")
        for (code, kept) in [("decodeFailed", true), ("zeroLength", true), ("fileNotFound", false), ("permissionDenied", false), ("cancelled", false)] {
            var record = good
            record.error = Report.ErrorInfo(code: code, message: "a.flac: x")
            #expect(ResumePolicy.isCurrent(record, input: "a.flac", stamp: stamp, analyzer: analyzer) == kept, "\(code)")
        }
    }

    @Test("ReportHead reads analyzer, source and error from a real report, and refuses damaged or foreign files")
    func reportHead() throws {
        var report = FileAnalyzer(types: [.loudness]).report(path: CLI.fixtures.appendingPathComponent("tone_2s_stereo.flac").path)
        report.source.path = "we\"ird\\ {name}.flac"
        let line = report.jsonLine()
        let head = try #require(ReportHead.read(from: line + Data("\n".utf8)))
        #expect(head.source == report.source && head.analyzer == report.analyzer && head.error == nil)
        #expect(head.source.size == 57011 && head.analyzer?.analyses == ["loudness"])
        for cut in [1, 10, line.count / 2, line.count - 1] {
            #expect(ReportHead.read(from: line.prefix(cut)) == nil, "a report cut at \(cut) bytes")
        }
        #expect(ReportHead.read(from: Data("[1,2]".utf8)) == nil)
        #expect(ReportHead.read(from: Data(#"{"analyzer":{}}"#.utf8)) == nil, "no source")
        #expect(ReportHead.read(from: line + Data("x".utf8)) == nil, "trailing garbage")
    }

    // MARK: temporary files, collisions, output inside the input

    @Test("Stale temporary files (dead writer on this host, or older than 10 minutes) are removed; a live writer's are kept")
    func staleTemporaryFiles() throws {
        let scratch = try ScratchFolder()
        let target = scratch.path("out/x/a.flac.json")
        let mine = ReportSink.temporaryPath(for: target)
        #expect((mine as NSString).lastPathComponent.hasPrefix(".a.flac.json.tmp-") && mine.hasSuffix("-\(getpid())"))
        let host = ReportSink.hostName
        var dead: Int32 = 4_000_000
        while kill(dead, 0) == 0 || errno != ESRCH { dead -= 1 }
        try FileManager.default.createDirectory(atPath: scratch.path("out/x"), withIntermediateDirectories: true)
        let deadWriter = scratch.path("out/x/.b.flac.json.tmp-\(host)-\(dead)")
        let oldForeign = scratch.path("out/.c.flac.json.tmp-elsewhere-123")
        let freshForeign = scratch.path("out/.d.flac.json.tmp-elsewhere-123")
        let hidden = scratch.path("out/.notes")
        for path in [mine, deadWriter, oldForeign, freshForeign, hidden] { try Data("{".utf8).write(to: URL(fileURLWithPath: path)) }
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: oldForeign)
        let removed = ReportSink.removeStaleTemporaryFiles(in: scratch.path("out"))
        #expect(Set(removed) == [deadWriter, oldForeign])
        for path in [mine, freshForeign, hidden] { #expect(FileManager.default.fileExists(atPath: path), "\(path) kept") }
    }

    @Test("Inputs that map to one report file get distinct ones: a/x and ../a/x, a file named stdin and -")
    func reportPathCollisions() throws {
        let scratch = try ScratchFolder()
        try scratch.copy("tone_2s_stereo.flac", to: "w/a/x.flac")
        try scratch.copy("tone_2s_stereo.flac", to: "w/stdin")
        let out = scratch.path("out")
        // Paths as the job sees them (none exists from here); nothing is analysed.
        let job = try BatchJob(paths: ["a/x.flac", "../a/x.flac", "stdin", "-", "/abs/a/x.flac", "../w/b.flac"], sink: .directory(out))
        let paths = job.inputs.compactMap(job.reportPath(for:))
        #expect(paths.count == 6 && Set(paths).count == 6, "\(paths)")
        #expect(job.reportPath(for: "a/x.flac") == out + "/a/x.flac.json", "the exact spelling keeps its name")
        #expect(job.reportPath(for: "../a/x.flac")?.hasPrefix(out + "/a/x.flac~") == true)
        #expect(job.reportPath(for: "stdin") == out + "/stdin.json")
        #expect(job.reportPath(for: "-")?.hasPrefix(out + "/stdin~") == true)
        #expect(job.reportPath(for: "../w/b.flac") == out + "/w/b.flac.json", "no collision: the usual name")
        let alone = try BatchJob(paths: ["-"], sink: .directory(out))
        #expect(alone.reportPath(for: "-") == out + "/stdin.json")
    }

    @Test("CLI: a file named stdin and '-' both get their report; the second run finds them current")
    func stdinCollisionCLI() async throws {
        let scratch = try ScratchFolder()
        try scratch.copy("tone_2s_stereo.flac", to: "stdin")
        let audio = try Data(contentsOf: CLI.fixtures.appendingPathComponent("tone_alac.m4a"))
        let run = try await CLI.run(["analyze", "--for", "loudness", "-o", "out", "stdin", "-"], stdin: audio, in: scratch.root)
        #expect(run.status == 0, "\(run.err)")
        let files = try scratch.files(under: "out").sorted()
        #expect(files.count == 2 && files.first == "stdin.json" && files.last?.hasPrefix("stdin~") == true, "\(files)")
        let paths = try files.map { try #require(ReportHead.read(path: scratch.path("out/" + $0))).source.path }
        #expect(Set(paths) == ["stdin", "-"])
    }

    @Test("CLI: --output inside the input folder: reports are never taken for inputs, a rerun keeps them all")
    func outputInsideInput() async throws {
        let scratch = try ScratchFolder()
        try scratch.copy("tone_2s_stereo.flac", to: "in/a.flac")
        try scratch.copy("tone_44k_stereo.aiff", to: "in/b.aiff")
        // A stray report outside the output folder is skipped too (it names its own input).
        try Data(#"{"schemaVersion":1,"source":{"path":"gone.wav"},"error":{"code":"fileNotFound","message":"gone"}}"#.utf8)
            .write(to: URL(fileURLWithPath: scratch.path("in/old-report.json")))
        let first = try await CLI.run(["analyze", "--for", "loudness", "-o", "in/reports", "in"], in: scratch.root)
        #expect(first.status == 0, "\(first.err)")
        let second = try await CLI.run(["analyze", "--for", "loudness", "-o", "in/reports", "in"], in: scratch.root)
        #expect(second.status == 0, "\(second.err)")
        #expect(second.err.contains("2 inputs; 0 analysed now, 2 current (kept)"), "\(second.err)")
        #expect(try scratch.files(under: "in/reports").sorted() == ["in/a.flac.json", "in/b.aiff.json"])
    }

    @Test("CLI: -o DIR DIR (only the output folder as input) is a usage error that says why, not a silent success")
    func outputFolderAsOnlyInput() async throws {
        let scratch = try ScratchFolder()
        try scratch.copy("tone_2s_stereo.flac", to: "in/a.flac")
        #expect(try await CLI.run(["analyze", "--for", "loudness", "-o", "out", "in"], in: scratch.root).status == 0)
        for inputs in [["out"], ["out/in"], ["./out/"]] {
            let run = try await CLI.run(["analyze", "--for", "loudness", "-o", "out"] + inputs, in: scratch.root)
            #expect(run.status == 2 && run.err.contains("nothing to analyse: out is the --output folder"), "\(inputs): \(run.err)")
        }
    }

    @Test("CLI: a JSON file that is not a report is not silently skipped: it gets an error record")
    func foreignJSONGetsAnErrorRecord() async throws {
        let scratch = try ScratchFolder()
        try scratch.copy("tone_2s_stereo.flac", to: "in/a.flac")
        try Data("{}".utf8).write(to: URL(fileURLWithPath: scratch.path("in/listing.json")))
        let run = try await CLI.run(["analyze", "--for", "loudness", "in"], in: scratch.root)
        #expect(run.status == 1, "\(run.err)")
        let lines = run.out.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.contains { $0.contains("listing.json") && $0.contains("\"error\"") }, "\(run.out)")
    }

    // MARK: kill -9

    @Test("kill -9 in the middle of a run, then a rerun: the same reports, byte for byte, as an uninterrupted run; no temporary files")
    func killAndResume() async throws {
        let scratch = try ScratchFolder()
        let fixtures = [
            "tone_2s_stereo.flac", "tone_44k_stereo.aiff", "tone_2s_stereo.ogg", "tone_44k_stereo_s16.wav",
            "surround_51_48k.wav", "tone_48k_mono_s24.wav", "notes.mp3", "tone_alac.m4a",
        ]
        for (i, name) in fixtures.enumerated() { try scratch.copy(name, to: "in/\(i % 3)/\(name)") }
        let arguments = ["analyze", "--for", "loudness,rhythm", "--jobs", "2", "--no-progress"]
        let whole = try await CLI.run(arguments + ["-o", "whole", "in"], in: scratch.root)
        #expect(whole.status == 1, "notes.mp3 is no audio: \(whole.err)")

        // Killed once the first report is there (the others are in flight or not started).
        let executable = try #require(CLI.executable)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments + ["-o", "resumed", "in"]
        process.currentDirectoryURL = scratch.root
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while try scratch.files(under: "resumed").filter({ $0.hasSuffix(".json") && !$0.contains("/.") && !$0.hasPrefix(".") }).isEmpty,
            process.isRunning, Date() < deadline
        { try await Task.sleep(for: .milliseconds(2)) }  // never block the pool
        kill(process.processIdentifier, SIGKILL)
        while process.isRunning { try await Task.sleep(for: .milliseconds(5)) }
        let partial = try scratch.files(under: "resumed").filter { !($0 as NSString).lastPathComponent.hasPrefix(".") }
        #expect(partial.count < fixtures.count, "killed before the end: \(partial)")
        // A temporary file as a writer killed in the middle of a write leaves it.
        try FileManager.default.createDirectory(atPath: scratch.path("resumed/in/0"), withIntermediateDirectories: true)
        let stale = scratch.path("resumed/in/0/.zz.json.tmp-\(ReportSink.hostName)-\(process.processIdentifier)")
        try Data("{\"analyzer\"".utf8).write(to: URL(fileURLWithPath: stale))

        let rerun = try await CLI.run(arguments + ["-o", "resumed", "in"], in: scratch.root)
        #expect(rerun.status == 1, "\(rerun.err)")
        #expect(rerun.err.contains("\(partial.count) current (kept)"), "\(rerun.err)")
        #expect(try scratch.contents(of: "resumed") == scratch.contents(of: "whole"), "same files, same bytes, nothing else")
    }

    // MARK: shards

    @Test("Shards: N shares are disjoint and together the whole catalog, whatever the spelling of the root")
    func shardsPartitionTheCatalog() throws {
        let scratch = try ScratchFolder()
        var all = Set<String>()
        for i in 0..<60 {
            let relative = "in/\(i % 7)/track \(i).flac"
            try scratch.write("x", to: relative)
            all.insert(scratch.path(relative))
        }
        let full = try BatchJob(paths: [scratch.path("in")], sink: .ndjson(fileDescriptor: -1))
        #expect(Set(full.inputs) == all)
        for n in [1, 2, 3, 7] {
            var union = Set<String>()
            var sizes: [Int] = []
            for k in 1...n {
                let job = try BatchJob(paths: [scratch.path("in")], sink: .ndjson(fileDescriptor: -1), shard: Shard(index: k, count: n))
                #expect(union.isDisjoint(with: job.inputs), "shard \(k)/\(n) overlaps")
                union.formUnion(job.inputs)
                sizes.append(job.inputs.count)
                // The same share when the root is written another way (relative paths are what count).
                let respelt = try BatchJob(paths: [scratch.path("in") + "/"], sink: .ndjson(fileDescriptor: -1), shard: Shard(index: k, count: n))
                #expect(Set(respelt.inputs.map { ($0 as NSString).lastPathComponent }) == Set(job.inputs.map { ($0 as NSString).lastPathComponent }))
            }
            #expect(union == all, "\(n) shards leave no gap")
            if n == 3 { #expect(sizes.allSatisfy { $0 >= 10 }, "hash spreads the inputs: \(sizes)") }
        }
        #expect(Shard.relativePath(of: "/m/music/a/b.mp3", roots: ["/m/music"]) == "a/b.mp3")
        #expect(Shard.relativePath(of: "./x/./y.mp3", roots: []) == "x/y.mp3")
        #expect(FNV1a64.hash("a") == 0xaf63_dc4c_8601_ec8c, "FNV-1a 64 test vector")
        #expect((try? Shard(parsing: "0/3")) == nil && (try? Shard(parsing: "4/3")) == nil && (try? Shard(parsing: "1-3")) == nil)
        #expect(try Shard(parsing: "2/3") == Shard(index: 2, count: 3))
    }

    @Test("CLI: three --shard runs into one folder give exactly the reports of one full run")
    func shardRunsEqualFullRun() async throws {
        let scratch = try ScratchFolder()
        let fixtures = [
            "tone_2s_stereo.flac", "tone_44k_stereo.aiff", "tone_2s_stereo.ogg", "tone_44k_stereo_s16.wav",
            "tone_48k_mono_s24.wav", "tone_alac.m4a", "tone_2s_stereo.mp3", "notes.mp3",
        ]
        for (i, name) in fixtures.enumerated() { try scratch.copy(name, to: "in/d\(i % 2)/\(name)") }
        let base = ["analyze", "--for", "loudness", "--jobs", "1"]
        let root = scratch.root
        async let full = CLI.run(base + ["-o", "full", "in"], in: root)
        async let s1 = CLI.run(base + ["--shard", "1/3", "-o", "shared", "in"], in: root)
        async let s2 = CLI.run(base + ["--shard", "2/3", "-o", "shared", "in"], in: root)
        async let s3 = CLI.run(base + ["--shard", "3/3", "-o", "shared", "in"], in: root)
        let runs = try await [full, s1, s2, s3]
        #expect(runs.allSatisfy { !$0.timedOut && ($0.status == 0 || $0.status == 1) }, "\(runs.map(\.err))")
        let counts = runs.dropFirst().map { run in
            Int(run.err.split(separator: "\n").last?.split(separator: " ").dropFirst().first ?? "") ?? -1  // "cadenza: N inputs; ..."
        }
        #expect(counts.reduce(0, +) == fixtures.count, "shard sizes \(counts): \(runs.map(\.err))")
        #expect(try scratch.contents(of: "shared") == scratch.contents(of: "full"))
        let usage = try await CLI.run(["analyze", "--shard", "3/2", "in"], in: scratch.root)
        #expect(usage.status == 2 && usage.err.contains("invalid shard '3/2'"), "\(usage.err)")
    }

    // MARK: progress

    @Test("Without a terminal: periodic plain progress lines, a summary at the end, file names with control characters escaped")
    func plainProgressAndEscapedNames() async throws {
        let scratch = try ScratchFolder()
        try scratch.copy("surround_51_48k.wav", to: "in/a.wav")
        try scratch.copy("notes.mp3", to: "in/evil\u{1B}]0;owned\u{07}\u{1B}[2J.mp3")
        let run = try await CLI.run(["analyze", "--for", "loudness,rhythm", "--progress-interval", "0.01", "--jobs", "1", "-o", "out", "in"], in: scratch.root)
        #expect(run.status == 1)
        #expect(!run.stderr.contains(0x1B) && !run.stderr.contains(0x07), "no escape reaches the terminal: \(run.err)")
        #expect(run.err.contains("evil\\x1B]0;owned\\x07\\x1B[2J.mp3"), "\(run.err)")
        let lines = run.err.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("cadenza: ") && $0.contains("/2 done") && $0.contains("ETA") }, "periodic lines: \(run.err)")
        #expect(lines.last?.hasPrefix("cadenza: 2 inputs; 2 analysed now, 1 failed") == true, "\(run.err)")
        let quiet = try await CLI.run(["analyze", "--for", "loudness", "--no-progress", "--progress-interval", "0.01", "in/a.wav"], in: scratch.root)
        #expect(CLI.onlySummary(quiet.err), "--no-progress: the summary only: \(quiet.err)")
    }

    @Test("BatchProgress: counts, kept reports, audio rate and ETA from the events")
    func batchProgress() {
        let t0 = Date(timeIntervalSince1970: 1000)
        var progress = BatchProgress(total: 4, now: t0)
        progress.record(.planned(BatchPlan(pending: ["/nonexistent/a", "/nonexistent/b"], current: ["c", "d"], currentFailed: ["d"])), now: t0)
        #expect(progress.done == 2 && progress.skipped == 2 && progress.failed == 1 && progress.secondsLeft(now: t0) == nil)
        var source = SourceInfo(path: "/nonexistent/a")
        source.duration = 360
        var report = Report(path: "/nonexistent/a", error: AnalysisError.cancelled)
        report.error = nil
        report.source = source
        progress.record(.inputFinished(path: "/nonexistent/a", report: report, writeError: nil), now: t0.addingTimeInterval(10))
        #expect(progress.done == 3 && progress.failed == 1 && progress.fraction == 0.5)
        #expect(progress.audioHoursPerWallHour(now: t0.addingTimeInterval(10)) == 36)
        #expect(progress.secondsLeft(now: t0.addingTimeInterval(10)) == 10)
    }
}

// MARK: - Helpers

/// The default producer (analysis on pool threads), recording the paths asked for.
private final class RecordingProducer: ReportProducer {
    private let asked = Locked<[String]>([])
    private let pool: ThreadPoolReportProducer
    init(types: Set<AnalysisType>) { pool = ThreadPoolReportProducer(analyzer: FileAnalyzer(types: types), threads: 2) }
    var paths: [String] { asked.withLock { $0 } }

    func report(path: String, cancellation: CancellationToken) async -> Report {
        asked.withLock { $0.append(path) }
        return await pool.report(path: path, cancellation: cancellation)
    }
}
