import Foundation
import Synchronization

/// A whole batch as `cadenza analyze` runs it: discovery of the inputs, analysis (several at a
/// time, on dedicated threads), output to a ``ReportSink``, counts, cancellation and the summary
/// from which the exit status follows. Swift programs get exactly the command's behaviour.
///
/// ```swift
/// let job = try BatchJob(paths: ["Music"], types: [.key, .loudness], sink: .directory("reports"))
/// let summary = await job.run { event in
///     if case .inputFinished(let path, let report, let writeError) = event, report.error != nil || writeError != nil {
///         print("failed: \(path)")
///     }
/// }
/// print("\(summary.done) of \(summary.inputs) done, \(summary.failed) failed")
/// ```
///
/// Policy:
/// - every input gives one report or error record; a bad input never stops the batch;
/// - an input counts as failed when it gives an error record or its report cannot be written;
/// - when the output itself becomes unusable (``ReportSink/WriteError/isFatal``: a closed pipe, a
///   full disk) the job stops as if cancelled, keeps what was written, and says so in
///   ``BatchSummary/outputFailure``;
/// - an output folder is created, and refused before any analysis (``BatchError``) when it cannot
///   take reports;
/// - ``cancel()`` (or cancelling the task that awaits ``run(onEvent:)``) starts no further input,
///   stops those in flight through their ``CancellationToken``, writes nothing more, and ``run(onEvent:)``
///   returns within the cancellation grace period (1 s) even when an input stalls in a blocking read.
///   Reports in a folder are written atomically, so no half-written file is ever left.
/// - with a folder sink the batch resumes: an input whose report is current (``ResumePolicy``: same
///   file size and modification time, same analyser) is not analysed again unless `force` is set;
///   temporary files of killed earlier runs are removed first. Killing a batch at any moment and
///   running it again gives the same reports, byte for byte, as one uninterrupted run.
/// - with a ``Shard`` only that share of the inputs is this job's.
public final class BatchJob: Sendable {
    /// This job's inputs, in the order discovered (see ``InputDiscovery``), after sharding.
    public let inputs: [String]
    /// Every input discovered, before sharding.
    public let discoveredInputs: Int
    /// The share of the catalog this job takes, if any.
    public let shard: Shard?
    /// Whether inputs with a current report in the output folder are analysed again.
    public let force: Bool
    /// What the reports say made them (the resume check compares it).
    public let analyzer: AnalyzerInfo
    /// Report file of each input in a folder sink (empty for NDJSON): ``ReportSink/outputPath(for:in:)``,
    /// except that inputs whose paths map to one file (`a/x.wav` and `../a/x.wav`, a file named
    /// `stdin` and `-`) get distinct names (see ``reportPath(for:)``).
    private let reportPaths: [String: String]
    /// Where reports go.
    public let sink: ReportSink
    /// What analyses the inputs.
    public let runner: BatchRunner
    /// The step every analysed report goes through before it is written (see ``init(paths:types:configuration:jobs:sink:producer:cancellationGrace:discovery:force:shard:beforeWriting:)``).
    public let beforeWriting: (@Sendable (Report) -> Report)?

    private struct State {
        var done = 0
        var failed = 0
        var skipped = 0
        var cancelled = false
        var work: Task<Void, Never>?
        /// The write failure that made the output unusable; the batch stopped there.
        var outputFailure: ReportSink.WriteError?
    }
    private let state = Locked(State())

