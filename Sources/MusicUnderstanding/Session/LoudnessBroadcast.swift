import Synchronization

/// Hands every 100 ms loudness step of a run to every consumer of
/// ``MusicUnderstandingSession/loudnessResults`` that subscribed for that run.
///
/// An iterator subscribes when it is made: to the run in flight, or else to the next run. When
/// the run ends (returns, throws or is cancelled) its subscribers finish, so results never leak
/// from one run into the next. Nothing is buffered when nobody subscribed.
final class LoudnessBroadcast: Sendable {
    typealias Continuation = AsyncThrowingStream<LoudnessResult, any Error>.Continuation

    private struct State {
        var running = false
        var run = 0
        var current: [Int: Continuation] = [:]
        var next: [Int: Continuation] = [:]
        var nextID = 0
    }

    private let state = Locked(State())

    /// A new stream bound to the run in flight, or to the next run.
    func subscribe() -> AsyncThrowingStream<LoudnessResult, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: LoudnessResult.self, throwing: (any Error).self,
            bufferingPolicy: .unbounded)
        let id = state.withLock { s in
            let id = s.nextID
            s.nextID += 1
            if s.running { s.current[id] = continuation } else { s.next[id] = continuation }
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { s in
                s.current[id] = nil
                s.next[id] = nil
            }
        }
        return stream
    }

    /// A run starts: the waiting subscribers become its subscribers. Returns the run's number,
    /// which its steps carry so that a cancelled run's late steps reach nobody.
    func begin() -> Int {
        state.withLock { s in
            s.running = true
            s.run += 1
            s.current.merge(s.next) { a, _ in a }
            s.next = [:]
            return s.run
        }
    }

    /// Subscribers of the run in flight and waiting for the next one (tests).
    var subscriberCount: (current: Int, next: Int) { state.withLock { ($0.current.count, $0.next.count) } }

    /// One step of run `run` to every subscriber of that run, if it is still in flight.
    func publish(_ step: LoudnessStep, run: Int) {
        let targets = state.withLock { s in s.running && s.run == run ? Array(s.current.values) : [] }
        guard !targets.isEmpty else { return }
        let result = LoudnessResult(step: step)
        for continuation in targets { continuation.yield(result) }
    }

    /// Run `run` ended: its subscribers finish (with `error` when it failed).
    func end(run: Int, error: (any Error)?) {
        let targets = state.withLock { s -> [Continuation] in
            guard s.running, s.run == run else { return [] }
            s.running = false
            defer { s.current = [:] }
            return Array(s.current.values)
        }
        for continuation in targets { continuation.finish(throwing: error) }
    }

    /// The session is gone: every subscriber finishes.
    func close() {
        let targets = state.withLock { s in
            defer { s.current = [:]; s.next = [:] }
            return Array(s.current.values) + Array(s.next.values)
        }
        for continuation in targets { continuation.finish() }
    }
}

/// The sequence behind ``MusicUnderstandingSession/loudnessResults``: each iterator is an
/// independent subscriber, so any number of tasks may consume it at once.
public struct LoudnessResults: AsyncSequence, Sendable {
    public typealias Element = LoudnessResult
    public typealias Failure = any Error

    let broadcast: LoudnessBroadcast

    /// Iterates the results of the run in flight, or of the next run when none is.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<LoudnessResult, any Error>.AsyncIterator

        public mutating func next() async throws -> LoudnessResult? {
            try await base.next()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: broadcast.subscribe().makeAsyncIterator())
    }
}
