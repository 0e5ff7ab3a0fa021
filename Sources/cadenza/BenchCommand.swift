import Foundation
import MusicUnderstanding

/// The options of `cadenza bench`, declared once.
struct BenchOptions: OptionGroup {
    let repeats = Option<Int>(
        names: ["--repeat", "-r"], value: "n", help: "Runs per stage; the fastest counts (default 3).",
        range: 1...100)
    let noPeer = Flag(names: ["--no-peer"], help: "Do not run ffmpeg's ebur128 filter for comparison.")
}

/// `cadenza bench FILE`
enum BenchCommand {
    static let spec = CommandSpec<BenchOptions>(
        name: "bench",
        abstract: "Measure analysis speed on one file, beside ffmpeg's ebur128 filter on the same file.",
        operands: "<file>",
        discussion: """
            Every stage runs on one core. Times are process CPU seconds; 'x real time' is the audio \
            duration divided by them. The peer is `ffmpeg -af ebur128=peak=true` (decode included, as ours).
            Prints a Markdown table.
            """)

    static func run(_ arguments: [String]) async -> Int32 {
        let args = Cadenza.parse(arguments, spec)
        guard args.positionals.count == 1, let path = args.positionals.first else {
            Cadenza.usageFailure("bench takes exactly one file", spec)
        }
        let repeats = args[\.repeats] ?? 3
        let bench = Benchmark(path: path, repetitions: repeats)
        do {
            let duration = try bench.duration()
            var rows: [Benchmark.Measurement] = []
            rows.append(try await bench.measureDecode(duration: duration))
            rows.append(try await bench.measureAnalysis([.loudness], duration: duration))
            if !args[\.noPeer], let ffmpeg = which("ffmpeg") {
                rows.append(
                    try await bench.measureCommand(
                        "ffmpeg ebur128=peak=true (peer)", executable: ffmpeg,
                        arguments: ["-nostdin", "-hide_banner", "-threads", "1", "-i", path, "-af", "ebur128=peak=true", "-f", "null", "-"],
                        duration: duration))
            }
            rows.append(try await bench.measureAnalysis([.rhythm], duration: duration))
            rows.append(try await bench.measureAnalysis([.rhythm, .key], duration: duration))
            rows.append(try await bench.measureAnalysis([.rhythm, .structure], duration: duration))
            rows.append(try await bench.measureAnalysis([.rhythm, .pace], duration: duration))
            rows.append(try await bench.measureAnalysis([.rhythm, .instrumentActivity], duration: duration))
            rows.append(try await bench.measureAnalysis([.rhythm, .pace, .instrumentActivity], duration: duration))
            rows.append(try await bench.measureAnalysis(AnalysisType.available, duration: duration))
            print("File: \(path) (\(String(format: "%.1f", duration)) s)\n")
            print("| stage | CPU s | wall s | x real time |")
            print("|---|---:|---:|---:|")
            for r in rows {
                print(
                    "| \(r.name) | \(String(format: "%.3f", r.cpuSeconds)) | \(String(format: "%.3f", r.wallSeconds)) | \(String(format: "%.0f", r.realTimeFactor)) |"
                )
            }
            if let ours = rows.first(where: { $0.name == "decode + loudness" }),
                let peer = rows.first(where: { $0.name.hasPrefix("ffmpeg") })
            {
                print("\nLoudness speed vs ffmpeg ebur128: \(String(format: "%.2f", peer.cpuSeconds / max(ours.cpuSeconds, 1e-9)))x")
            }
            // Issue 9's budget: pace and instrument activity together add at most 50 % to rhythm.
            if let rhythm = rows.first(where: { $0.name == "decode + rhythm" }),
                let both = rows.first(where: { $0.name == "decode + rhythm + pace + instrumentActivity" })
            {
                let added = 100 * (both.cpuSeconds / max(rhythm.cpuSeconds, 1e-9) - 1)
                print("Pace + instrument activity add \(String(format: "%.0f", added)) % to rhythm (budget 50 %)")
            }
            return 0
        } catch {
            printError("error: \(error)")
            return 1
        }
    }

    static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
