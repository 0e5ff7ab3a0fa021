import Foundation
import MusicUnderstanding
import Synchronization
import Testing

/// (Named BatchJobTests: SessionTests.swift already declares `BatchTests` for discovery and the runner.)
/// The library's batch: ``BatchJob`` (discovery, output, counts, cancellation, summary) and the
/// dedicated-thread ``ThreadPoolReportProducer`` behind the ``ReportProducer`` seam.
@Suite struct BatchJobTests {

    // MARK: a folder of good and bad inputs

    @Test("BatchJob over a folder: one report or error record per input, written atomically, and the right summary")
    func folderOfGoodAndBadInputs() async throws {
        let work = try ScratchFolder()
        try work.copy("tone_2s_stereo.flac", to: "in/good.flac")
        try work.copy("truncated.mp3", to: "in/sub/damaged.mp3")  // partly decodes: a report with a warning
        try work.copy("random_bytes.flac", to: "in/bad.flac")  // an error record
        try work.copy("notes.mp3", to: "in/sub/notes.mp3")  // an error record
        let outDir = work.path("out/nested")  // created by the job

        let job = try BatchJob(paths: [work.path("in")], types: [.loudness], jobs: 2, sink: .directory(outDir))
        #expect(job.inputs.count == 4)
        let events = Events()
        let summary = await job.run { events.add($0) }

        #expect(summary == BatchSummary(inputs: 4, done: 4, failed: 2, interrupted: false))
        #expect(summary.exitStatus == 1)
        let finished = events.all
        #expect(finished.count == 4)
        #expect(Set(finished.map(\.path)) == Set(job.inputs))
        #expect(finished.filter(\.isFailure).count == 2)

        let written = try work.files(under: "out/nested")
        #expect(written.count == 4, "one file per input, no temporary files: \(written)")
        #expect(written.allSatisfy { $0.hasSuffix(".json") && !($0 as NSString).lastPathComponent.hasPrefix(".") })
        var codes: [String: String] = [:]
        for input in job.inputs {
            let file = ReportSink.outputPath(for: input, in: outDir)
            let report = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(report.source.path == input)
            codes[(input as NSString).lastPathComponent] = report.error?.code ?? (report.warning != nil ? "warning" : "ok")
        }
        #expect(codes == ["good.flac": "ok", "damaged.mp3": "warning", "bad.flac": "decodeFailed", "notes.mp3": "decodeFailed"])
    }

    @Test("Every input good: exit status 0; NDJSON sink that cannot be written: the job stops at the first write error, exit status 3")
    func summariesAndWriteFailures() async throws {
        let inputs = [
            CLI.fixtures.appendingPathComponent("tone_44k_stereo.aiff").path,
            CLI.fixtures.appendingPathComponent("tone_2s_stereo.flac").path,
        ]
        let devNull = open("/dev/null", O_WRONLY)
        defer { close(devNull) }
        let ok = try BatchJob(paths: inputs, types: [.loudness], jobs: 2, sink: .ndjson(fileDescriptor: devNull))
        let okSummary = await ok.run()
        #expect(okSummary == BatchSummary(inputs: 2, done: 2, failed: 0, interrupted: false))
        #expect(okSummary.exitStatus == 0)

        let full = open("/dev/full", O_WRONLY)
        try #require(full >= 0, "needs /dev/full (Linux)")
        defer { close(full) }
        let job = try BatchJob(paths: inputs, types: [.loudness], jobs: 2, sink: .ndjson(fileDescriptor: full))
        let events = Events()
        let summary = await job.run { events.add($0) }
        // The first failed write shows the output is gone: the job stops there (issue 13).
        #expect(summary.done == 1 && summary.failed == 1 && !summary.interrupted, "\(summary)")
        #expect(summary.outputFailure?.reason == "No space left on device")
        #expect(summary.exitStatus == 3)
        #expect(events.all.count == 1)
        for event in events.all {
            guard case .inputFinished(_, let report, let writeError) = event else { continue }
            #expect(report.error == nil, "the analysis itself succeeded")
            #expect(writeError?.reason == "No space left on device")
        }
    }

