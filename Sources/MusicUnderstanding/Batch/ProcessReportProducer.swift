import Foundation
import Synchronization

/// Limits for one input analysed in a worker process.
public struct WorkerLimits: Sendable, Hashable {
    /// A fixed limit in seconds for each input; nil for the default scaled by duration.
    public var timeout: Double?
    /// Scaled default: seconds every input gets (opening, decoding a stalled stream, analysing).
    public var baseTimeout: Double = 60
    /// Scaled default: seconds added per second of audio decoded so far (0.5: the analysis must
    /// run at least at twice real time; all six analyses run at about 85× on one core).
    public var timeoutPerAudioSecond: Double = 0.5
    /// Resident memory a worker may use, bytes; above it the worker is stopped (`outOfMemory`).
    /// Its address space is limited to twice this plus 1 GiB (`RLIMIT_AS`), so that one huge
    /// allocation fails inside the worker at once.
    public var memoryBytes: UInt64 = 4 << 30

    /// The defaults: 60 s + 0.5 s per second of audio, 4 GiB.
    public init(timeout: Double? = nil, memoryBytes: UInt64 = 4 << 30) {
        self.timeout = timeout
        self.memoryBytes = memoryBytes
    }

    /// The time limit once `decoded` seconds of audio have been decoded.
    public func timeLimit(decoded: Double) -> Double {
        timeout ?? baseTimeout + timeoutPerAudioSecond * max(0, decoded)
    }

    /// The worker's `RLIMIT_AS`.
    public var addressSpaceBytes: UInt64 { memoryBytes.multipliedReportingOverflow(by: 2).partialValue + (1 << 30) }
}

/// Why an input analysed in a worker process has no report. Error records carry ``code``.
public enum WorkerFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The worker died while analysing the input (a crash in a decoder or an analysis).
    case crashed(path: String, detail: String)
    /// The input took longer than its time limit; the worker was stopped.
    case timedOut(path: String, seconds: Double)
    /// The worker used more memory than allowed and was stopped (or could not allocate).
    case outOfMemory(path: String, limitBytes: UInt64)
    /// No worker could be started.
    case workerUnavailable(path: String, reason: String)

    /// The error record's code.
    public var code: String {
        switch self {
        case .crashed: "crashed"
        case .timedOut: "timedOut"
        case .outOfMemory: "outOfMemory"
        case .workerUnavailable: "workerUnavailable"
        }
    }

    public var description: String {
        switch self {
        case .crashed(let p, let d): "\(p): the analysis crashed (\(d)); the batch went on"
        case .timedOut(let p, let s): "\(p): the analysis took longer than its limit of \(Int(s.rounded())) s and was stopped"
        case .outOfMemory(let p, let b): "\(p): the analysis needed more than \(b >> 20) MB of memory and was stopped"
        case .workerUnavailable(let p, let r): "\(p): no worker process could be started (\(r))"
        }
    }
}

extension Report {
    /// The error record of an input whose worker failed.
    public init(path: String, failure: WorkerFailure) {
        self.init(path: path, error: failure)
        error = ErrorInfo(code: failure.code, message: failure.description)
    }
}

/// Analyses each input in a separate, long-lived worker process (`cadenza worker`, see
/// ``ReportWorker``), so that an input that crashes, hangs or exhausts memory in a decoder costs
/// only its own error record (`crashed`, `timedOut`, `outOfMemory`) and the batch goes on.
///
/// ```swift
/// let producer = ProcessReportProducer(executable: "/usr/local/bin/cadenza", types: [.loudness], workers: 4)
/// let job = try BatchJob(paths: ["Music"], types: [.loudness], producer: producer)
/// ```
///
/// - One worker per job slot, started when first needed and reused for every following input
///   (a crashed or stopped worker is replaced by a new one for the next input), so throughput is
///   that of threads: only a few milliseconds per input go to the frames and to decoding the
///   report's JSON.
/// - Each input has a time limit (``WorkerLimits/timeLimit(decoded:)``: by default 60 s plus half
///   the audio's duration, extended as the worker reports what it decoded) and a memory limit
///   (resident memory polled every 50 ms; `RLIMIT_AS` inside the worker).
/// - Cancellation (the ``CancellationToken``) stops the worker at once (SIGKILL).
/// - Reports are the worker's ``FileAnalyzer`` reports, byte for byte.
/// - Standard input (`-`) cannot be handed to a worker; it is analysed in this process.
/// - Workers run the default ``AnalysisConfiguration``.
public final class ProcessReportProducer: ReportProducer {
    /// The worker executable and its arguments (e.g. `cadenza` and `["worker"]`).
    public let executable: String
    /// Arguments before the worker's own (`--for`, `--address-space`).
    public let arguments: [String]
    /// The analyses.
    public let types: Set<AnalysisType>
    /// Their settings (sent to each worker as JSON when they differ from the defaults).
    public let configuration: AnalysisConfiguration
    /// The limits per input.
    public let limits: WorkerLimits
    /// Extra environment for the workers (tests set ``ReportWorker/faultHookVariable``).
    public let environment: [String: String]
    private let pool: WorkerThreads
    private let idle = Locked<[WorkerProcess]>([])
    private let started = Atomic<Int>(0)

