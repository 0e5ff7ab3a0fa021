import Foundation
import Synchronization

/// Hands PCM buffers from an asynchronous producer (an audio provider iterated by a task) to a
/// consumer on a dedicated thread, with back-pressure: at most `capacity` buffers wait, and
/// the producer suspends (without blocking its thread) while the channel is full.
final class BufferChannel: Sendable {
    private struct State {
        var queue: [PCMBuffer] = []
        var head = 0
        var closed = false
        var spaceWaiter: CheckedContinuation<Void, Never>?
    }

    private let capacity: Int
    private let state = Locked(State())
    private let signal = DispatchSemaphore(value: 0)

    /// A channel holding at most `capacity` buffers.
    init(capacity: Int = 16) { self.capacity = max(1, capacity) }

    /// Adds a buffer; suspends while the channel is full. Returns false once the channel closed.
    func send(_ buffer: PCMBuffer) async -> Bool {
        while true {
            enum Step { case sent, closed, full }
            let step = state.withLock { s -> Step in
                if s.closed { return .closed }
                if s.queue.count - s.head >= capacity { return .full }
                s.queue.append(buffer)
                return .sent
            }
            switch step {
            case .sent: signal.signal(); return true
            case .closed: return false
            case .full:
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLock { s -> Bool in
                        if s.closed || s.queue.count - s.head < capacity { return true }
                        s.spaceWaiter = c
                        return false
                    }
                    if resumeNow { c.resume() }
                }
            }
        }
    }

    /// Ends the input (idempotent): the consumer drains what is queued, then gets `nil`; a
    /// suspended producer resumes.
    func close() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.closed = true
            defer { s.spaceWaiter = nil }
            return s.spaceWaiter
        }
        signal.signal()
        waiter?.resume()
    }

    /// The next buffer, blocking the calling (dedicated) thread; `nil` after `close()` once the
    /// queue is drained.
    func receive() -> PCMBuffer? {
        while true {
            enum Step { case buffer(PCMBuffer, CheckedContinuation<Void, Never>?), end, wait }
            let step = state.withLock { s -> Step in
                if s.head < s.queue.count {
                    let b = s.queue[s.head]
                    s.head += 1
                    if s.head > 64 { s.queue.removeFirst(s.head); s.head = 0 }
                    let waiter = s.spaceWaiter
                    s.spaceWaiter = nil
                    return .buffer(b, waiter)
                }
                return s.closed ? .end : .wait
            }
            switch step {
            case .buffer(let b, let waiter): waiter?.resume(); return b
            case .end: signal.signal(); return nil  // keep later receives from blocking
            case .wait: signal.wait()
            }
        }
    }
}

/// The buffers an audio provider sends through a ``BufferChannel``, as a ``PCMSource``: the
/// input of a session analysing provided PCM. Its source is named `<audio provider>`, with the
/// first buffer's rate and channel count and the codec `pcm_f32`.
final class ProvidedPCM: PCMSource {
    private let channel: BufferChannel
    private var format: (rate: Double, channels: Int)?

    /// Reads the buffers of `channel` until it is closed.
    init(_ channel: BufferChannel) { self.channel = channel }

    var source: SourceInfo {
        SourceInfo(
            path: "<audio provider>", sampleRate: format.map { Int($0.rate) }, channels: format?.channels,
            codec: "pcm_f32")
    }

    var damageNote: String? { nil }

    func read() throws(AudioDecodingError) -> PCMBuffer? {
        guard let buffer = channel.receive() else { return nil }
        if format == nil { format = (buffer.sampleRate, buffer.channelCount) }
        return buffer
    }
}
