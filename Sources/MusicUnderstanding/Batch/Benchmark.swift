import Foundation

/// Measures how fast each stage runs on one file, single-threaded, for `cadenza bench`.
public struct Benchmark: Sendable {
    /// One measured stage.
    public struct Measurement: Sendable {
        /// What was measured.
        public var name: String
        /// Process CPU seconds (user + system).
        public var cpuSeconds: Double
        /// Wall-clock seconds.
        public var wallSeconds: Double
        /// Audio duration divided by CPU seconds.
        public var realTimeFactor: Double
    }

    /// The file measured.
    public var path: String
    /// Repetitions per stage; the fastest is kept.
    public var repetitions: Int

    /// Creates a benchmark.
    public init(path: String, repetitions: Int = 3) {
        self.path = path
        self.repetitions = max(1, repetitions)
    }

    /// Duration of the file in seconds, by decoding it once.
    public func duration() throws -> Double {
        let decoder = try AudioDecoder(path: path)
        var frames = 0
        while let buffer = try decoder.read() { frames += buffer.frameCount }
        return Double(frames) / Double(decoder.sampleRate)
    }

    /// Decoding alone (FFmpeg to float PCM at the native rate).
    public func measureDecode(duration: Double) async throws -> Measurement {
        try await fastest("decode", duration: duration, clock: Self.processCPUTime) {
            let decoder = try AudioDecoder(path: path)
            while try decoder.read() != nil {}
        }
    }

    /// Decoding plus the analyses `types`, as `analyze` runs them.
    public func measureAnalysis(_ types: Set<AnalysisType>, duration: Double) async throws -> Measurement {
        let name = "decode + " + AnalysisType.allCases.filter(types.contains).map(\.rawValue).joined(separator: " + ")
        return try await fastest(name, duration: duration, clock: Self.processCPUTime) {
            let session = try MusicUnderstandingSession(path: path)
            _ = try await session.analyze(for: types)
        }
    }

    /// Runs an external command (a peer tool) and measures its CPU time.
    public func measureCommand(_ name: String, executable: String, arguments: [String], duration: Double) async throws -> Measurement {
        try await fastest(name, duration: duration, clock: Self.childrenCPUTime) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
        }
    }

    /// Runs `body` `repetitions` times and keeps the run with the least CPU time on `clock`.
    private func fastest(
        _ name: String, duration: Double, clock: () -> Double,
        _ body: () async throws -> Void
    ) async throws -> Measurement {
        var best = Measurement(name: name, cpuSeconds: .infinity, wallSeconds: 0, realTimeFactor: 0)
        for _ in 0..<repetitions {
            let (cpu0, wall0) = (clock(), Date())
            try await body()
            let cpu = clock() - cpu0
            if cpu < best.cpuSeconds {
                best.cpuSeconds = cpu
                best.wallSeconds = Date().timeIntervalSince(wall0)
            }
        }
        best.realTimeFactor = duration / max(best.cpuSeconds, 1e-9)
        return best
    }

    static func processCPUTime() -> Double { cpuTime(RUSAGE_SELF.rawValue) }
    static func childrenCPUTime() -> Double { cpuTime(RUSAGE_CHILDREN.rawValue) }

    private static func cpuTime(_ who: Int32) -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(who), &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}