    // MARK: output folder

    @Test("An output folder that is not a writable directory is refused before any analysis")
    func unusableOutputFolderIsRefused() throws {
        let work = try ScratchFolder()
        try Data("x".utf8).write(to: URL(fileURLWithPath: work.path("file")))
        let counting = CountingProducer()
        let input = CLI.fixtures.appendingPathComponent("tone_2s_stereo.flac").path
        for dir in [work.path("file"), work.path("file/below")] {
            #expect(throws: BatchError.self) {
                _ = try BatchJob(paths: [input], types: [.loudness], sink: .directory(dir), producer: counting)
            }
            do {
                _ = try BatchJob(paths: [input], types: [.loudness], sink: .directory(dir), producer: counting)
            } catch {
                guard case .unusableOutputFolder(let path, let reason) = error else { return }
                #expect(path == dir && !reason.isEmpty)
                #expect(error.description.contains(dir), "\(error)")
            }
        }
        #expect(counting.calls == 0)
    }

    // MARK: cancellation

    @Test("cancel() mid-run: in-flight inputs stop through their tokens, the job ends promptly, interrupted, no partial files")
    func cancelStopsInputsInFlight() async throws {
        let work = try ScratchFolder()
        let streams = try (0..<2).map { try SlowStream(at: work.path("stream\($0).wav")) }  // endless, one chunk every 20 ms
        try work.copy("tone_2s_stereo.flac", to: "later/a.flac")
        try work.copy("tone_44k_stereo.aiff", to: "later/b.aiff")
        let recorder = CountingProducer(wrapping: ThreadPoolReportProducer(analyzer: FileAnalyzer(types: [.loudness]), threads: 2))
        let job = try BatchJob(
            paths: streams.map(\.path) + [work.path("later")], types: [.loudness], jobs: 2,
            sink: .directory(work.path("out")), producer: recorder, cancellationGrace: .seconds(3600))
        let events = Events()
        let running = Task { await job.run { events.add($0) } }
        await recorder.waitForCalls(2)
        for stream in streams { await stream.waitForChunks(5) }  // both streams are being decoded
        job.cancel()
        let summary = await running.value
        streams.forEach { $0.stop() }

        // No clock: with an hour's grace the job can only have ended because both inputs returned
        // through their cancellation tokens (their reports are in before run() returns).
        #expect(recorder.results.count == 2, "both in-flight inputs returned through their tokens")
        #expect(summary.interrupted && summary.exitStatus == 130)
        #expect(summary == BatchSummary(inputs: 4, done: 0, failed: 0, interrupted: true))
        #expect(events.all.isEmpty, "nothing is delivered after cancellation")
        #expect(recorder.calls == 2, "no further input started")
        #expect(recorder.results.allSatisfy { $0.error?.code == "cancelled" }, "\(recorder.results.map(\.error))")
        let left = try work.files(under: "out")
        #expect(left.isEmpty, "no report, no temporary file: \(left)")
    }

    @Test("cancel() with an input that ignores its token (stalled in a blocking read): the job still ends after the grace period")
    func cancelEndsDespiteStalledInput() async throws {
        let work = try ScratchFolder()
        try work.copy("tone_2s_stereo.flac", to: "a.flac")
        let producer = StallingProducer()  // returns only when released, whatever the token says
        let job = try BatchJob(
            paths: [work.path("a.flac")], types: [.loudness], jobs: 1, sink: .directory(work.path("out")),
            producer: producer, cancellationGrace: .milliseconds(300))
        let running = Task { await job.run() }
        await producer.started.wait(atLeast: 1)
        job.cancel()
        let summary = await running.value
        // No clock: the input is released only after run() has returned, so only the grace
        // period can have ended the job (without it this await would never return).
        #expect(producer.released.count == 0)
        producer.released.increment()
        #expect(summary == BatchSummary(inputs: 1, done: 0, failed: 0, interrupted: true))
        #expect(try work.files(under: "out").isEmpty)
    }

    @Test("Cancelling the task that awaits run() cancels the job")
    func taskCancellationCancelsTheJob() async throws {
        let work = try ScratchFolder()
        let fifo = try Fifo(at: work.path("stalled.wav"))
        defer { fifo.release() }
        let recorder = CountingProducer(wrapping: ThreadPoolReportProducer(analyzer: FileAnalyzer(types: [.loudness]), threads: 1))
        let job = try BatchJob(paths: [fifo.path], types: [.loudness], jobs: 1, producer: recorder, cancellationGrace: .milliseconds(100))
        let running = Task { await job.run() }
        await recorder.waitForCalls(1)
        running.cancel()
        let summary = await running.value
        #expect(summary.interrupted && job.isCancelled)
    }

    // MARK: the worker pool

    @Test("ThreadPoolReportProducer with 2 threads: 6 inputs all analysed, never more than 2 threads")
    func poolOfTwoRunsSixInputs() async throws {
        let producer = ThreadPoolReportProducer(analyzer: FileAnalyzer(types: [.loudness]), threads: 2)
        let names = ["tone_2s_stereo.flac", "tone_44k_stereo.aiff", "tone_alac.m4a", "random_bytes.flac", "tone_2s_stereo.ogg", "notes.mp3"]
        let reports = await withTaskGroup(of: Report.self) { group in
            for name in names {
                group.addTask { await producer.report(path: CLI.fixtures.appendingPathComponent(name).path, cancellation: CancellationToken()) }
            }
            return await group.reduce(into: [Report]()) { $0.append($1) }
        }
        #expect(reports.count == 6)
        #expect(Set(reports.map { ($0.source.path as NSString).lastPathComponent }) == Set(names))
        #expect(reports.filter { $0.error != nil }.count == 2)
        #expect(producer.startedThreads == 2)
    }

    @Test("8 inputs blocked on 8 pool threads do not starve Swift's cooperative pool: 8 tasks sleeping 10 ms finish promptly")
    func blockedWorkersDoNotStarveTasks() async throws {
        let work = try ScratchFolder()
        let fifos = try (0..<8).map { try Fifo(at: work.path("stall\($0).wav")) }
        defer { fifos.forEach { $0.release() } }
        let producer = ThreadPoolReportProducer(analyzer: FileAnalyzer(types: [.loudness]), threads: 8)
        let stalled = Task {
            await withTaskGroup(of: Report.self) { group in
                for fifo in fifos { group.addTask { await producer.report(path: fifo.path, cancellation: CancellationToken()) } }
                return await group.reduce(into: [Report]()) { $0.append($1) }
            }
        }
        await EventCounter.poll { producer.startedThreads >= 8 }  // no deadline: the pool starts all 8
        #expect(producer.startedThreads == 8)

        // Eight tasks on Swift's cooperative pool must finish while all eight inputs are still
        // blocked (the FIFOs are released only below). Were the inputs on the cooperative pool
        // (2 threads on a 2-core machine), these tasks could never run and the test would hang.
        // No clock: completing at all is the assertion.
        let finished = await withTaskGroup(of: Int.self) { group in
            for i in 0..<8 {
                group.addTask {
                    await Task.yield(); return i
                }
            }
            return await group.reduce(into: Set<Int>()) { $0.insert($1) }
        }
        #expect(finished == Set(0..<8))
        #expect(producer.startedThreads == 8)

        fifos.forEach { $0.release() }  // EOF: each stalled input ends with an error record
        let reports = await stalled.value
        #expect(reports.count == 8 && reports.allSatisfy { $0.error != nil })
    }
}