    /// A job over `paths` (files, folders walked recursively, "-" for standard input).
    ///
    /// - Parameters:
    ///   - types: the analyses to run on every input.
    ///   - configuration: their settings.
    ///   - jobs: inputs analysed at once (default: the number of active cores).
    ///   - sink: NDJSON on a file descriptor (default: standard output) or one file per input in a folder.
    ///   - producer: who analyses one input (default: ``ThreadPoolReportProducer`` with `jobs` threads).
    ///   - cancellationGrace: after ``cancel()``, how long inputs in flight get to stop before they are abandoned.
    ///   - discovery: how `paths` expand into inputs (a folder sink is added to its excluded folders).
    ///   - force: analyse every input even when its report in the folder sink is current.
    ///   - allowedProtocols: when set, inputs that name a protocol or device (``AudioDecoder/inputScheme(_:)``)
    ///     outside this set get an error record (``AudioDecodingError/protocolNotAllowed(path:scheme:)``)
    ///     instead of being opened; `nil` opens whatever FFmpeg opens.
    ///   - shard: take only this share of the inputs (by their paths relative to the folders in `paths`).
    ///   - beforeWriting: runs on every analysed report before it is written (serially, in
    ///     completion order) and returns the report to write; for example tagging the input
    ///     (``TagWriter/tag(_:keyNotation:)``), which records the tagged file's stamp so that a
    ///     resumed run finds the report current.
    /// - Throws: ``BatchError/unusableOutputFolder(path:reason:)`` when `sink` is a folder that
    ///   cannot be created or written; nothing has been analysed then.
    public init(
        paths: [String], types: Set<AnalysisType> = AnalysisType.available,
        configuration: AnalysisConfiguration = .init(),
        jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
        sink: ReportSink = .ndjson(fileDescriptor: STDOUT_FILENO),
        producer: (any ReportProducer)? = nil,
        cancellationGrace: Duration = .seconds(1),
        discovery: InputDiscovery = InputDiscovery(),
        force: Bool = false,
        shard: Shard? = nil,
        allowedProtocols: Set<String>? = nil,
        beforeWriting: (@Sendable (Report) -> Report)? = nil
    ) throws(BatchError) {
        self.beforeWriting = beforeWriting
        var discovery = discovery
        if let dir = sink.folder {
            try Self.prepareOutputFolder(dir)
            discovery.excludedFolders.append(dir)
        }
        self.sink = sink
        let discovered = discovery.inputs(from: paths)
        discoveredInputs = discovered.count
        if let shard {
            let roots = paths.filter { $0 != "-" && (try? FilePath.status($0).get())?.isDirectory == true }
            inputs = discovered.filter { shard.contains(relativePath: Shard.relativePath(of: $0, roots: roots)) }
        } else {
            inputs = discovered
        }
        self.shard = shard
        self.force = force
        analyzer = AnalyzerInfo(types: types, configuration: configuration)
        if let dir = sink.folder { reportPaths = Self.reportPaths(for: inputs, in: dir) } else { reportPaths = [:] }
        var producer = producer
        if let allowedProtocols {
            let base = producer ?? ThreadPoolReportProducer(analyzer: FileAnalyzer(types: types, configuration: configuration), threads: jobs)
            producer = LocalInputProducer(base: base, allowed: allowedProtocols, analyzer: AnalyzerInfo(types: types, configuration: configuration))
        }
        var runner = BatchRunner(types: types, configuration: configuration, jobs: jobs, producer: producer)
        runner.cancellationGrace = cancellationGrace
        self.runner = runner
    }

    /// The report file of `input` in a folder sink (nil for NDJSON or an input not in this job).
    ///
    /// ``ReportSink/outputPath(for:in:)`` of the input, unless another input of the job maps to the
    /// same file: inputs spelt as they lie inside the folder (relative, no `..`) keep that name; any
    /// other one then gets `~` and a hash of its path as given before `.json`
    /// (`DIR/a/x.wav~1f3a9c0e.json` for `../a/x.wav`, `DIR/stdin~….json` for `-` beside a file `stdin`).
    public func reportPath(for input: String) -> String? { reportPaths[input] }

    /// The report file of each of `inputs` in `dir` as a job names them (``reportPath(for:)``).
    public static func reportPaths(for inputs: [String], in dir: String) -> [String: String] {
        func isExact(_ input: String) -> Bool {
            input != "-" && !input.hasPrefix("/") && !input.split(separator: "/").contains("..")
        }
        var paths: [String: String] = [:]
        var taken = Set<String>()
        for input in inputs where isExact(input) {
            let path = ReportSink.outputPath(for: input, in: dir)
            paths[input] = path
            taken.insert(path)
        }
        for input in inputs where !isExact(input) {
            var path = ReportSink.outputPath(for: input, in: dir)
            var salt = 0
            while taken.contains(path) {
                let hash = FNV1a64.hash(salt == 0 ? input : input + "\u{0}\(salt)") & 0xFFFF_FFFF
                let hex = String(hash, radix: 16)
                path =
                    String(ReportSink.outputPath(for: input, in: dir).dropLast(".json".count))
                    + "~" + String(repeating: "0", count: 8 - hex.count) + hex + ".json"
                salt += 1
            }
            paths[input] = path
            taken.insert(path)
        }
        return paths
    }

