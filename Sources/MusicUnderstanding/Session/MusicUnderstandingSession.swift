import Foundation
import Synchronization

/// Analyses one piece of music: key, rhythm, structure, pace, instrument activity and
/// loudness (``AnalysisType``).
///
/// The Linux counterpart of Apple's `MusicUnderstandingSession`: the same actor shape, with a
/// file URL (anything FFmpeg opens) or an audio provider as input.
///
/// ```swift
/// let session = try await MusicUnderstandingSession(url: songURL)
/// let result = try await session.analyze(for: [.rhythm, .loudness])
/// print(result.rhythm?.beatsPerMinute ?? 0, result.source?.duration ?? 0)
/// ```
///
/// A session may be analysed again after a run returns, throws or is cancelled; one run at a
/// time (a second concurrent `analyze` throws ``AnalysisError/alreadyRunning``). File decoding
/// and the analyses run on a dedicated thread, never on Swift's cooperative pool.
public actor MusicUnderstandingSession {
    private enum Input: Sendable {
        case file(path: String, rawFormat: RawPCMFormat?)
        case provider(any AsyncSequence<PCMBuffer?, Never> & Sendable)
    }

    private let input: Input
    private let configuration: AnalysisConfiguration
    private var running = false
    private var current: RunControl?
    private var cancelNextRun = false
    private let broadcast = LoudnessBroadcast()

    /// Loudness as the analysis runs: one ``LoudnessResult`` per 100 ms of audio, holding that
    /// step's momentary and short-term value and the integrated loudness, range, sample peak and
    /// true peak so far. Only while `.loudness` is among the analysed types.
    ///
    /// Each iteration (each `for try await` loop) is an independent subscriber: any number of
    /// tasks may consume it at once and each gets every result. An iteration started while a run
    /// is in flight follows that run; one started between runs follows the next run. It finishes
    /// when its run returns, and throws that run's error when the run throws (for example
    /// ``AnalysisError/cancelled``). Nothing is buffered for a run nobody iterates.
    /// An iteration subscribes when its iterator is made: a task scheduled after the run's first
    /// steps misses them, so make the iterator before calling ``analyze(for:)`` to get every step.
    public nonisolated var loudnessResults: LoudnessResults { LoudnessResults(broadcast: broadcast) }

    /// Iterations of ``loudnessResults`` following the run in flight and waiting for the next (tests).
    nonisolated var loudnessSubscriberCount: (current: Int, next: Int) { broadcast.subscriberCount }

    /// Opens a file (or "-" for standard input) that FFmpeg can decode.
    ///
    /// - Throws: ``AnalysisError/decoding(_:)`` when the file does not exist or cannot be read.
    public init(url: URL, configuration: AnalysisConfiguration = .init()) async throws {
        try self.init(path: url.isFileURL ? url.path : url.absoluteString, rawFormat: nil, configuration: configuration)
    }

    /// Opens a path ("-" for standard input); with `rawFormat` the input is headerless PCM.
    public init(path: String, rawFormat: RawPCMFormat? = nil, configuration: AnalysisConfiguration = .init()) throws {
        if path != "-", !path.contains("://"), rawFormat != nil || !AudioDecoder.isDevice(path) {
            // Raw bytes (FilePath): a name that is not UTF-8, as the command line escapes it, is found.
            guard let status = try? FilePath.status(path).get() else {
                throw AnalysisError.decoding(.fileNotFound(path: path))
            }
            if status.isDirectory {
                throw AnalysisError.decoding(.corruptData(path: path, reason: "is a directory"))
            }
            guard FilePath.isReadable(path) else {
                throw AnalysisError.decoding(.permissionDenied(path: path))
            }
        }
        input = .file(path: path, rawFormat: rawFormat)
        self.configuration = configuration
    }

    /// Analyses buffers from any asynchronous sequence; a `nil` element ends the input.
    /// All buffers must share sample rate and channel layout. The sequence is iterated once per
    /// `analyze` call.
    public init<Provider: AsyncSequence & Sendable>(audioProvider: Provider, configuration: AnalysisConfiguration = .init())
    where Provider.Element == PCMBuffer?, Provider.Failure == Never {
        input = .provider(audioProvider)
        self.configuration = configuration
    }

    deinit { broadcast.close() }

    /// Analyses every area this version implements (``AnalysisType/available``).
    @discardableResult
    public func analyze() async throws -> SessionResult {
        try await analyze(for: AnalysisType.available)
    }

    /// Analyses only the requested areas; the other fields of the result are `nil`.
    /// ``SessionResult/source`` and ``SessionResult/warning`` describe the input.
    ///
    /// - Throws: ``AnalysisError/unavailable(_:)`` for an area this version does not implement,
    ///   ``AnalysisError/decoding(_:)`` when the input cannot be decoded,
    ///   ``AnalysisError/cancelled`` after ``cancel()`` or when the calling task is cancelled.
    @discardableResult
    public func analyze(for types: Set<AnalysisType>) async throws -> SessionResult {
        if let missing = AnalysisType.allCases.first(where: { types.contains($0) && !$0.isAvailable }) {
            throw AnalysisError.unavailable(missing)
        }
        guard !running else { throw AnalysisError.alreadyRunning }
        if cancelNextRun {
            cancelNextRun = false
            throw AnalysisError.cancelled
        }
        running = true
        let control = RunControl()
        current = control
        defer {
            running = false
            current = nil
        }
        let run = broadcast.begin()
        let onStep: (@Sendable (LoudnessStep) -> Void)?
        if types.contains(.loudness) {
            let broadcast = self.broadcast
            onStep = { step in broadcast.publish(step, run: run) }
        } else {
            onStep = nil
        }
        let analyzer = FileAnalyzer(types: types, configuration: configuration)
        let input = self.input
        do {
            let result = try await withTaskCancellationHandler {
                try await control.wait { complete in
                    switch input {
                    case .file(let path, let rawFormat):
                        DedicatedThread.start(name: "cadenza-analysis") {
                            complete(
                                Result { () throws(AnalysisError) in
                                    try analyzer.analyze(path: path, rawFormat: rawFormat, cancellation: control.token, onLoudnessStep: onStep)
                                })
                        }
                        return nil
                    case .provider(let provider):
                        return Self.startProvider(provider, analyzer: analyzer, token: control.token, onStep: onStep, complete: complete)
                    }
                }
            } onCancel: {
                control.cancel()
            }
            broadcast.end(run: run, error: nil)
            return result
        } catch {
            broadcast.end(run: run, error: error)
            throw error
        }
    }

    /// Stops the analysis in flight: `analyze` throws ``AnalysisError/cancelled`` within
    /// milliseconds, whatever stage it is in (decoding, waiting for the audio provider's next
    /// buffer, or analysing). Called while no analysis runs, it makes the next `analyze` (only
    /// that one) throw ``AnalysisError/cancelled`` at once.
    public func cancel() {
        if let current { current.cancel() } else { cancelNextRun = true }
    }

    /// Iterates the provider on a task and analyses on a dedicated thread, the two joined by a
    /// bounded ``BufferChannel``; `complete` gets the outcome once.
    private static func startProvider(
        _ provider: any AsyncSequence<PCMBuffer?, Never> & Sendable, analyzer: FileAnalyzer,
        token: CancellationToken, onStep: (@Sendable (LoudnessStep) -> Void)?,
        complete: @escaping @Sendable (Result<SessionResult, AnalysisError>) -> Void
    ) -> Task<Void, Never> {
        let channel = BufferChannel()
        DedicatedThread.start(name: "cadenza-provider-analysis") {
            complete(
                Result { () throws(AnalysisError) in
                    try analyzeProvided(channel, analyzer: analyzer, token: token, onStep: onStep)
                })
            channel.close()
        }
        return Task.detached {
            await withTaskCancellationHandler {
                for await element in provider {
                    if Task.isCancelled || token.isCancelled { break }
                    guard let buffer = element, await channel.send(buffer) else { break }
                }
                channel.close()
            } onCancel: {
                // A provider waiting for its next buffer may never return: the analysis
                // thread must not wait for it.
                channel.close()
            }
        }
    }

    private static func analyzeProvided(
        _ channel: BufferChannel, analyzer: FileAnalyzer, token: CancellationToken,
        onStep: (@Sendable (LoudnessStep) -> Void)?
    ) throws(AnalysisError) -> SessionResult {
        try analyzer.analyze(ProvidedPCM(channel), cancellation: token, onLoudnessStep: onStep)
    }
}

