import Foundation
import Testing
@testable import MusicUnderstanding

/// `cadenza meter` as a person watches it: playback speed with `--realtime`, and the terminal
/// display (dB scale, target, colours unless NO_COLOR, held maxima, overs) under a pseudo-terminal.
@Suite struct MeterDisplayTests {
    /// 1.5 s of a 1 kHz sine at 8 kHz, mono f32le (raw PCM for `--format f32le`).
    static let rawSine: Data = {
        var data = Data()
        for i in 0..<12_000 {
            let v = Float(0.5 * sin(2 * Double.pi * 1000 * Double(i) / 8000))
            withUnsafeBytes(of: v.bitPattern.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }()

    @Test func realtimeReadsAtPlaybackSpeedAndPrintsTheSameLines() async throws {
        let raw = ["meter", "--format", "f32le", "--rate", "8000", "--channels", "1"]
        let fast = try await CLI.run(raw + ["-"], stdin: Self.rawSine)
        let clock = ContinuousClock()
        let start = clock.now
        let paced = try await CLI.run(raw + ["--realtime", "-"], stdin: Self.rawSine)
        let elapsed = clock.now - start
        #expect(fast.status == 0 && paced.status == 0, "\(paced.err)")
        #expect(paced.out == fast.out)
        #expect(paced.out.split(separator: "\n").count == 15)
        // 1.5 s of audio cannot be shown at playback speed in much less than its duration.
        #expect(elapsed >= .milliseconds(1200), "\(elapsed)")
    }

    /// Runs the meter under `script` (a pseudo-terminal), so that it draws its display.
    static func onTerminal(_ extra: [String], environment: [String: String]) throws -> String? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), let binary = CLI.executable else { return nil }
        let command = ([binary.path, "meter"] + extra + ["Fixtures/tone_alac.m4a"]).joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        process.currentDirectoryURL = CLI.packageRoot
        var env = ProcessInfo.processInfo.environment
        env["TERM"] = "xterm"
        env["NO_COLOR"] = nil
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test func terminalDisplayShowsScaleTargetAndColoursUnlessNoColor() throws {
        guard let coloured = try Self.onTerminal(["--target", "-14"], environment: [:]),
            let plain = try Self.onTerminal(["--target", "-14"], environment: ["NO_COLOR": "1"])
        else { return }
        for text in [coloured, plain] {
            #expect(text.contains("target -14.0 LUFS"))
            #expect(text.contains("-60") && text.contains("-30"), "the dB scale")
            #expect(text.contains("against the target"))
            #expect(text.contains("max "), "held maxima")
            #expect(!text.contains("{\"time\""), "a terminal gets the display, not NDJSON")
        }
        #expect(coloured.contains("\u{1B}[32m"), "levels below the target are green")
        #expect(!plain.contains("\u{1B}[32m") && !plain.contains("\u{1B}[31m"), "NO_COLOR draws no colour")
    }
}