// MARK: - Helpers

/// The finished-input events a job delivered (the plan is kept apart).
private final class Events: Sendable {
    private let list = Locked<[BatchEvent]>([])
    private let plans = Locked<[BatchPlan]>([])
    func add(_ e: BatchEvent) {
        if case .planned(let plan) = e { plans.withLock { $0.append(plan) } } else { list.withLock { $0.append(e) } }
    }
    var plan: BatchPlan? { plans.withLock { $0.first } }
    var all: [BatchEvent] { list.withLock { $0 } }
}

extension BatchEvent {
    var path: String {
        switch self {
        case .planned: ""
        case .inputFinished(let path, _, _): path
        }
    }
}

/// Counts the inputs handed to it and keeps the reports, passing them to `wrapped` (or giving error records).
private final class CountingProducer: ReportProducer {
    private let wrapped: (any ReportProducer)?
    private let state = Locked<(calls: Int, results: [Report])>((0, []))
    private let started = EventCounter()

    init(wrapping wrapped: (any ReportProducer)? = nil) { self.wrapped = wrapped }

    var calls: Int { state.withLock { $0.calls } }
    var results: [Report] { state.withLock { $0.results } }

    func report(path: String, cancellation: CancellationToken) async -> Report {
        state.withLock { $0.calls += 1 }
        started.increment()
        let report = await wrapped?.report(path: path, cancellation: cancellation) ?? Report(path: path, error: AnalysisError.cancelled)
        state.withLock { $0.results.append(report) }
        return report
    }