/// One run's completion: the first of "the work finished" and "cancelled" resumes the waiting
/// `analyze`; the work, if still going, notices the token and stops on its own.
final class RunControl: Sendable {
    let token = CancellationToken()
    private struct State {
        var continuation: CheckedContinuation<SessionResult, any Error>?
        var task: Task<Void, Never>?
        var settled = false
    }
    private let state = Locked(State())

    /// Starts the work (`start` gets the completion handler and may return a task to cancel)
    /// and waits for its result or for cancellation.
    func wait(_ start: (@escaping @Sendable (Result<SessionResult, AnalysisError>) -> Void) -> Task<Void, Never>?) async throws -> SessionResult {
        try await withCheckedThrowingContinuation { continuation in
            let alreadyCancelled = state.withLock { s in
                if token.isCancelled { s.settled = true; return true }
                s.continuation = continuation
                return false
            }
            if alreadyCancelled {
                continuation.resume(throwing: AnalysisError.cancelled)
                return
            }
            let task = start { [self] result in settle(result.mapError { $0 as any Error }) }
            state.withLock { s in
                if s.settled { task?.cancel() } else { s.task = task }
            }
        }
    }

    /// Cancels: the token is set, a provider task is cancelled and the waiter resumes at once.
    func cancel() {
        token.cancel()
        settle(.failure(AnalysisError.cancelled))
    }

    private func settle(_ result: Result<SessionResult, any Error>) {
        let (continuation, task) = state.withLock { s -> (CheckedContinuation<SessionResult, any Error>?, Task<Void, Never>?) in
            if s.settled { return (nil, nil) }
            s.settled = true
            defer { s.continuation = nil; s.task = nil }
            return (s.continuation, s.task)
        }
        if case .failure = result { task?.cancel() }
        continuation?.resume(with: result)
    }
}

extension LoudnessResult {
    /// A streaming result for one 100 ms step: that step's momentary and short-term values and
    /// the running integrated loudness, range, sample peak and true peak.
    init(step: LoudnessStep) {
        self.init(
            integrated: .init(time: step.time, value: step.integrated),
            momentary: [.init(time: step.time, value: step.momentary)],
            shortTerm: [.init(time: step.time, value: step.shortTerm)],
            peak: .init(time: step.time, value: step.samplePeak),
            loudnessRange: step.loudnessRange,
            truePeak: step.truePeak)
    }
}
