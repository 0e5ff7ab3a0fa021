import Foundation
@testable import MusicUnderstanding
import Testing

/// Worker-process isolation (issue 13): ``ProcessReportProducer`` with the built `cadenza worker`.
/// Faults are injected through ``ReportWorker/faultHookVariable`` (inputs named `cadenza-fault-*`).
@Suite(.enabled(if: CLI.executable != nil, "the cadenza executable is not built"))
struct IsolationTests {
    static func producer(workers: Int, limits: WorkerLimits = WorkerLimits(), types: Set<AnalysisType> = [.loudness]) throws -> ProcessReportProducer {
        // Under a sanitizer (scripts/sanitizers.sh) the deliberate SIGSEGV must reach the worker's
        // default action, not the sanitizer's own handler, for the record to name the signal.
        var environment = [ReportWorker.faultHookVariable: "1"]
        for name in ["ASAN_OPTIONS", "TSAN_OPTIONS"] {
            environment[name] = (ProcessInfo.processInfo.environment[name].map { $0 + ":" } ?? "") + "handle_segv=0"
        }
        return ProcessReportProducer(
            executable: try #require(CLI.executable).path, types: types, workers: workers, limits: limits,
            environment: environment)
    }

    @Test("A crash, a hang and a runaway allocation each cost one error record (crashed, timedOut, outOfMemory); the batch goes on")
    func crashHangAndMemoryAreContained() async throws {
        let work = try Workspace()
        for name in ["a.m4a", "cadenza-fault-crash.m4a", "cadenza-fault-hang.m4a", "cadenza-fault-oom.m4a", "z.m4a"] {
            try work.copy("tone_alac.m4a", to: "in/" + name)
        }
        // The hang gets a 3 s limit; the others the default, so a slow shared machine cannot make them time out.
        let producer = Routing(
            hang: try Self.producer(workers: 1, limits: WorkerLimits(timeout: 3, memoryBytes: 300 << 20)),
            others: try Self.producer(workers: 2, limits: WorkerLimits(memoryBytes: 300 << 20)))
        let job = try BatchJob(
            paths: [work.path("in")], types: [.loudness], jobs: 2,
            sink: .ndjson(fileDescriptor: work.devNull), producer: producer)
        let events = EventLog()
        let summary = await job.run { events.add($0) }
        #expect(summary.done == 5 && summary.failed == 3 && !summary.interrupted, "\(summary)")
        var codes: [String: String] = [:]
        for report in events.reports { codes[(report.source.path as NSString).lastPathComponent] = report.error?.code ?? "ok" }
        #expect(
            codes == [
                "a.m4a": "ok", "z.m4a": "ok", "cadenza-fault-crash.m4a": "crashed",
                "cadenza-fault-hang.m4a": "timedOut", "cadenza-fault-oom.m4a": "outOfMemory",
            ], "\(codes)")
        let crash = try #require(events.reports.first { $0.error?.code == "crashed" })
        #expect(crash.error?.message.contains("SIGSEGV") == true && crash.error?.message.contains("cadenza-fault-crash.m4a") == true)
        #expect(producer.others.startedWorkers <= 4, "two slots plus one replacement per failed worker: \(producer.others.startedWorkers)")
    }

    @Test("stopWorkers stops and reaps the idle workers; later inputs start new ones")
    func idleWorkersAreReapedWhenStopped() async throws {
        let work = try Workspace()
        for name in ["a.m4a", "b.m4a"] { try work.copy("tone_alac.m4a", to: name) }
        let producer = try Self.producer(workers: 1)
        let first = await producer.report(path: work.path("a.m4a"), cancellation: CancellationToken())
        #expect(first.error == nil, "\(String(describing: first.error))")
        let workers = producer.idleWorkerIdentifiers
        #expect(workers.count == 1)
        producer.stopWorkers()
        #expect(producer.idleWorkerIdentifiers.isEmpty)
        // Reaped, not a zombie: the identifier no longer names a child of this process.
        for pid in workers {
            errno = 0
            #expect(kill(pid, 0) == -1 && errno == ESRCH, "worker \(pid) still exists")
        }
        let second = await producer.report(path: work.path("b.m4a"), cancellation: CancellationToken())
        #expect(second.error == nil && producer.startedWorkers == 2, "\(String(describing: second.error))")
    }

    @Test("A worker killed by SIGKILL from outside is crashed (signal 9), not outOfMemory, when the memory limit did not fire")
    func externalKillIsACrash() async throws {
        let work = try Workspace()
        try work.copy("tone_alac.m4a", to: "cadenza-fault-sigkill.m4a")
        let producer = try Self.producer(workers: 1)
        let report = await producer.report(path: work.path("cadenza-fault-sigkill.m4a"), cancellation: CancellationToken())
        #expect(report.error?.code == "crashed", "\(String(describing: report.error))")
        #expect(
            report.error?.message.contains("signal 9") == true && report.error?.message.contains("SIGKILL") == true,
            "\(String(describing: report.error?.message))")
    }

    /// Sends the hanging input to its own producer.
    struct Routing: ReportProducer {
        let hang: ProcessReportProducer
        let others: ProcessReportProducer
        func report(path: String, cancellation: CancellationToken) async -> Report {
            path.contains("hang")
                ? await hang.report(path: path, cancellation: cancellation)
                : await others.report(path: path, cancellation: cancellation)
        }
    }

    @Test(
        "Workers are long-lived: 8 inputs on 2 workers start 2 processes, and the reports equal in-process ones byte for byte",
        arguments: [1, 2])
    func workersAreReusedAndReportsIdentical(_ jobs: Int) async throws {
        let names = [
            "tone_2s_stereo.flac", "tone_2s_stereo.opus", "surround_51_48k.wav", "notes.mp3",
            "tone_alac.m4a", "truncated.mp3", "hostile/nan_inf_huge.wav", "tone_44k_stereo.aiff",
        ]
        let paths = names.map { CLI.fixtures.appendingPathComponent($0).path }
        let types: Set<AnalysisType> = [.loudness, .rhythm, .key]
        let producer = try Self.producer(workers: jobs, types: types)
        let inProcess = ThreadPoolReportProducer(analyzer: FileAnalyzer(types: types), threads: 2)
        var viaWorkers: [Data] = []
        var local: [Data] = []
        for path in paths {
            viaWorkers.append(await producer.report(path: path, cancellation: CancellationToken()).jsonLine())
            local.append(await inProcess.report(path: path, cancellation: CancellationToken()).jsonLine())
        }
        #expect(producer.startedWorkers == 1, "sequential inputs reuse one worker: \(producer.startedWorkers)")
        for (i, name) in names.enumerated() { #expect(viaWorkers[i] == local[i], "\(name)") }
    }

    @Test("Cancelling a job whose worker hangs ends it promptly and stops the worker")
    func cancelStopsHungWorker() async throws {
        let work = try Workspace()
        try work.copy("tone_alac.m4a", to: "cadenza-fault-hang.m4a")
        let producer = try Self.producer(workers: 1)
        let job = try BatchJob(
            paths: [work.path("cadenza-fault-hang.m4a")], types: [.loudness], jobs: 1,
            sink: .ndjson(fileDescriptor: work.devNull), producer: producer)
        let running = Task { await job.run() }
        // Cancelled once the worker has started and taken the input (it then hangs).
        await EventCounter.poll { producer.startedWorkers >= 1 }
        let start = ContinuousClock.now
        job.cancel()
        let summary = await running.value
        #expect(summary.interrupted)
        // Wall-clock by nature (the hung worker is stopped instead of running to its time limit,
        // 60 s or more); alone it takes well under a second, the margin covers the parallel suite.
        #expect(ContinuousClock.now - start < .seconds(30))
    }

    @Test("Worker frames: round trip, partial frames wait, malformed streams are refused")
    func frames() throws {
        let frames: [WorkerFrame] = [
            .analyze(path: FilePath.string(fromBytes: Array("a/b".utf8) + [0xFF])),
            .progress(seconds: 12.5), .report(json: Array(#"{"x":1}"#.utf8)),
        ]
        let bytes = frames.flatMap(\.encoded)
        var buffer = Array(bytes.dropLast())
        #expect(try WorkerFrame.parse(&buffer) == Array(frames.dropLast()))
        buffer.append(bytes.last ?? 0)
        #expect(try WorkerFrame.parse(&buffer) == [frames[2]])
        #expect(buffer.isEmpty)
        var bad: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0x41]
        #expect(throws: WorkerFrame.ProtocolError.self) { try WorkerFrame.parse(&bad) }
        var unknown: [UInt8] = [1, 0, 0, 0, 0x5A]
        #expect(throws: WorkerFrame.ProtocolError.self) { try WorkerFrame.parse(&unknown) }
    }

    @Test("Time limits scale with the audio decoded; a fixed --timeout overrides")
    func timeLimits() {
        #expect(WorkerLimits().timeLimit(decoded: 0) == 60)
        #expect(WorkerLimits().timeLimit(decoded: 3600) == 1860)
        #expect(WorkerLimits(timeout: 5).timeLimit(decoded: 3600) == 5)
    }
}
