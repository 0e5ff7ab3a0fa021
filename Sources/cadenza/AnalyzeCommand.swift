import Foundation
import Synchronization
import MusicUnderstanding

/// The analyses this version has, in contract order, as `--for` spells them.
let availableAnalyses = AnalysisType.allCases.filter(\.isAvailable).map(\.rawValue).joined(separator: ", ")

/// The options of `cadenza analyze`, declared once.
struct AnalyzeOptions: OptionGroup {
    let analyses = Option.analyses(help: "Comma-separated analyses: \(availableAnalyses) (default: all).")
    let output = Option<String>(
        names: ["--output", "-o"], value: "dir",
        help: "Write DIR/<input>.json per input (atomically) instead of NDJSON on stdout.")
    let jobs = Option<Int>(
        names: ["--jobs", "-j"], value: "n", help: "Inputs analysed in parallel (default: number of cores).",
        range: 1...1024)
    let format = SharedOptions.format()
    let writeTags = Flag(
        names: ["--write-tags"],
        help: "Write BPM, initial key and ReplayGain 2.0 (Opus: R128_TRACK_GAIN) into each analysed file.")
    let truePeak = Flag(
        names: ["--true-peak"],
        help: "With --write-tags: the true peak in REPLAYGAIN_TRACK_PEAK instead of the sample peak.")
    let album = Flag(
        names: ["--album"],
        help: "With --write-tags: also ReplayGain 2.0 album gain and peak, one album per folder.")
    let keyNotation = SharedOptions.keyNotation(
        "Key written by --write-tags and in rekordbox/traktor: standard (Am, F#; default), camelot (8A) or openkey (1m).")
    let timeout = Option.positiveSeconds(
        names: ["--timeout"], value: "seconds",
        help: "Time limit per input (default: 60 s plus half the audio's duration).")
    let memoryLimit = Option<Int>(
        names: ["--memory-limit"], value: "mb", help: "Memory per worker process in MB (default: 4096).",
        range: 64...1_048_576)
    let noProgress = Flag(names: ["--no-progress"], help: "No progress bar or periodic progress lines on stderr (the summary stays).")
    let force = Flag(names: ["--force"], help: "With --output, analyse every input again even when its report is current.")
    let shard = Option<Shard>(
        names: ["--shard"], value: "k/n",
        help: "Take only share K of N of the inputs (stable hash of each path relative to its folder).",
        parsing: { (text) throws(Shard.ParseError) in try Shard(parsing: text) })
    let tempoRange = Option<ClosedRange<Double>>(
        names: ["--tempo-range"], value: "low-high",
        help: "Fold the tempo by octaves into this BPM range, e.g. 70-140 (at least an octave wide).",
        parsing: { (text) throws(TempoRangeError) in try RhythmAnalyzer.Configuration().parseFoldedTempoRange(text) })
    let configuration = Option<AnalysisConfiguration>(
        names: ["--configuration"], value: "file",
        help: "JSON file of settings that differ from the defaults (docs/configuration.md)."
    ) { (text, name) throws(UsageError) in
        // Read through a file handle, so a pipe (`--configuration <(...)`, /dev/stdin) works too.
        // At most `maximumSize` bytes are read: /dev/zero or an endless pipe is refused, not buffered.
        let limit = AnalysisConfiguration.maximumSize
        guard let handle = FileHandle(forReadingAtPath: text), let data = try? handle.read(upToCount: limit + 1) ?? Data() else {
            throw UsageError(description: "cannot read \(name) file '\(text)'")
        }
        guard data.count <= limit else {
            throw UsageError(description: "\(name) file '\(text)' is larger than \(limit / 1024) KB: a configuration holds only the settings that differ")
        }
        do throws(ConfigurationError) { return try AnalysisConfiguration(overridingDefaultsWith: data) } catch {
            throw UsageError(description: "\(name) \(text): \(error)")
        }
    }
    let allowProtocols = Option<Set<String>>(
        names: ["--allow-protocols"], value: "list",
        help: "Also open inputs of these protocols or devices, e.g. http,https (default: files, folders and '-' only)."
    ) {
        (text, name) throws(UsageError) -> Set<String> in
        let names = Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty })
        guard !names.isEmpty else { throw UsageError.invalidValue(text, for: name, expected: "a comma-separated list such as http,https") }
        return names
    }
    let progressInterval = Option.positiveSeconds(
        names: ["--progress-interval"], value: "s",
        help: "Seconds between plain progress lines when stderr is not a terminal (default 30).")
    let frameRate = SharedOptions.frameRate()
    let markers = SharedOptions.markers()
}

