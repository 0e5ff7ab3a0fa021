import Synchronization

/// A flag that asks an analysis in flight to stop. The analysis checks it between decoded
/// chunks and between stages and then throws ``AnalysisError/cancelled``.
///
/// Sendable: cancel from any thread or task.
public final class CancellationToken: Sendable {
    private let state = Atomic<Bool>(false)

    /// A token that is not cancelled.
    public init() {}

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.load(ordering: .acquiring) }

    /// Asks the analysis to stop; idempotent.
    public func cancel() { state.store(true, ordering: .releasing) }

    /// Throws ``AnalysisError/cancelled`` once ``cancel()`` was called.
    public func check() throws(AnalysisError) {
        if isCancelled { throw .cancelled }
    }
}
