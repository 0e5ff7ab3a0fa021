import Foundation

/// Analyses one input synchronously on the calling thread: decode once, compute the shared
/// features the requested analyses need, run them. The building block of the session, the
/// batch runner and worker threads or processes.
///
/// Blocking: call it from a thread of your own (``MusicUnderstandingSession`` and
/// ``BatchRunner`` do), not from Swift's cooperative pool.
///
/// ```swift
/// let analyzer = FileAnalyzer(types: [.key, .rhythm])
/// let result = try analyzer.analyze(path: "song.flac")
/// print(result.source?.duration ?? 0, result.key?.ranges.first?.value.tonic ?? .c)
/// ```
public struct FileAnalyzer: Sendable {
    /// The analyses to run.
    public var types: Set<AnalysisType>
    /// Their settings.
    public var configuration: AnalysisConfiguration

    /// Creates an analyzer for `types` (default: every available analysis).
    public init(types: Set<AnalysisType> = AnalysisType.available, configuration: AnalysisConfiguration = .init()) {
        self.types = types
        self.configuration = configuration
    }

    /// Decodes and analyses `path` ("-" for standard input; with `rawFormat`, headerless PCM).
    /// The result carries ``SessionResult/source`` (exact duration, rate, channels, codec) and,
    /// for a damaged input that still decoded, ``SessionResult/warning``.
    ///
    /// - Parameters:
    ///   - cancellation: checked after every decoded chunk and between stages.
    ///   - onLoudnessStep: sees every 100 ms loudness step while decoding (with `.loudness` only).
    ///   - onProgress: sees the seconds of audio decoded so far, after every decoded chunk.
    /// - Throws: ``AnalysisError/unavailable(_:)``, ``AnalysisError/decoding(_:)`` (including
    ///   ``AudioDecodingError/zeroLength(path:)`` when nothing decodes), ``AnalysisError/cancelled``.
    public func analyze(
        path: String, rawFormat: RawPCMFormat? = nil,
        cancellation: CancellationToken = CancellationToken(),
        onLoudnessStep: (@Sendable (LoudnessStep) -> Void)? = nil,
        onProgress: ((Double) -> Void)? = nil
    ) throws(AnalysisError) -> SessionResult {
        _ = try AnalysisRegistry.plan(for: types)  // an unavailable analysis fails before the input is opened
        try cancellation.check()
        let decoder: AudioDecoder
        do { decoder = try AudioDecoder(path: path, rawFormat: rawFormat, interrupt: cancellation) } catch {
            try cancellation.check()  // an open given up because of the cancellation
            throw .decoding(error)
        }
        return try analyze(decoder, cancellation: cancellation, onLoudnessStep: onLoudnessStep, onProgress: onProgress)
    }

    /// Analyses the PCM of `input` (a decoder, or buffers a program provides): the one loop that
    /// drives the pipeline, whatever the input. The result's ``SessionResult/source`` is the
    /// input's, with the exact duration of what was read.
    ///
    /// - Throws: ``AnalysisError/unavailable(_:)``, ``AnalysisError/decoding(_:)`` (including
    ///   ``AudioDecodingError/zeroLength(path:)`` when the input holds no audio),
    ///   ``AnalysisError/inconsistentFormat(_:)``, ``AnalysisError/cancelled``.
    public func analyze(
        _ input: some PCMSource, cancellation: CancellationToken = CancellationToken(),
        onLoudnessStep: (@Sendable (LoudnessStep) -> Void)? = nil,
        onProgress: ((Double) -> Void)? = nil
    ) throws(AnalysisError) -> SessionResult {
        let pipeline = try AnalysisPipeline(types: types, configuration: configuration, onLoudnessStep: onLoudnessStep)
        let path = input.source.path
        while true {
            try cancellation.check()
            let buffer: PCMBuffer?
            do { buffer = try input.read() } catch { throw .decoding(error) }
            guard let buffer else { break }
            try pipeline.consume(buffer, path: path)
            onProgress?(pipeline.duration)
        }
        try cancellation.check()
        if pipeline.framesIn == 0 { throw .decoding(.zeroLength(path: path)) }
        var result = try pipeline.finish(cancellation: cancellation)
        var source = input.source
        source.duration = pipeline.duration
        result.source = source
        let notes = [input.damageNote, pipeline.sampleNote].compactMap { $0 }
        result.warning = notes.isEmpty ? nil : notes.joined(separator: "; ")
        return result
    }

    /// The report of `path`: its analysis, or an error record naming the file and the reason.
    /// Never throws. `source.path` is `path` as given; `source.size` and `source.modified` are the
    /// file's as it was before decoding (none for standard input), and `analyzer` says what made it.
    public func report(
        path: String, rawFormat: RawPCMFormat? = nil,
        cancellation: CancellationToken = CancellationToken(),
        onProgress: ((Double) -> Void)? = nil
    ) -> Report {
        let stamp = FileStamp.of(path: path)  // before decoding: a file changed meanwhile is redone on resume
        var report: Report
        do {
            let result = try analyze(path: path, rawFormat: rawFormat, cancellation: cancellation, onProgress: onProgress)
            var source = result.source ?? SourceInfo(path: path)
            source.path = path
            report = Report(source: source, result: result, warning: result.warning)
        } catch {
            report = Report(path: path, error: error)
        }
        report.source.size = stamp?.size
        report.source.modified = stamp?.modified
        report.analyzer = analyzerInfo
        return report
    }

    /// What this analyzer writes as a report's `analyzer`.
    public var analyzerInfo: AnalyzerInfo { AnalyzerInfo(types: types, configuration: configuration) }
}
