import Foundation

/// The worker side of ``ProcessReportProducer``: a long-lived process (`cadenza worker`) that
/// reads `A` frames (paths) on standard input and answers each with `P` progress frames and one
/// `R` report frame on standard output (``WorkerFrame``), until its input closes.
///
/// The process protects its protocol and its parent: standard output is moved to a private
/// descriptor (a stray `print` goes to standard error instead of corrupting frames), SIGINT is
/// ignored (the batch decides when workers stop) and the address space is limited (`RLIMIT_AS`),
/// so that a runaway allocation fails inside the worker instead of exhausting the machine.
public enum ReportWorker {
    /// Environment variable that, set to `1`, enables the fault hooks tests use: an input whose
    /// file name contains `cadenza-fault-crash` crashes the worker, `cadenza-fault-hang` hangs it,
    /// `cadenza-fault-oom` allocates until it is stopped, `cadenza-fault-sigkill` is killed by SIGKILL. Without it such names are ordinary files.
    public static let faultHookVariable = "CADENZA_TEST_FAULTS"

    /// Serves requests until standard input closes; returns the process exit status (0).
    ///
    /// - Parameters:
    ///   - types: the analyses to run on every input (with the default ``AnalysisConfiguration``).
    ///   - addressSpaceLimit: `RLIMIT_AS` in bytes, or nil for none.
    public static func serve(
        types: Set<AnalysisType>, configuration: AnalysisConfiguration = .init(),
        addressSpaceLimit: UInt64?
    ) -> Int32 {
        signal(SIGINT, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        let protocolOut = dup(STDOUT_FILENO)
        dup2(STDERR_FILENO, STDOUT_FILENO)
        if let limit = addressSpaceLimit, mappedBytes().map({ $0 < limit / 2 }) ?? true {
            var value = rlimit(rlim_cur: rlim_t(limit), rlim_max: rlim_t(limit))
            setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &value)
        }
        // Orphaned (the batch was killed): end instead of finishing a hung input for nobody.
        let parent = getppid()
        Thread.detachNewThread {
            while getppid() == parent { usleep(250_000) }
            _exit(0)
        }
        let faults = ProcessInfo.processInfo.environment[faultHookVariable] == "1"
        let analyzer = FileAnalyzer(types: types, configuration: configuration)
        // Ready: the batch starts an input's clock only now, not while this process was starting.
        guard PipeIO.write(protocolOut, WorkerFrame.progress(seconds: 0).encoded) else { return 0 }
        var buffer: [UInt8] = []
        while let frames = PipeIO.readFrames(STDIN_FILENO, buffer: &buffer) {
            for case .analyze(let path) in frames {
                if faults { injectFault(path) }
                var lastSent = Date.distantPast
                // Only the JSON line outlives this statement (the report value is freed before it is sent).
                let line = analyzer.report(path: path) { seconds in
                    let now = Date()
                    guard now.timeIntervalSince(lastSent) >= 0.2 else { return }
                    lastSent = now
                    _ = PipeIO.write(protocolOut, WorkerFrame.progress(seconds: seconds).encoded)
                }.jsonLine()
                guard PipeIO.write(protocolOut, WorkerFrame.reportPrefix(jsonCount: line.count)),
                    PipeIO.write(protocolOut, line)
                else { return 0 }
            }
        }
        return 0
    }

    /// The process's mapped address space (`VmSize`), from `/proc/self/statm`; nil without /proc.
    ///
    /// The limit is skipped when the process already maps half of it or more: then every later
    /// allocation would fail. That is the case under AddressSanitizer, whose shadow memory
    /// reserves terabytes of address space before `main` (the resident-memory limit the batch
    /// polls still applies).
    static func mappedBytes() -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = text.split(separator: " ").first.flatMap({ UInt64($0) })
        else { return nil }
        return pages * UInt64(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The test hooks (only with ``faultHookVariable`` set).
    private static func injectFault(_ path: String) {
        let name = (path as NSString).lastPathComponent
        if name.contains("cadenza-fault-crash") {
            raise(SIGSEGV)
        } else if name.contains("cadenza-fault-sigkill") {
            // What `kill -9` from a user or the system's out-of-memory killer looks like.
            raise(SIGKILL)
        } else if name.contains("cadenza-fault-hang") {
            while true { sleep(60) }
        } else if name.contains("cadenza-fault-oom") {
            var hoard: [[UInt8]] = []
            while true {
                hoard.append([UInt8](repeating: UInt8(truncatingIfNeeded: hoard.count), count: 16 << 20))
                if hoard.count % 64 == 0 { FileHandle.standardError.write(Data("\(hoard.count * 16) MB\n".utf8)) }
            }
        }
    }
}