    /// Returns once `n` inputs have been handed to it. No deadline: under the whole suite on 2
    /// cores the pool may be busy for minutes, and a job that never starts its inputs hangs the
    /// test rather than failing a timer.
    func waitForCalls(_ n: Int) async {
        await started.wait(atLeast: n)
    }
}

/// An input that stalls and ignores its cancellation token (as a read blocked in the kernel
/// does) until the test releases it.
private final class StallingProducer: ReportProducer {
    let started = EventCounter()
    let released = EventCounter()

    func report(path: String, cancellation: CancellationToken) async -> Report {
        started.increment()
        await released.wait(atLeast: 1)
        return Report(path: path, error: AnalysisError.cancelled)
    }
}

/// A named pipe with a writer that never writes: a reader blocks in its first read until
/// ``release()`` closes the writing end (end of file). (The decoder opens named pipes without
/// waiting for a writer, issue 13, so the stall is in the read, not in the open.)
private final class Fifo: Sendable {
    let path: String
    private let writer: Locked<Int32>

    init(at path: String) throws {
        self.path = path
        guard mkfifo(path, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let fd = open(path, O_RDWR)  // holds the pipe open as a writer without blocking
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        writer = Locked(fd)
    }

    /// Closes the writing end: blocked readers get end of file. Idempotent.
    func release() {
        writer.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }
}

/// An endless 48 kHz stereo 16-bit WAV fed into a named pipe, one 20 ms chunk every 20 ms, until stopped.
private final class SlowStream: Sendable {
    let path: String
    private let stopped = Atomic<Bool>(false)
    private let written = EventCounter()

    /// Returns once the feeding thread has written `n` chunks, i.e. the input is being decoded.
    func waitForChunks(_ n: Int) async { await written.wait(atLeast: n) }

    init(at path: String) throws {
        self.path = path
        guard mkfifo(path, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        Thread.detachNewThread { [self] in feed() }
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    private func feed() {
        let fd = open(path, O_WRONLY)  // blocks until the analysis opens it
        guard fd >= 0 else { return }
        defer { close(fd) }
        var header = Data("RIFF".utf8)
        func le32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { header.append(contentsOf: $0) } }
        func le16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { header.append(contentsOf: $0) } }
        le32(0xFFFF_FFFF)
        header.append(contentsOf: Data("WAVEfmt ".utf8))
        le32(16); le16(1); le16(2); le32(48_000); le32(48_000 * 4); le16(4); le16(16)
        header.append(contentsOf: Data("data".utf8))
        le32(0xFFFF_FFFF)
        var chunk = Data(count: 960 * 4)
        for i in 0..<960 {
            let v = Int16(8000 * sin(2 * Double.pi * 440 * Double(i) / 48_000))
            withUnsafeBytes(of: v.littleEndian) { b in
                chunk.replaceSubrange(i * 4..<i * 4 + 2, with: b)
                chunk.replaceSubrange(i * 4 + 2..<i * 4 + 4, with: b)
            }
        }
        signal(SIGPIPE, SIG_IGN)
        guard write(fd, Array(header)) else { return }
        while !stopped.load(ordering: .relaxed) {
            guard write(fd, Array(chunk)) else { return }  // the reader is gone
            written.increment()
            usleep(20_000)
        }
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) == $0.count }
    }
}