    /// A producer running at most `workers` worker processes at once.
    public init(
        executable: String, arguments: [String] = ["worker"], types: Set<AnalysisType>,
        configuration: AnalysisConfiguration = .init(),
        workers: Int, limits: WorkerLimits = WorkerLimits(), environment: [String: String] = [:]
    ) {
        self.executable = executable
        self.arguments = arguments
        self.types = types
        self.configuration = configuration
        self.limits = limits
        self.environment = environment
        pool = WorkerThreads(count: workers, name: "cadenza-worker-io")
    }

    deinit {
        stopWorkers()
    }

    /// Stops the idle worker processes and reaps them (a worker busy with an input is not
    /// touched). Call it when the batch is done: a worker left to exit on its own after this
    /// process exits is reaped by the system instead, and its CPU time is then missing from
    /// this process's children (`time`, `getrusage(RUSAGE_CHILDREN)`). Workers are started
    /// again for later inputs.
    public func stopWorkers() {
        let workers = idle.withLock { idle in
            let all = idle
            idle.removeAll()
            return all
        }
        for worker in workers { worker.stop() }
    }

    /// The process identifiers of the idle workers (for tests).
    var idleWorkerIdentifiers: [Int32] { idle.withLock { $0.map(\.processIdentifier) } }

    /// Worker processes started so far (one per job slot, plus replacements for failed ones).
    public var startedWorkers: Int { started.load(ordering: .relaxed) }

    public func report(path: String, cancellation: CancellationToken) async -> Report {
        if path == "-" {
            let analyzer = FileAnalyzer(types: types, configuration: configuration), limits = self.limits
            return await pool.run {
                Self.watched(path: path, limits: limits, analyzer: analyzer.analyzerInfo, cancellation: cancellation) { token, onProgress in
                    analyzer.report(path: path, cancellation: token, onProgress: onProgress)
                }
            }
        }
        return await pool.run { self.exchange(path: path, cancellation: cancellation) }
    }

    /// One input on one worker, blocking (on a pool thread).
    private func exchange(path: String, cancellation: CancellationToken) -> Report {
        var attempt = 0
        while true {
            attempt += 1
            let worker: WorkerProcess
            if let reused = idle.withLock({ $0.popLast() }) {
                worker = reused
            } else {
                do {
                    worker = try WorkerProcess(executable: executable, arguments: arguments + workerArguments, environment: environment)
                    started.add(1, ordering: .relaxed)
                    try worker.waitUntilReady(timeout: 60, cancellation: cancellation)
                } catch {
                    return Report(path: path, failure: .workerUnavailable(path: path, reason: "\(error)"))
                }
            }
            switch worker.analyze(path: path, limits: limits, cancellation: cancellation) {
            case .report(let report):
                idle.withLock { $0.append(worker) }
                return report
            case .idleWorkerGone where attempt == 1:
                continue  // it died between inputs: a fresh one takes this input
            case .idleWorkerGone:
                return Report(path: path, failure: .workerUnavailable(path: path, reason: "the worker exited at once"))
            case .failed(let failure):
                return Report(path: path, failure: failure)
            case .cancelled:
                return Report(path: path, error: AnalysisError.cancelled)
            }
        }
    }

