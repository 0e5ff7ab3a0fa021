import Dispatch
import Foundation
import Synchronization

/// A fixed pool of at most `count` dedicated threads for blocking work (FFmpeg I/O, DSP).
///
/// Work items wait in a queue; each thread takes the next one when it is free, blocked on a
/// semaphore in between, never on Swift's cooperative pool. The async caller awaits a
/// continuation, so a thousand waiting inputs hold no thread at all. Threads are started when
/// work first needs them (never more than `count`) and end once the pool is released.
final class WorkerThreads: Sendable {
    /// The queue and its bookkeeping, shared with the threads (which must not keep the pool alive).
    private final class Shared: Sendable {
        struct State {
            var queue: [@Sendable () -> Void] = []
            var threads = 0
            var idle = 0
            var shutdown = false
        }
        let state = Locked(State())
        /// One signal per queued item (and one per thread at shutdown).
        let available = DispatchSemaphore(value: 0)

        /// Runs items until shut down with an empty queue.
        func work() {
            while true {
                available.wait()
                let next: (item: (@Sendable () -> Void)?, stop: Bool) = state.withLock { s in
                    if s.queue.isEmpty { return (nil, s.shutdown) }
                    s.idle -= 1
                    return (s.queue.removeFirst(), false)
                }
                if next.stop { return }
                guard let item = next.item else { continue }
                item()
                state.withLock { $0.idle += 1 }
            }
        }
    }

    /// The most threads this pool runs.
    let count: Int
    /// Name of the threads, for debuggers and `top -H`.
    let name: String
    private let shared = Shared()

    /// A pool of at most `count` (at least 1) threads.
    init(count: Int, name: String = "cadenza-worker") {
        self.count = max(1, count)
        self.name = name
    }

    deinit {
        let threads = shared.state.withLock { s in
            s.shutdown = true
            return s.threads
        }
        for _ in 0..<threads { shared.available.signal() }
    }

    /// Threads started so far (for tests).
    var startedThreads: Int { shared.state.withLock { $0.threads } }

    /// Queues `body`, runs it on one of the pool's threads and returns its value, without
    /// blocking the caller's thread. Cancelling the calling task does not stop `body`
    /// (blocking code cannot be interrupted; give it a ``CancellationToken``).
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            submit { continuation.resume(returning: body()) }
        }
    }

    /// Queues `item` and starts a thread for it when none is idle and the pool is not full.
    private func submit(_ item: @escaping @Sendable () -> Void) {
        let startThread = shared.state.withLock { s -> Bool in
            s.queue.append(item)
            guard s.queue.count > s.idle, s.threads < count else { return false }
            s.threads += 1
            s.idle += 1  // counted idle until it takes its first item
            return true
        }
        shared.available.signal()
        if startThread {
            let shared = self.shared
            let thread = Thread { shared.work() }
            thread.name = name
            thread.stackSize = Self.stackSize
            thread.start()
        }
    }

    /// Stack size of the threads: deep enough for FFmpeg's decoders.
    static let stackSize = 8 << 20
}