    /// Creates `dir` when missing and checks that reports can be written into it.
    /// - Throws: ``BatchError/unusableOutputFolder(path:reason:)`` with the system's reason.
    public static func prepareOutputFolder(_ dir: String) throws(BatchError) {
        if let error = FilePath.createDirectories(dir) {
            throw .unusableOutputFolder(path: dir, reason: error.code == ENOTDIR ? "not a directory" : error.description)
        }
        if access(FilePath.cString(dir), W_OK | X_OK) != 0 {
            throw .unusableOutputFolder(path: dir, reason: String(cString: strerror(errno)))
        }
    }

    /// Analyses every input and writes its report; `onEvent` first sees the plan
    /// (``BatchEvent/planned(_:)``: what is analysed, what is current already), then each finished
    /// input, serially, in completion order (after its report was written, or failed to be).
    ///
    /// Run a job once: a second call does no further work and returns the counts so far.
    public func run(onEvent: @escaping @Sendable (BatchEvent) -> Void = { _ in }) async -> BatchSummary {
        let runner = self.runner
        let work = state.withLock { s -> Task<Void, Never>? in
            guard s.work == nil else { return nil }
            let task = Task {
                let plan = await self.plan()
                if Task.isCancelled { return }
                self.state.withLock { s in
                    s.done += plan.current.count
                    s.skipped += plan.current.count
                    s.failed += plan.currentFailed.count
                }
                onEvent(.planned(plan))
                await runner.run(inputs: plan.pending) { report in self.deliver(report, onEvent) }
            }
            s.work = task
            if s.cancelled { task.cancel() }
            return task
        }
        if let work {
            await withTaskCancellationHandler {
                await work.value
            } onCancel: {
                self.cancel()
            }
        }
        return summary
    }

    /// Which inputs need analysing: all of them for NDJSON or with `force`; otherwise those
    /// without a current report (``ResumePolicy``). Removes stale temporary files from the folder
    /// first. The file reads run on a thread of their own, not on Swift's cooperative pool.
    public func plan() async -> BatchPlan {
        guard let dir = sink.folder else { return BatchPlan(pending: inputs) }
        let inputs = self.inputs, force = self.force, sink = self.sink, analyzer = self.analyzer, reportPaths = self.reportPaths
        return await withCheckedContinuation { continuation in
            DedicatedThread.start(name: "cadenza-resume") {
                var plan = BatchPlan(pending: [])
                plan.removedTemporaryFiles = ReportSink.removeStaleTemporaryFiles(in: dir)
                for input in inputs {
                    if !force, self.isCancelled == false, let reportPath = reportPaths[input],
                        let head = ReportHead.read(path: sink.resumePath(forReportPath: reportPath)),
                        ResumePolicy.isCurrent(head, input: input, stamp: FileStamp.of(path: input), analyzer: analyzer)
                    {
                        plan.current.append(input)
                        if head.error != nil { plan.currentFailed.append(input) }
                    } else {
                        plan.pending.append(input)
                    }
                }
                continuation.resume(returning: plan)
            }
        }
    }

