import Foundation

/// Analyses one piece of music: key, rhythm and loudness in this version (structure, pace and
/// instrument activity come in later versions).
///
/// The Linux counterpart of Apple's `MusicUnderstandingSession`: the same actor shape, with a
/// file URL (anything FFmpeg opens) or an audio provider as input.
///
/// ```swift
/// let session = try await MusicUnderstandingSession(url: songURL)
/// let result = try await session.analyze(for: [.rhythm, .loudness])
/// print(result.rhythm?.beatsPerMinute ?? 0)
/// ```
public actor MusicUnderstandingSession {
    private enum Input {
        case file(path: String, rawFormat: RawPCMFormat?)
        case provider(any AsyncSequence<PCMBuffer?, Never> & Sendable)
    }

    private let input: Input
    private var running = false
    private var cancellation: CancellationFlag?
    private var cancelledBeforeStart = false
    private let loudnessContinuation: AsyncThrowingStream<LoudnessResult, any Error>.Continuation

    /// What is known about the input: exact duration, rate, channels and codec once analysed.
    public private(set) var source: SourceInfo

    /// Set after `analyze` when the input was damaged (e.g. truncated) and only what could be
    /// decoded was analysed.
    public private(set) var damageNote: String?

    /// Loudness as the analysis runs: one ``LoudnessResult`` per 100 ms of audio, holding that
    /// step's momentary and short-term value and the integrated loudness, range, sample peak and
    /// true peak so far. The sequence finishes when `analyze` returns (or throws its error).
    /// It only yields while `.loudness` is among the analysed types.
    public nonisolated let loudnessResults: AsyncThrowingStream<LoudnessResult, any Error>

    /// Opens a file (or "-" for standard input) that FFmpeg can decode.
    ///
    /// - Throws: ``AnalysisError/decoding(_:)`` when the file does not exist or cannot be read.
    public init(url: URL) async throws {
        try self.init(path: url.isFileURL ? url.path : url.absoluteString, rawFormat: nil)
    }

    /// Opens a path ("-" for standard input); with `rawFormat` the input is headerless PCM.
    public init(path: String, rawFormat: RawPCMFormat? = nil) throws {
        if path != "-", !path.contains("://"), rawFormat != nil || !AudioDecoder.isDevice(path) {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw AnalysisError.decoding(.fileNotFound(path: path))
            }
            if isDirectory.boolValue {
                throw AnalysisError.decoding(.corruptData(path: path, reason: "is a directory"))
            }
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw AnalysisError.decoding(.permissionDenied(path: path))
            }
        }
        input = .file(path: path, rawFormat: rawFormat)
        source = SourceInfo(path: path)
        (loudnessResults, loudnessContinuation) = AsyncThrowingStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// Analyses buffers from any asynchronous sequence; a `nil` element ends the input.
    /// All buffers must share sample rate and channel layout.
    public init<Provider: AsyncSequence & Sendable>(audioProvider: Provider)
    where Provider.Element == PCMBuffer?, Provider.Failure == Never {
        input = .provider(audioProvider)
        source = SourceInfo(path: "<audio provider>")
        (loudnessResults, loudnessContinuation) = AsyncThrowingStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// Analyses every area this version implements (``AnalysisType/available``).
    @discardableResult
    public func analyze() async throws -> SessionResult {
        try await analyze(for: AnalysisType.available)
    }

    /// Analyses only the requested areas; the other fields of the result are `nil`.
    ///
    /// - Throws: ``AnalysisError/unavailable(_:)`` for an area this version does not implement,
    ///   ``AnalysisError/decoding(_:)`` when the input cannot be decoded,
    ///   ``AnalysisError/cancelled`` after ``cancel()``.
    @discardableResult
    public func analyze(for types: Set<AnalysisType>) async throws -> SessionResult {
        if let missing = AnalysisType.allCases.first(where: { types.contains($0) && !$0.isAvailable }) {
            throw AnalysisError.unavailable(missing)
        }
        guard !running else { throw AnalysisError.alreadyRunning }
        running = true
        defer { running = false }
        let flag = CancellationFlag()
        if cancelledBeforeStart { flag.cancel() }
        cancellation = flag
        let continuation = loudnessContinuation
        let streamLoudness = types.contains(.loudness)
        let onStep: (@Sendable (LoudnessStep) -> Void)? = streamLoudness ? Self.forwarder(to: continuation) : nil

        do {
            let outcome: (SessionResult, SourceInfo, String?)
            switch input {
            case .file(let path, let rawFormat):
                outcome = try await withTaskCancellationHandler {
                    try await Task.detached {
                        try Self.runFile(path: path, rawFormat: rawFormat, types: types, flag: flag, onStep: onStep)
                    }.value
                } onCancel: { flag.cancel() }
            case .provider(let provider):
                outcome = try await withTaskCancellationHandler {
                    try await Self.runProvider(provider, types: types, flag: flag, onStep: onStep)
                } onCancel: { flag.cancel() }
            }
            source = outcome.1
            damageNote = outcome.2
            continuation.finish()
            return outcome.0
        } catch {
            continuation.finish(throwing: error)
            throw error
        }
    }

    /// Stops an analysis in flight; it throws ``AnalysisError/cancelled``. Before `analyze`,
    /// makes the next `analyze` throw at once.
    public func cancel() {
        if let cancellation { cancellation.cancel() } else { cancelledBeforeStart = true }
    }

    private static func forwarder(
        to continuation: AsyncThrowingStream<LoudnessResult, any Error>.Continuation
    ) -> @Sendable (LoudnessStep) -> Void {
        { step in _ = continuation.yield(LoudnessResult(step: step)) }
    }

    private static func runFile(path: String, rawFormat: RawPCMFormat?, types: Set<AnalysisType>,
                                flag: CancellationFlag, onStep: (@Sendable (LoudnessStep) -> Void)?) throws -> (SessionResult, SourceInfo, String?) {
        let decoder: AudioDecoder
        do { decoder = try AudioDecoder(path: path, rawFormat: rawFormat) } catch { throw AnalysisError.decoding(error) }
        let pipeline = AnalysisPipeline(types: types, onLoudnessStep: onStep)
        while true {
            if flag.isCancelled { throw AnalysisError.cancelled }
            let buffer: PCMBuffer?
            do { buffer = try decoder.read() } catch { throw AnalysisError.decoding(error) }
            guard let buffer else { break }
            try pipeline.consume(buffer, path: path)
        }
        if pipeline.framesIn == 0 { throw AnalysisError.decoding(.zeroLength(path: path)) }
        var source = decoder.source
        source.duration = Double(pipeline.framesIn) / Double(decoder.sampleRate)
        return (pipeline.finish(), source, decoder.damageNote)
    }

    private static func runProvider(_ provider: any AsyncSequence<PCMBuffer?, Never> & Sendable, types: Set<AnalysisType>,
                                    flag: CancellationFlag, onStep: (@Sendable (LoudnessStep) -> Void)?) async throws -> (SessionResult, SourceInfo, String?) {
        let path = "<audio provider>"
        let pipeline = AnalysisPipeline(types: types, onLoudnessStep: onStep)
        var rate = 0.0, channels = 0
        for await element in provider {
            if flag.isCancelled { throw AnalysisError.cancelled }
            guard let buffer = element else { break }
            try pipeline.consume(buffer, path: path)
            rate = buffer.sampleRate
            channels = buffer.channelCount
        }
        if flag.isCancelled { throw AnalysisError.cancelled }
        if pipeline.framesIn == 0 { throw AnalysisError.decoding(.zeroLength(path: path)) }
        let source = SourceInfo(path: path, duration: rate > 0 ? Double(pipeline.framesIn) / rate : 0,
                                sampleRate: rate > 0 ? Int(rate) : nil, channels: channels > 0 ? channels : nil, codec: "pcm_f32")
        return (pipeline.finish(), source, nil)
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
