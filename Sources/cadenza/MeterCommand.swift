import Foundation
import MusicUnderstanding

/// The options of `cadenza meter`, declared once.
struct MeterOptions: OptionGroup {
    let format = Option<RawPCMFormat.SampleFormat>(names: ["--format", "-f"], value: "fmt",
                                                   help: "Raw PCM on the input: f32le or s16le (needs --rate and --channels).",
                                                   expected: "f32le or s16le")
    let rate = Option<Int>(names: ["--rate", "-r"], value: "hz", help: "Sample rate of raw PCM input (4000 to 768000).",
                           range: AudioDecoder.supportedSampleRates)
    let channels = Option<Int>(names: ["--channels", "-c"], value: "n", help: "Interleaved channels of raw PCM input.", range: 1...64)
    let ndjson = Flag(names: ["--ndjson"], help: "Print NDJSON even when stdout is a terminal.")
}

/// `cadenza meter [PATH|-]`
enum MeterCommand {
    static let spec = CommandSpec<MeterOptions>(
        name: "meter",
        abstract: "Live EBU R128 loudness: one line per 100 ms of audio.",
        usage: "cadenza meter [--format f32le|s16le --rate <hz> --channels <n>] [--ndjson] [PATH|-]",
        discussion: """
            The input is '-' (standard input, the default) or anything FFmpeg opens (a file, a URL, a device). \
            Without --format it is decoded by FFmpeg; with --format it is headerless PCM.
            Each 100 ms gives one NDJSON line {"time", "momentary", "shortTerm", "integrated", \
            "loudnessRange", "truePeak"} (LUFS, LU, dBTP; null where minus infinity or not yet defined); \
            on a terminal a live display instead. At end of input or Ctrl-C a summary goes to stderr.
            Exit status: 0 end of input or Ctrl-C, 1 the input failed, 2 usage error, 3 standard output \
            could not be written (closed pipe, full disk): the meter stops at once.
            """)

    static func run(_ arguments: [String]) async -> Int32 {
        let args = Cadenza.parse(arguments, spec)
        if args.positionals.count > 1 { Cadenza.usageFailure("meter takes one input", spec) }
        let path = args.positionals.first ?? "-"
        var raw: RawPCMFormat?
        if let format = args[\.format] {
            guard let rate = args[\.rate], let channels = args[\.channels] else {
                Cadenza.usageFailure("--format needs --rate and --channels", spec)
            }
            raw = RawPCMFormat(sampleFormat: format, sampleRate: rate, channels: channels)
        } else if args[\.rate] != nil || args[\.channels] != nil {
            Cadenza.usageFailure("--rate and --channels describe raw PCM: give --format too", spec)
        }

        let session: MusicUnderstandingSession
        do {
            // Only the live steps are printed: the meter keeps no series (constant memory).
            var configuration = AnalysisConfiguration()
            configuration.loudness.keepsSeries = false
            session = try MusicUnderstandingSession(path: path, rawFormat: raw, configuration: configuration)
        } catch {
            printError("error: \(error)")
            return 1
        }
        let display = (isatty(STDOUT_FILENO) == 1 && !args[\.ndjson]) ? LiveDisplay() : nil
        let latest = Locked<LoudnessResult?>(nil)
        let interrupt = SignalWatcher(signal: SIGINT) {
            Task { await session.cancel() }
            // A stalled input (no data arriving) cannot notice the cancellation: end anyway.
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
                if let last = latest.withLock({ $0 }) { printError(summary(last)) }
                exit(0)
            }
        }
        let outputFailure = Locked<String?>(nil)
        let printer = Task { () -> LoudnessResult? in
            do {
                for try await step in session.loudnessResults {
                    latest.withLock { $0 = step }
                    if let failure = display.map({ $0.show(step) }) ?? emitLine(step) {
                        // stdout is gone (closed pipe, full disk): stop the meter now.
                        outputFailure.withLock { $0 = failure }
                        await session.cancel()
                        break
                    }
                }
            } catch {}
            return latest.withLock { $0 }
        }
        var status: Int32 = 0
        do {
            try await session.analyze(for: [.loudness])
        } catch AnalysisError.cancelled {
            status = 0
        } catch {
            printError("error: \(error)")
            status = 1
        }
        let last = await printer.value
        interrupt.stop()
        if let last { printError(summary(last)) }
        if let failure = outputFailure.withLock({ $0 }) {
            printError("error: cannot write to standard output: \(failure); the meter stopped")
            return StandardStreams.outputFailedStatus
        }
        return status
    }

    static func level(_ v: Float) -> String { v.isFinite ? String(format: "%.1f", v) : "-inf" }

    static func summary(_ r: LoudnessResult) -> String {
        """
        Summary (\(String(format: "%.1f", r.integrated.time)) s):
          Integrated loudness: \(level(r.integrated.value)) LUFS
          Loudness range:      \(level(r.loudnessRange)) LU
          True peak:           \(level(r.truePeak)) dBTP
          Sample peak:         \(level(r.peak.value)) dBFS
        """
    }

    static func json(_ v: Float) -> String {
        v.isFinite ? String(format: "%.2f", v) : "null"
    }

    /// Writes one NDJSON line; the system's reason when stdout cannot take it.
    static func emitLine(_ r: LoudnessResult) -> String? {
        let m = r.momentary.last?.value ?? -.infinity
        let s = r.shortTerm.last?.value ?? -.infinity
        let line = "{\"time\":\(String(format: "%.1f", r.integrated.time)),\"momentary\":\(json(m)),\"shortTerm\":\(json(s)),\"integrated\":\(json(r.integrated.value)),\"loudnessRange\":\(json(r.loudnessRange)),\"truePeak\":\(json(r.truePeak))}\n"
        return StandardStreams.writeOutput(line)
    }
}

/// A live bar display of the meter on a terminal.
final class LiveDisplay: Sendable {
    private let drawn = Locked(false)

    /// Redraws the display; the system's reason when stdout cannot take it.
    func show(_ r: LoudnessResult) -> String? {
        let m = r.momentary.last?.value ?? -.infinity
        let s = r.shortTerm.last?.value ?? -.infinity
        var text = drawn.withLock { d in
            defer { d = true }
            return d ? "\u{1B}[5A" : ""
        }
        text += row("Momentary", m, "LUFS") + row("Short-term", s, "LUFS") + row("Integrated", r.integrated.value, "LUFS")
        text += "\u{1B}[2K  Range      \(MeterCommand.level(r.loudnessRange).leftPad(6)) LU\n"
        text += "\u{1B}[2K  True peak  \(MeterCommand.level(r.truePeak).leftPad(6)) dBTP    t = \(String(format: "%.1f", r.integrated.time)) s\n"
        return StandardStreams.writeOutput(text)
    }

    private func row(_ label: String, _ v: Float, _ unit: String) -> String {
        // Bar from -60 to 0 LUFS, 40 cells.
        let cells = v.isFinite ? max(0, min(40, Int(((v + 60) / 60 * 40).rounded()))) : 0
        let bar = String(repeating: "#", count: cells) + String(repeating: ".", count: 40 - cells)
        return "\u{1B}[2K  \(label.padding(toLength: 10, withPad: " ", startingAt: 0)) \(MeterCommand.level(v).leftPad(6)) \(unit) |\(bar)|\n"
    }
}

extension String {
    func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}

import Synchronization