    /// Stops the job: no further input starts, inputs in flight are asked to stop, nothing more is
    /// written, and ``run(onEvent:)`` returns promptly with ``BatchSummary/interrupted`` set.
    /// Idempotent; callable from any thread (e.g. a signal handler's queue), also before ``run(onEvent:)``.
    public func cancel() {
        let work = state.withLock { s in
            s.cancelled = true
            return s.work
        }
        work?.cancel()
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// The counts so far (final once ``run(onEvent:)`` returned).
    public var summary: BatchSummary {
        state.withLock { s in
            BatchSummary(
                inputs: inputs.count, done: s.done, failed: s.failed, interrupted: s.cancelled,
                outputFailure: s.outputFailure, skipped: s.skipped)
        }
    }

    private func deliver(_ analysed: Report, _ onEvent: @Sendable (BatchEvent) -> Void) {
        // Interrupted, or the output is gone: nothing more is written or counted.
        if state.withLock({ $0.cancelled || $0.outputFailure != nil }) { return }
        let report = beforeWriting?(analysed) ?? analysed
        // Cancelled while the report was being finished (e.g. tagged): it is not written.
        if beforeWriting != nil, state.withLock({ $0.cancelled }) { return }
        var writeError: ReportSink.WriteError?
        do { try sink.write(report, reportPath: reportPaths[report.source.path]) } catch { writeError = error }
        let stop = state.withLock { s -> Task<Void, Never>? in
            s.done += 1
            if report.error != nil || writeError != nil { s.failed += 1 }
            guard let writeError, writeError.isFatal else { return nil }
            s.outputFailure = writeError
            return s.work
        }
        onEvent(.inputFinished(path: report.source.path, report: report, writeError: writeError))
        stop?.cancel()  // a closed pipe or a full disk: stop now rather than analyse for nothing
    }
}

/// What happened in a running ``BatchJob``.
public enum BatchEvent: Sendable {
    /// Sent once, before any input is analysed: what will be analysed and what is current already.
    case planned(BatchPlan)
    /// An input is finished: its report (or error record) and, when it could not be written, why.
    case inputFinished(path: String, report: Report, writeError: ReportSink.WriteError?)

    /// Whether the event is a finished input that counts as failed (error record or write failure).
    public var isFailure: Bool {
        switch self {
        case .planned: false
        case .inputFinished(_, let report, let writeError): report.error != nil || writeError != nil
        }
    }
}

/// What a ``BatchJob`` does about its inputs (see ``BatchJob/plan()``).
public struct BatchPlan: Sendable, Hashable {
    /// Inputs to analyse, in input order.
    public var pending: [String]
    /// Inputs whose report in the output folder is current: kept, not analysed.
    public var current: [String] = []
    /// Those of ``current`` whose kept report is an error record (they count as failed).
    public var currentFailed: [String] = []
    /// Stale temporary files of earlier, killed runs that were removed from the output folder.
    public var removedTemporaryFiles: [String] = []

    /// Creates a plan.
    public init(pending: [String], current: [String] = [], currentFailed: [String] = [], removedTemporaryFiles: [String] = []) {
        self.pending = pending
        self.current = current
        self.currentFailed = currentFailed
        self.removedTemporaryFiles = removedTemporaryFiles
    }
}

/// The outcome of a ``BatchJob``.
public struct BatchSummary: Sendable, Hashable {
    /// Inputs discovered.
    public var inputs: Int
    /// Inputs finished: a report or an error record was produced (and written, or tried to be).
    public var done: Int
    /// Finished inputs that failed: an error record, or a report that could not be written.
    public var failed: Int
    /// The job was cancelled; inputs not finished by then have no report.
    public var interrupted: Bool
    /// The output became unusable (standard output closed or full, the output folder's disk
    /// full or read-only) and the job stopped after this failure; reports written before it are kept.
    public var outputFailure: ReportSink.WriteError?

    /// Of ``done``, inputs whose report was current already (resumed batch) and was kept.
    public var skipped: Int

    /// Creates a summary.
    public init(inputs: Int, done: Int, failed: Int, interrupted: Bool, outputFailure: ReportSink.WriteError? = nil, skipped: Int = 0) {
        self.inputs = inputs
        self.done = done
        self.failed = failed
        self.interrupted = interrupted
        self.outputFailure = outputFailure
        self.skipped = skipped
    }

    /// Finished inputs that succeeded.
    public var succeeded: Int { done - failed }

    /// The process exit status this outcome means: 130 interrupted, 3 the output failed (the job
    /// stopped), 1 some input failed, 0 all analysed.
    public var exitStatus: Int32 { interrupted ? 130 : outputFailure != nil ? 3 : failed > 0 ? 1 : 0 }
}

/// Why a ``BatchJob`` cannot start.
public enum BatchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The output folder cannot be created or written (e.g. a file is in the way, no permission).
    case unusableOutputFolder(path: String, reason: String)

    public var description: String {
        switch self {
        case .unusableOutputFolder(let path, let reason): "cannot write to \(path): \(reason)"
        }
    }
}
