import Foundation
import MusicUnderstanding
import Synchronization

/// `cadenza analyze PATH...`
enum AnalyzeCommand {
    static let spec = CommandSpec(
        name: "analyze",
        abstract: "Analyse audio files and folders (recursively).",
        usage: "cadenza analyze [--for <list>] [--output <dir>] [--jobs <n>] [--no-progress] <path>...",
        options: [
            OptionSpec(names: ["--for"], value: "list",
                       help: "Comma-separated analyses: key, rhythm, loudness (default: all available)."),
            OptionSpec(names: ["--output", "-o"], value: "dir",
                       help: "Write DIR/<input>.json per input (atomically) instead of NDJSON on stdout."),
            OptionSpec(names: ["--jobs", "-j"], value: "n", help: "Inputs analysed in parallel (default: number of cores)."),
            OptionSpec(names: ["--no-progress"], value: nil, help: "Never draw the progress bar on stderr."),
        ],
        discussion: """
            Inputs are files, folders (walked recursively; audio is found by extension or by probing the \
            content) or '-' for an encoded stream on standard input. Each input gives one report, or an \
            error record naming the file and the reason; the batch always goes on.
            Output: one JSON report per line on stdout in completion order (NDJSON), or with --output one \
            file per input, DIR/<input path>.json (standard input: DIR/stdin.json). A progress bar with ETA is drawn on stderr when it is a terminal.
            Exit status: 0 all inputs analysed, 1 some inputs failed, 2 usage error, 130 interrupted.
            structure, pace and instrumentActivity are not available in this version.
            """)

    static func run(_ arguments: [String]) async -> Int32 {
        guard let args = Cadenza.parse(arguments, spec) else { return 2 }
        let types: Set<AnalysisType>
        let jobs: Int
        do throws(UsageError) {
            let requested = try parseAnalysisTypes(args.value("--for"))
            if let missing = AnalysisType.allCases.first(where: { requested.contains($0) && !$0.isAvailable }) {
                let offered = AnalysisType.allCases.filter(\.isAvailable).map(\.rawValue).joined(separator: ", ")
                throw UsageError(description: AnalysisError.unavailable(missing).description + " (--for accepts \(offered))")
            }
            types = requested.isEmpty ? AnalysisType.available : requested
            jobs = try args.int("--jobs", range: 1...1024) ?? ProcessInfo.processInfo.activeProcessorCount
        } catch {
            Cadenza.usageFailure(error.description, spec)
        }
        if args.positionals.isEmpty { Cadenza.usageFailure("no input: give at least one file or folder", spec) }
        if let dir = args.value("--output"), let reason = unusableOutputFolder(dir) {
            // Found before any analysis runs, instead of one write error per input afterwards.
            Cadenza.usageFailure("cannot write to --output \(dir): \(reason)", spec)
        }

        let inputs = InputDiscovery().inputs(from: args.positionals)
        if inputs.isEmpty { printError("warning: no audio inputs found in \(args.positionals.joined(separator: " "))") }
        let sink: ReportSink = args.value("--output").map { .directory($0) } ?? .ndjson(fileDescriptor: STDOUT_FILENO)
        let progress = (isatty(STDERR_FILENO) == 1 && !args.flag("--no-progress")) ? ProgressBar(inputs: inputs) : nil
        let state = BatchState()

        let runner = BatchRunner(types: types, jobs: jobs)
        let work = Task {
            await runner.run(inputs: inputs) { report in
                let failed = report.error != nil
                var writeError: String?
                do { try sink.write(report) } catch { writeError = "\(report.source.path): cannot write report: \(error)" }
                state.record(failed: failed || writeError != nil)
                if let writeError { progress?.clear(); printError("error: " + writeError) }
                if let error = report.error, sink.isDirectory {
                    progress?.clear()
                    printError("error: \(error.message)")
                }
                progress?.advance(path: report.source.path)
            }
        }
        let interrupt = SignalWatcher(signal: SIGINT) {
            work.cancel()
            // An input that stalls (a pipe with no data) cannot notice the cancellation: end anyway.
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
                guard state.claimFinalMessage() else { return }
                progress?.clear()
                printError("interrupted: \(state.counts().done) of \(inputs.count) inputs analysed")
                exit(130)
            }
        }
        await work.value
        interrupt.stop()
        progress?.finish()
        let (done, failed) = state.counts()
        if work.isCancelled {
            if state.claimFinalMessage() { printError("interrupted: \(done) of \(inputs.count) inputs analysed") }
            return 130
        }
        if failed > 0 && progress != nil { printError("\(failed) of \(inputs.count) inputs failed") }
        return failed > 0 ? 1 : 0
    }
}

/// Counts of finished inputs. Synchronous (a lock, not an actor) so that the interrupt fallback
/// can read it even when every thread of the concurrency pool is blocked reading a stalled input.
final class BatchState: Sendable {
    private struct Counts {
        var done = 0
        var failed = 0
        var finalMessagePrinted = false
    }
    private let counts_ = Mutex(Counts())

    func record(failed isFailure: Bool) {
        counts_.withLock { c in
            c.done += 1
            if isFailure { c.failed += 1 }
        }
    }

    func counts() -> (done: Int, failed: Int) { counts_.withLock { ($0.done, $0.failed) } }

    /// True exactly once: the "interrupted" message is printed by whoever gets here first.
    func claimFinalMessage() -> Bool {
        counts_.withLock { c in
            defer { c.finalMessagePrinted = true }
            return !c.finalMessagePrinted
        }
    }
}

/// Why `dir` cannot take reports (it is created when missing), or nil when it can.
func unusableOutputFolder(_ dir: String) -> String? {
    do {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    } catch {
        return ReportSink.reason(error)
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
        return "not a directory"
    }
    if access(dir, W_OK | X_OK) != 0 { return String(cString: strerror(errno)) }
    return nil
}

extension ReportSink {
    var isDirectory: Bool {
        if case .directory = self { return true }
        return false
    }
}
