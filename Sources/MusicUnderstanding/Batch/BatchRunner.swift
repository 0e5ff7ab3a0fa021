import Foundation

/// Analyses many inputs, several at a time, and hands each finished report (or error record)
/// to a sink in completion order. One bad input never stops the batch.
public struct BatchRunner: Sendable {
    /// The analyses to run on every input.
    public var types: Set<AnalysisType>
    /// How many inputs are analysed at once (default: the number of active cores).
    public var jobs: Int

    /// Creates a runner.
    public init(types: Set<AnalysisType>, jobs: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.types = types
        self.jobs = max(1, jobs)
    }

    /// Analyses one input into a report or an error record.
    public static func analyze(path: String, types: Set<AnalysisType>, rawFormat: RawPCMFormat? = nil) async -> Report {
        let analyzer = FileAnalyzer(types: types)
        return await DedicatedThread.run(name: "cadenza-batch") { analyzer.report(path: path, rawFormat: rawFormat) }
    }

    /// Analyses `inputs`; `onReport` is called once per input, serially, as each completes.
    /// Returns early (without reports for the rest) when the calling task is cancelled.
    public func run(inputs: [String], onReport: @escaping @Sendable (Report) async -> Void) async {
        let types = self.types
        await withTaskGroup(of: Report.self) { group in
            var next = 0
            func startNext() {
                guard next < inputs.count else { return }
                let path = inputs[next]
                next += 1
                group.addTask { await Self.analyze(path: path, types: types) }
            }
            for _ in 0..<min(jobs, inputs.count) { startNext() }
            while let report = await group.next() {
                if Task.isCancelled { group.cancelAll(); break }
                await onReport(report)
                startNext()
            }
        }
    }
}