    /// Standard input is analysed in this process (a worker cannot be handed the batch's stdin),
    /// under the same limits a worker gets: a watchdog thread stops the analysis when it runs past
    /// ``WorkerLimits/timeLimit(decoded:)`` (`timedOut`), or when this process's resident memory
    /// has grown by more than ``WorkerLimits/memoryBytes`` since the input was opened
    /// (`outOfMemory`). A stalled writer cannot hold it: the decoder's reads give up on
    /// cancellation (``AudioDecoder/init(path:rawFormat:interrupt:)``).
    ///
    /// `analyze` gets the token to honour and a callback for the seconds of audio decoded so far.
    static func watched(
        path: String, limits: WorkerLimits, analyzer: AnalyzerInfo, cancellation: CancellationToken,
        _ analyze: (CancellationToken, @escaping (Double) -> Void) -> Report
    ) -> Report {
        let token = CancellationToken()
        struct Watch {
            var decoded = 0.0
            var failure: WorkerFailure?
            var finished = false
        }
        let watch = Locked(Watch())
        let start = ContinuousClock.now
        let baseline = ownResidentBytes() ?? 0
        let finished = DispatchSemaphore(value: 0)
        DedicatedThread.start(name: "cadenza-stdin-watch") {
            while finished.wait(timeout: .now() + .milliseconds(50)) == .timedOut {
                if cancellation.isCancelled { token.cancel() }
                let elapsed = start.duration(to: .now)
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
                let limit = limits.timeLimit(decoded: watch.withLock { $0.decoded })
                var failure: WorkerFailure?
                if seconds > limit {
                    failure = .timedOut(path: path, seconds: limit)
                } else if let resident = ownResidentBytes(), resident > baseline, resident - baseline > limits.memoryBytes {
                    failure = .outOfMemory(path: path, limitBytes: limits.memoryBytes)
                }
                if let failure {
                    watch.withLock { if $0.failure == nil { $0.failure = failure } }
                    token.cancel()
                }
            }
        }
        var report = analyze(token) { seconds in watch.withLock { $0.decoded = seconds } }
        finished.signal()
        if let failure = watch.withLock({ $0.failure }) {
            report = Report(path: path, failure: failure)
            report.analyzer = analyzer
        }
        return report
    }

    /// This process's resident memory from /proc/self/statm (nil where there is no /proc).
    static func ownResidentBytes() -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = UInt64(fields[1]) else { return nil }
        return pages * UInt64(sysconf(Int32(_SC_PAGESIZE)))
    }

    private var workerArguments: [String] {
        var arguments = ["--for", types.map(\.rawValue).sorted().joined(separator: ","), "--address-space", String(limits.addressSpaceBytes)]
        if configuration != AnalysisConfiguration(), let json = configuration.json {
            arguments += ["--configuration", json]
        }
        return arguments
    }

}

/// One worker process and its pipes; used by one thread at a time.
final class WorkerProcess: @unchecked Sendable {
    /// What one exchange gave.
    enum Outcome {
        case report(Report)
        case failed(WorkerFailure)
        case cancelled
        /// The request could not even be sent: the (idle) worker had already exited.
        case idleWorkerGone
    }

    private let process = Process()
    private let toWorker = Pipe()
    private let fromWorker = Pipe()
    private let errors = Pipe()
    /// The last few kilobytes the worker wrote on standard error (its crash message).
    private final class Tail: Sendable { let bytes = Locked<[UInt8]>([]) }
    private let errorTail = Tail()
    private let errorsDone = DispatchSemaphore(value: 0)
    private var buffer: [UInt8] = []

    init(executable: String, arguments: [String], environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["SWIFT_BACKTRACE"] = "enable=no"  // a crash costs its message, not a 0.5 s backtrace
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardInput = toWorker
        process.standardOutput = fromWorker
        process.standardError = errors
        try process.run()
        let handle = errors.fileHandleForReading
        let tail = errorTail, done = errorsDone
        Thread.detachNewThread {
            while case let data = handle.availableData, !data.isEmpty {
                tail.bytes.withLock { t in
                    t.append(contentsOf: data)
                    if t.count > 8192 { t.removeFirst(t.count - 8192) }
                }
            }
            done.signal()
        }
    }

    /// Why a new worker is not usable.
    struct StartError: Error, CustomStringConvertible {
        var description: String
    }

    /// Waits for the worker's ready frame (so that its start-up does not count against an input).
    func waitUntilReady(timeout: Double, cancellation: CancellationToken) throws(StartError) {
        let start = Date()
        let fd = fromWorker.fileHandleForReading.fileDescriptor
        while Date().timeIntervalSince(start) < timeout, !cancellation.isCancelled {
            switch PipeIO.read(fd, into: &buffer, timeoutMilliseconds: 50) {
            case .timeout: continue
            case .endOfFile:
                stop()
                throw StartError(description: "the worker exited while starting")
            case .data:
                guard let frames = try? WorkerFrame.parse(&buffer) else {
                    stop()
                    throw StartError(description: "the worker broke its protocol while starting")
                }
                if frames.contains(.progress(seconds: 0)) { return }
            }
        }
        stop()
        throw StartError(description: cancellation.isCancelled ? "cancelled" : "the worker did not start within \(Int(timeout)) s")
    }

    /// The worker's process identifier.
    var processIdentifier: Int32 { process.processIdentifier }

