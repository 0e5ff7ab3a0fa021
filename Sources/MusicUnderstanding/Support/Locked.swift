#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value guarded by a POSIX mutex: every access goes through `withLock`.
///
/// Used instead of `Synchronization.Mutex` because ThreadSanitizer understands `pthread_mutex_lock`
/// and `pthread_mutex_unlock` (it intercepts them), while `Mutex` on Linux hands the lock over
/// through a futex inside the uninstrumented Synchronization library, so TSan reports every
/// protected access as a race (`scripts/tsan-mutex-false-positive.swift`). The same design as
/// swift-nio's `NIOLockedValueBox`: the mutex lives in its own allocation, never moved.
/// Guard a value with storage (not `Void`): ThreadSanitizer reports a race on the exclusivity
/// access of a zero-sized value, whose address aliases other storage (a 30-line program gives
/// a report in 3 of 3 runs with `Locked<Void>`, none with `Locked<Int>`).
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// Guards `value`.
    package init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        // Default attributes cannot fail to initialise (EINVAL needs invalid attributes).
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
