import Dispatch
import Foundation
import Synchronization

/// Analyses many inputs, several at a time, and hands each finished report (or error record)
/// to a callback in completion order. One bad input never stops the batch.
///
/// The analysis itself runs in a ``ReportProducer`` (by default a ``ThreadPoolReportProducer``
/// with one dedicated thread per job). ``BatchJob`` adds discovery, output and the batch policy.
public struct BatchRunner: Sendable {
    /// The analyses to run on every input (used by the default producer).
    public var types: Set<AnalysisType>
    /// How many inputs are analysed at once (default: the number of active cores).
    public var jobs: Int
    /// Who analyses one input.
    public var producer: any ReportProducer
    /// How long inputs still in flight get, after cancellation, to notice it before they are
    /// abandoned (an input that stalls, e.g. a pipe with no data, cannot notice it at all).
    public var cancellationGrace: Duration = .seconds(1)

    /// Creates a runner. Without `producer`, inputs run through ``FileAnalyzer`` with `types` and
    /// `configuration` on a ``ThreadPoolReportProducer`` of `jobs` threads.
    public init(
        types: Set<AnalysisType>, configuration: AnalysisConfiguration = .init(),
        jobs: Int = ProcessInfo.processInfo.activeProcessorCount, producer: (any ReportProducer)? = nil
    ) {
        self.types = types
        self.jobs = max(1, jobs)
        self.producer =
            producer
            ?? ThreadPoolReportProducer(analyzer: FileAnalyzer(types: types, configuration: configuration), threads: max(1, jobs))
    }

    /// Analyses `inputs`; `onReport` is called once per input, serially, as each completes.
    ///
    /// When the calling task is cancelled, no further input starts, the inputs in flight are asked
    /// to stop (their ``CancellationToken``), their reports are not delivered, and the call returns
    /// at the latest ``cancellationGrace`` later, even if an input is stuck in a blocking read.
    public func run(inputs: [String], onReport: @escaping @Sendable (Report) async -> Void) async {
        let producer = self.producer
        let inFlight = InFlight()
        let grace = cancellationGrace
        await withTaskCancellationHandler {
            await withTaskGroup(of: Report?.self) { group in
                var next = 0
                func startNext() {
                    guard next < inputs.count, !Task.isCancelled else { return }
                    let path = inputs[next]
                    next += 1
                    group.addTask { await inFlight.report(path: path, producer: producer) }
                }
                for _ in 0..<min(jobs, inputs.count) { startNext() }
                while let report = await group.next() {
                    if Task.isCancelled { break }  // the rest end via their tokens or the grace period
                    if let report { await onReport(report) }
                    startNext()
                }
            }
        } onCancel: {
            inFlight.cancelAll(abandonAfter: grace)
        }
    }
}

/// The inputs being analysed, so that cancellation can reach them: first through their tokens,
/// then, after a grace period, by no longer waiting for them.
private final class InFlight: Sendable {
    /// One input's wait for its report; resumed exactly once (by the report or by abandonment).
    private final class Waiter: Sendable {
        let token = CancellationToken()
        private let continuation = Locked<CheckedContinuation<Report?, Never>?>(nil)

        func set(_ c: CheckedContinuation<Report?, Never>) { continuation.withLock { $0 = c } }

        func resume(_ report: Report?) {
            continuation.withLock { $0.take() }?.resume(returning: report)
        }
    }

    private struct State {
        var waiters: [Int: Waiter] = [:]
        var nextID = 0
        var cancelled = false
        var abandoned = false
    }
    private let state = Locked(State())

    /// The report of `path`, or nil when the input was abandoned after cancellation.
    func report(path: String, producer: any ReportProducer) async -> Report? {
        let waiter = Waiter()
        return await withCheckedContinuation { continuation in
            waiter.set(continuation)
            let (id, cancelled, abandoned) = state.withLock { s in
                s.nextID += 1
                s.waiters[s.nextID] = waiter
                return (s.nextID, s.cancelled, s.abandoned)
            }
            if cancelled { waiter.token.cancel() }
            if abandoned { waiter.resume(nil) }
            // Unstructured: an abandoned input must not hold its task group (and the batch) open.
            Task {
                let report = await producer.report(path: path, cancellation: waiter.token)
                _ = state.withLock { $0.waiters.removeValue(forKey: id) }
                waiter.resume(report)
            }
        }
    }

    /// Cancels every input in flight now and abandons those still running after `grace`.
    /// Synchronous and Dispatch-timed, so that it works from any thread.
    func cancelAll(abandonAfter grace: Duration) {
        let waiters = state.withLock { s in
            s.cancelled = true
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.token.cancel() }
        let seconds = Double(grace.components.seconds) + Double(grace.components.attoseconds) * 1e-18
        DispatchQueue.global().asyncAfter(deadline: .now() + max(0, seconds)) { [self] in
            let stuck = state.withLock { s in
                s.abandoned = true
                return Array(s.waiters.values)
            }
            for waiter in stuck { waiter.resume(nil) }
        }
    }
}