/// `cadenza analyze PATH...`: parses the options, runs a ``BatchJob`` and prints its progress,
/// errors and summary. The batch policy (counts, output folder, cancellation, exit status) is the library's.
enum AnalyzeCommand {
    static let spec = CommandSpec<AnalyzeOptions>(
        name: "analyze",
        abstract: "Analyse audio files and folders (recursively).",
        operands: "<path>...",
        discussion: """
            Inputs are files, folders (walked recursively; audio is found by extension or by probing the \
            content) or '-' for an encoded stream on standard input. Each input gives one report, or an \
            error record naming the file and the reason; the batch always goes on.
            Output: one JSON report per line on stdout in completion order (NDJSON), or with --output one \
            file per input, DIR/<input path>.json (standard input: DIR/stdin.json). With --output a rerun \
            resumes: inputs whose report is current (same file size and modification time, same analyses \
            and version) are kept, the rest are analysed; --force analyses all.
            Progress: a bar on stderr when it is a terminal, otherwise a plain line every 30 s; a summary at the end.
            --format json: one pretty JSON array of all reports on stdout (DIR/<input>.json pretty with --output); \
            csv: a header and one row per input (path, duration, bpm, beats_per_bar, key, camelot, integrated_lufs, \
            loudness_range_lu, true_peak_dbtp, error; DIR/<input>.csv); jams: one JAMS document per line \
            (DIR/<input>.jams); labels: an Audacity/Sonic Visualiser label track with beats, bars, sections \
            and keys merged (DIR/<input>.beats.txt, .bars.txt, .sections.txt, .key.txt); fcpxml, edl, kdenlive: \
            markers for Final Cut Pro, DaVinci Resolve, Kdenlive (--frame-rate, --markers); rekordbox, traktor: \
            a DJ collection with grid and cues (docs/formats.md). labels, edl and kdenlive hold one track: \
            several inputs need --output. 'cadenza export' converts saved reports to any format.
            Each input is analysed in a worker process: one that crashes, runs past --timeout or past \
            --memory-limit gets an error record (crashed, timedOut, outOfMemory) and the batch goes on.
            Exit status: 0 all inputs analysed, 1 some inputs failed, 2 usage error, 3 the output could not be \
            written (closed pipe, full disk: the batch stops, finished reports are kept), 130 interrupted.
            """)