    /// Kills the worker (if it runs) and reaps it.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? toWorker.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// Sends `path` and waits for its report, enforcing the limits.
    func analyze(path: String, limits: WorkerLimits, cancellation: CancellationToken) -> Outcome {
        guard process.isRunning, PipeIO.write(toWorker.fileHandleForWriting.fileDescriptor, WorkerFrame.analyze(path: path).encoded) else {
            stop()
            return .idleWorkerGone
        }
        let fd = fromWorker.fileHandleForReading.fileDescriptor
        let start = Date()
        var decoded = 0.0
        var lastMemoryCheck = Date.distantPast
        var lastResident: UInt64?
        while true {
            if cancellation.isCancelled {
                stop()
                return .cancelled
            }
            let limit = limits.timeLimit(decoded: decoded)
            if Date().timeIntervalSince(start) > limit {
                stop()
                return .failed(.timedOut(path: path, seconds: limit))
            }
            if Date().timeIntervalSince(lastMemoryCheck) >= 0.05 {
                lastMemoryCheck = Date()
                if let resident = residentBytes() {
                    lastResident = resident
                    if resident > limits.memoryBytes {
                        stop()
                        return .failed(.outOfMemory(path: path, limitBytes: limits.memoryBytes))
                    }
                }
            }
            switch PipeIO.read(fd, into: &buffer, timeoutMilliseconds: 50) {
            case .timeout: continue
            case .endOfFile: return .failed(diagnoseExit(path: path, limits: limits, lastResident: lastResident))
            case .data:
                // Room for the whole frame at once, so that a large report is not copied while it
                // arrives (the length is checked by the parse below).
                if buffer.count >= 4 {
                    let n = Int(buffer[0]) | Int(buffer[1]) << 8 | Int(buffer[2]) << 16 | Int(buffer[3]) << 24
                    if n > buffer.capacity && n <= WorkerFrame.maximumLength { buffer.reserveCapacity(4 + n) }
                }
            }
            let frames: [WorkerFrame]
            do { frames = try WorkerFrame.parse(&buffer) } catch {
                stop()
                return .failed(.crashed(path: path, detail: "the worker broke its protocol: \(error)"))
            }
            for frame in frames {
                switch frame {
                case .progress(let seconds): if seconds.isFinite { decoded = seconds }
                case .report(let json):
                    guard let report = try? JSONLineDecoder().decode(Report.self, from: json) else {
                        stop()
                        return .failed(.crashed(path: path, detail: "the worker sent an unreadable report"))
                    }
                    return .report(report)
                case .analyze: break
                }
            }
        }
    }

    /// Why the worker's output ended: waits for it and reads its status and last words.
    ///
    /// `outOfMemory` only when the worker's own allocation failed (its `RLIMIT_AS`); the batch's
    /// resident-memory limit is reported where it fires. A worker killed by a signal from outside
    /// (SIGKILL from a user or the system's out-of-memory killer) has `crashed`, with the signal
    /// and its last measured resident memory.
    private func diagnoseExit(path: String, limits: WorkerLimits, lastResident: UInt64?) -> WorkerFailure {
        try? toWorker.fileHandleForWriting.close()
        process.waitUntilExit()
        _ = errorsDone.wait(timeout: .now() + 1)
        let text = String(decoding: errorTail.bytes.withLock { $0 }, as: UTF8.self)
        let lastLine = text.split(separator: "\n").last { $0.contains("Fatal error") || $0.contains("error") }
            .map { String($0.prefix(200)) }
        let allocationFailed = ["failed to allocate", "Cannot allocate memory", "out of memory", "bad_alloc"].contains { text.contains($0) }
        let signalled = process.terminationReason == .uncaughtSignal
        let status = process.terminationStatus
        if allocationFailed {
            return .outOfMemory(path: path, limitBytes: limits.memoryBytes)
        }
        var detail = signalled ? "killed by signal \(status)\(Self.signalName(status).map { ", \($0)" } ?? "")" : "exit status \(status)"
        if signalled, status == SIGKILL, let lastResident {
            detail += " from outside the batch, at \(lastResident >> 20) MB resident"
        }
        if let lastLine { detail += ": " + lastLine.trimmingCharacters(in: .whitespaces) }
        return .crashed(path: path, detail: detail)
    }

    /// The worker's resident memory from /proc (nil where there is no /proc).
    private func residentBytes() -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = UInt64(fields[1]) else { return nil }
        return pages * UInt64(sysconf(Int32(_SC_PAGESIZE)))
    }

    private static func signalName(_ signal: Int32) -> String? {
        switch signal {
        case SIGSEGV: "SIGSEGV"
        case SIGABRT: "SIGABRT"
        case SIGILL: "SIGILL"
        case SIGBUS: "SIGBUS"
        case SIGFPE: "SIGFPE"
        case SIGTRAP: "SIGTRAP"
        case SIGKILL: "SIGKILL"
        default: nil
        }
    }
}
