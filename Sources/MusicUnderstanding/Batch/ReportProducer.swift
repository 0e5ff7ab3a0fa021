/// The seam between a batch and whatever analyses one input: given a path, produce its report
/// or error record.
///
/// Kept minimal on purpose: today's implementation is ``ThreadPoolReportProducer`` (in-process,
/// dedicated threads); worker *processes* that survive a crashing decoder are meant to go behind
/// the same protocol, so it carries only what crosses a process boundary easily (a path in, a
/// ``Report`` out, a cancellation request).
///
/// Implementations must never block the calling task's thread (Swift's cooperative pool), must
/// return a ``Report`` for every input (an error record when it cannot be analysed) and should stop
/// soon after `cancellation` is cancelled (the report is then discarded by the batch).
public protocol ReportProducer: Sendable {
    /// The report of `path` ("-" is standard input): its analysis or an error record naming it.
    func report(path: String, cancellation: CancellationToken) async -> Report
}

/// Runs ``FileAnalyzer/report(path:rawFormat:cancellation:)`` on a fixed pool of dedicated threads
/// (one per job), so blocking decoding never occupies Swift's cooperative pool.
///
/// ```swift
/// let producer = ThreadPoolReportProducer(analyzer: FileAnalyzer(types: [.loudness]), threads: 4)
/// let report = await producer.report(path: "song.flac", cancellation: CancellationToken())
/// ```
public final class ThreadPoolReportProducer: ReportProducer {
    /// What runs on every input.
    public let analyzer: FileAnalyzer
    private let pool: WorkerThreads

    /// A producer running `analyzer` on at most `threads` (at least 1) threads at once; further
    /// inputs wait in a queue. Threads start when first needed and end with the producer.
    public init(analyzer: FileAnalyzer, threads: Int) {
        self.analyzer = analyzer
        self.pool = WorkerThreads(count: threads, name: "cadenza-batch")
    }

    /// The most inputs analysed at once.
    public var threads: Int { pool.count }

    /// Threads started so far (never more than ``threads``).
    public var startedThreads: Int { pool.startedThreads }

    public func report(path: String, cancellation: CancellationToken) async -> Report {
        let analyzer = self.analyzer
        return await pool.run { analyzer.report(path: path, cancellation: cancellation) }
    }
}

/// Opens local inputs only: an input naming a protocol or device that is not in `allowed`
/// (``AudioDecoder/inputScheme(_:)``: `http://…`, `concat:…`, `lavfi:…`) gets an error record,
/// ``AudioDecodingError/protocolNotAllowed(path:scheme:)``, without being opened; every other
/// input goes to `base`. An offline batch reads files, folders and standard input unless the user
/// allows more.
public struct LocalInputProducer: ReportProducer {
    /// Who analyses the inputs that may be opened.
    public let base: any ReportProducer
    /// Protocols and devices that may be opened (lowercase, e.g. `["http", "https"]`).
    public let allowed: Set<String>
    /// Written as the error records' `analyzer`, as for every other report of the batch.
    public let analyzer: AnalyzerInfo

    /// A producer opening local inputs and the `allowed` protocols through `base`.
    public init(base: any ReportProducer, allowed: Set<String>, analyzer: AnalyzerInfo) {
        self.base = base
        self.allowed = Set(allowed.map { $0.lowercased() })
        self.analyzer = analyzer
    }

    public func report(path: String, cancellation: CancellationToken) async -> Report {
        if let scheme = AudioDecoder.inputScheme(path), !allowed.contains(scheme) {
            var record = Report(path: path, error: AudioDecodingError.protocolNotAllowed(path: path, scheme: scheme))
            record.analyzer = analyzer
            return record
        }
        return await base.report(path: path, cancellation: cancellation)
    }
}