    static func run(_ arguments: [String]) async -> Int32 {
        let args = Cadenza.parse(arguments, spec)
        let requested = args[\.analyses] ?? []
        if let missing = AnalysisType.allCases.first(where: { requested.contains($0) && !$0.isAvailable }) {
            Cadenza.usageFailure(AnalysisError.unavailable(missing).description + " (--for accepts \(availableAnalyses))", spec)
        }
        if args.positionals.isEmpty { Cadenza.usageFailure("no input: give at least one file or folder", spec) }

        let format = args[\.format] ?? .ndjson
        var writer: FormattedReportWriter?
        if format != .ndjson {
            if let dir = args[\.output] {
                do throws(BatchError) { try BatchJob.prepareOutputFolder(dir) } catch {
                    Cadenza.usageFailure(error.description.replacingOccurrences(of: "cannot write to ", with: "cannot write to --output "), spec)
                }
            }
            let options = ExportOptions(
                frameRate: args[\.frameRate] ?? .pal, markers: args[\.markers] ?? [.sections, .bars],
                keyNotation: args[\.keyNotation] ?? .standard)
            writer = FormattedReportWriter(
                format: format, destination: args[\.output].map { .directory($0) } ?? .stream(fileDescriptor: STDOUT_FILENO),
                options: options)
        }
        let sink: ReportSink = writer.map { .formatted($0) } ?? args[\.output].map { .directory($0) } ?? .ndjson(fileDescriptor: STDOUT_FILENO)
        if args[\.force] && args[\.output] == nil { Cadenza.usageFailure("--force needs --output (it redoes reports kept in the folder)", spec) }
        let job: BatchJob
        // Tags go in before the report is written, which then records the tagged file's stamp.
        if args[\.album] && !args[\.writeTags] { Cadenza.usageFailure("--album needs --write-tags (it writes album gain tags)", spec) }
        let tagger =
            args[\.writeTags]
            ? BatchTagger(keyNotation: args[\.keyNotation] ?? .standard, peak: args[\.truePeak] ? .truePeak : .sample) : nil
        var finishing: (@Sendable (Report) -> Report)?
        if let tagger { finishing = { report in tagger.tag(report) } }
        let types = requested.isEmpty ? AnalysisType.available : requested
        let jobs = args[\.jobs] ?? ProcessInfo.processInfo.activeProcessorCount
        var limits = WorkerLimits(timeout: args[\.timeout])
        if let mb = args[\.memoryLimit] { limits.memoryBytes = UInt64(mb) << 20 }
        // Every input is analysed in a worker process (this executable, `cadenza worker`).
        var configuration = args[\.configuration] ?? AnalysisConfiguration()
        if let range = args[\.tempoRange] { configuration.rhythm.level.foldedTempoRange = range }
        let producer = Bundle.main.executablePath.map {
            ProcessReportProducer(executable: $0, types: types, configuration: configuration, workers: jobs, limits: limits)
        }
        do throws(BatchError) {
            job = try BatchJob(
                paths: args.positionals, types: types, configuration: configuration, jobs: jobs, sink: sink,
                producer: producer, force: args[\.force], shard: args[\.shard], allowedProtocols: args[\.allowProtocols] ?? [], beforeWriting: finishing)
        } catch {
            switch error {
            case .unusableOutputFolder(let dir, let reason):
                // Found before any analysis runs, instead of one write error per input afterwards.
                Cadenza.usageFailure("cannot write to --output \(dir): \(reason)", spec)
            }
        }
        if format.isSingleTrack, args[\.output] == nil, job.inputs.count > 1 {
            Cadenza.usageFailure("--format \(format.rawValue) holds one track: give --output <dir> for \(job.inputs.count) inputs", spec)
        }
        if let dir = args[\.output], job.discoveredInputs == 0, args.positionals.allSatisfy({ isInside($0, folder: dir) }) {
            Cadenza.usageFailure("nothing to analyse: \(sanitized(dir)) is the --output folder, whose reports are never inputs", spec)
        }
        if job.discoveredInputs == 0 { printError("warning: no audio inputs found in \(sanitized(args.positionals.joined(separator: " ")))") }
        let mode: ProgressDisplay.Mode =
            args[\.noProgress]
            ? .quiet
            : isatty(STDERR_FILENO) == 1 ? .bar : .lines(interval: args[\.progressInterval] ?? 30)
        let progress = ProgressDisplay(total: job.inputs.count, mode: mode)

        // The job itself ends within a second of cancellation, even when an input stalls.
        let interrupt = SignalWatcher(signal: SIGINT) {
            job.cancel()
            tagger?.cancel()
        }
        let terminate = SignalWatcher(signal: SIGTERM) {
            job.cancel()
            tagger?.cancel()
        }
        if args[\.album], let tagger { tagger.groupAlbums(job.inputs) }
        let summary = await job.run { event in
            if case .planned(let plan) = event, let tagger {
                // A kept report's tags are written when the file lacks them: a failed tagging
                // is retried, and --write-tags added to an analysed folder tags it.
                for input in plan.current {
                    for message in tagger.tagKept(input, reportPath: job.reportPath(for: input), sink: sink) { printError(message) }
                }
            }
            if case .inputFinished(let path, let report, let writeError) = event {
                if let writeError {
                    progress.clear()
                    printError("error: \(sanitized(path)): cannot write report: \(sanitized(writeError.description))")
                }
                // Every failed input is named on stderr, whatever the output (an NDJSON or CSV
                // consumer gets the error record too, a person watching the terminal the reason).
                if let error = report.error {
                    progress.clear()
                    printError("error: \(sanitized(error.message))")
                }
                if let failure = tagger?.takeFailure(path) {
                    progress.clear()
                    printError("error: \(sanitized(failure))")
                }
            }
            progress.record(event)
        }
        interrupt.stop()
        terminate.stop()
        // The workers are reaped here, not left to exit after this process (their CPU time then
        // counts as this process's children's).
        producer?.stopWorkers()
        // Album tags changed files whose reports were written before: their reports get the new stamp.
        for message in tagger?.finish(reportPath: { job.reportPath(for: $0) }, sink: sink) ?? [] { printError(message) }
        let totals = progress.finish()
        do throws(ReportSink.WriteError) { try writer?.finish() } catch { printError("error: cannot write output: \(sanitized(error.description))") }
        if let failure = summary.outputFailure, !summary.interrupted {
            printError("error: \(sanitized(failure.path)) cannot be written (\(failure.reason)): stopped after \(summary.done) of \(summary.inputs) inputs")
        }
        printError(ProgressDisplay.summary(totals, interrupted: summary.interrupted, notTagged: tagger?.failures ?? 0))
        if let tagger, tagger.failures > 0, summary.exitStatus == 0 { return 1 }
        return summary.exitStatus
    }
}

/// Whether `path` is `folder` or lies inside it (symbolic links resolved).
func isInside(_ path: String, folder: String) -> Bool {
    func resolved(_ p: String) -> String { URL(fileURLWithPath: p).standardizedFileURL.resolvingSymlinksInPath().path }
    let inner = resolved(path), outer = resolved(folder)
    return inner == outer || inner.hasPrefix(outer.hasSuffix("/") ? outer : outer + "/")
}
