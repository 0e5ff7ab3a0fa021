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
    public func measureDecode(duration: Double) throws -> Measurement {
        try measure("decode", duration: duration) {
            let decoder = try AudioDecoder(path: path)
            while try decoder.read() != nil {}
        }
    }

    /// Decoding plus the analyses `types`, as `analyze` runs them.
    public func measureAnalysis(_ types: Set<AnalysisType>, duration: Double) async throws -> Measurement {
        let name = "decode + " + AnalysisType.allCases.filter(types.contains).map(\.rawValue).joined(separator: " + ")
        var best: Measurement?
        for _ in 0..<repetitions {
            let (cpu0, wall0) = (Self.processCPUTime(), Date())
            let session = try MusicUnderstandingSession(path: path)
            _ = try await session.analyze(for: types)
            let m = Measurement(name: name, cpuSeconds: Self.processCPUTime() - cpu0,
                                wallSeconds: Date().timeIntervalSince(wall0), realTimeFactor: 0)
            if best == nil || m.cpuSeconds < best!.cpuSeconds { best = m }
        }
        var m = best ?? Measurement(name: name, cpuSeconds: 0, wallSeconds: 0, realTimeFactor: 0)
        m.realTimeFactor = duration / max(m.cpuSeconds, 1e-9)
        return m
    }

    /// Runs an external command (a peer tool) and measures its CPU time.
    public func measureCommand(_ name: String, executable: String, arguments: [String], duration: Double) throws -> Measurement {
        var best: Measurement?
        for _ in 0..<repetitions {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let (cpu0, wall0) = (Self.childrenCPUTime(), Date())
            try process.run()
            process.waitUntilExit()
            let m = Measurement(name: name, cpuSeconds: Self.childrenCPUTime() - cpu0,
                                wallSeconds: Date().timeIntervalSince(wall0), realTimeFactor: 0)
            if best == nil || m.cpuSeconds < best!.cpuSeconds { best = m }
        }
        var m = best ?? Measurement(name: name, cpuSeconds: 0, wallSeconds: 0, realTimeFactor: 0)
        m.realTimeFactor = duration / max(m.cpuSeconds, 1e-9)
        return m
    }

    private func measure(_ name: String, duration: Double, _ body: () throws -> Void) throws -> Measurement {
        var best: Measurement?
        for _ in 0..<repetitions {
            let (cpu0, wall0) = (Self.processCPUTime(), Date())
            try body()
            let m = Measurement(name: name, cpuSeconds: Self.processCPUTime() - cpu0,
                                wallSeconds: Date().timeIntervalSince(wall0), realTimeFactor: 0)
            if best == nil || m.cpuSeconds < best!.cpuSeconds { best = m }
        }
        var m = best ?? Measurement(name: name, cpuSeconds: 0, wallSeconds: 0, realTimeFactor: 0)
        m.realTimeFactor = duration / max(m.cpuSeconds, 1e-9)
        return m
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
