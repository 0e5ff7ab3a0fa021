import Foundation
import MusicUnderstanding

/// The options of `cadenza meter`, declared once.
struct MeterOptions: OptionGroup {
    let format = Option<RawPCMFormat.SampleFormat>(
        names: ["--format", "-f"], value: "fmt",
        help: "Raw PCM on the input: f32le or s16le (needs --rate and --channels).",
        expected: "f32le or s16le")
    let rate = Option<Int>(
        names: ["--rate", "-r"], value: "hz", help: "Sample rate of raw PCM input (4000 to 768000).",
        range: AudioDecoder.supportedSampleRates)
    let channels = Option<Int>(names: ["--channels", "-c"], value: "n", help: "Interleaved channels of raw PCM input.", range: 1...64)
    let ndjson = Flag(names: ["--ndjson"], help: "Print NDJSON even when stdout is a terminal.")
    let target = Option<Double>(
        names: ["--target", "-t"], value: "lufs",
        help: "Target loudness the display measures against: -23 (EBU R128, default), -24 (ATSC A/85), -16 or -14 (streaming)."
    ) {
        (text, name) throws(UsageError) -> Double in
        guard let lufs = Double(text), lufs.isFinite, (-70.0...0.0).contains(lufs) else {
            throw UsageError.invalidValue(text, for: name, expected: "a loudness in LUFS from -70 to 0")
        }
        return lufs
    }
    let realtime = Flag(names: ["--realtime"], help: "Read the input at playback speed, so that a person can watch a file (live inputs already are).")
}

/// `cadenza meter [PATH|-]`
enum MeterCommand {
    static let spec = CommandSpec<MeterOptions>(
        name: "meter",
        abstract: "Live EBU R128 loudness: one line per 100 ms of audio.",
        operands: "[<path>|-]",
        discussion: """
            The input is '-' (standard input, the default) or anything FFmpeg opens (a file, a URL, a device). \
            Without --format it is decoded by FFmpeg; with --format it is headerless PCM.
            Each 100 ms gives one NDJSON line {"time", "momentary", "shortTerm", "integrated", \
            "loudnessRange", "truePeak"} (LUFS, LU, dBTP; null where minus infinity or not yet defined); \
            on a terminal a live display instead: bars on a dB scale from -60 to 0 LUFS with the target \
            marked, coloured against the target (green up to it, yellow up to 3 LU above, red beyond; \
            NO_COLOR turns colours off), the maximum momentary and short-term levels held, the \
            integrated level against the target, and the true-peak overs (100 ms steps in which the \
            true peak rose above -1 dBTP, the EBU R128 ceiling). --realtime paces a file at playback \
            speed. At end of input or Ctrl-C a summary goes to stderr.
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
            if args[\.realtime] {
                let paced = try PacedInput(path: path, rawFormat: raw)
                session = MusicUnderstandingSession(audioProvider: paced.buffers(), configuration: configuration)
            } else {
                session = try MusicUnderstandingSession(path: path, rawFormat: raw, configuration: configuration)
            }
        } catch {
            printError("error: \(error)")
            return 1
        }
        let colour =
            (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
            && ProcessInfo.processInfo.environment["TERM"] != "dumb"
        let display =
            (isatty(STDOUT_FILENO) == 1 && !args[\.ndjson])
            ? LiveDisplay(target: Float(args[\.target] ?? -23), colour: colour) : nil
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
        // Subscribed here, before the run starts: a printer task that starts late (a busy
        // machine) would otherwise subscribe after the first steps and never print them.
        let subscription = session.loudnessResults.makeAsyncIterator()
        let printer = Task { () -> LoudnessResult? in
            var steps = subscription
            do {
                while let step = try await steps.next() {
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
        let line =
            "{\"time\":\(String(format: "%.1f", r.integrated.time)),\"momentary\":\(json(m)),\"shortTerm\":\(json(s)),\"integrated\":\(json(r.integrated.value)),\"loudnessRange\":\(json(r.loudnessRange)),\"truePeak\":\(json(r.truePeak))}\n"
        return StandardStreams.writeOutput(line)
    }
}

/// A live bar display of the meter on a terminal: three level bars on a dB scale, held maxima,
/// the integrated level against the target, and the true-peak overs.
final class LiveDisplay: Sendable {
    private struct State {
        var drawn = false
        var maxMomentary = -Float.infinity
        var maxShortTerm = -Float.infinity
        var overs = 0
        var lastTruePeak = -Float.infinity
    }
    /// The target loudness, LUFS.
    let target: Float
    /// Whether ANSI colours are drawn.
    let colour: Bool
    private let state = Locked(State())

    /// Bar range: −60 to 0 LUFS in 48 cells of 1.25 LU (a tick every 10 LU is 8 cells).
    static let floor: Float = -60
    static let cells = 48
    /// The EBU R128 maximum permitted true peak, dBTP: a step whose true peak rises above it is an over.
    static let truePeakCeiling: Float = -1
    /// Above the target by more than this (LU) a bar is red; up to it, yellow.
    static let warningSpan: Float = 3

    init(target: Float, colour: Bool) {
        self.target = target
        self.colour = colour
    }

    /// Takes one step into the held values, then redraws; the system's reason when stdout cannot take it.
    func show(_ r: LoudnessResult) -> String? {
        let m = r.momentary.last?.value ?? -.infinity
        let s = r.shortTerm.last?.value ?? -.infinity
        let held = state.withLock { st -> State in
            let before = st
            st.drawn = true
            st.maxMomentary = max(st.maxMomentary, m)
            st.maxShortTerm = max(st.maxShortTerm, s)
            if r.truePeak > Self.truePeakCeiling, r.truePeak > st.lastTruePeak { st.overs += 1 }
            st.lastTruePeak = max(st.lastTruePeak, r.truePeak)
            var out = st
            out.drawn = before.drawn
            return out
        }
        var text = held.drawn ? "\u{1B}[7A" : ""
        text += "\u{1B}[2K  target \(MeterCommand.level(target)) LUFS   \(scale())\n"
        text += row("Momentary", m, max: held.maxMomentary) + row("Short-term", s, max: held.maxShortTerm)
        text += row("Integrated", r.integrated.value, max: nil)
        let deviation =
            r.integrated.value.isFinite
            ? String(format: "%+.1f LU against the target", r.integrated.value - target) : "not yet measured"
        text += "\u{1B}[2K  Integrated \(deviation)\n"
        text += "\u{1B}[2K  Range      \(MeterCommand.level(r.loudnessRange).leftPad(6)) LU\n"
        let overs = held.overs == 0 ? "no overs" : paint("\(held.overs) over\(held.overs == 1 ? "" : "s") above -1 dBTP", red: true)
        text += "\u{1B}[2K  True peak  \(MeterCommand.level(r.truePeak).leftPad(6)) dBTP    \(overs)    t = \(String(format: "%.1f", r.integrated.time)) s\n"
        return StandardStreams.writeOutput(text)
    }

    /// The dB scale above the bars: a label every 10 LU over the 48 cells.
    func scale() -> String {
        var line = [Character](repeating: " ", count: Self.cells + 2)
        for level in stride(from: -60, through: 0, by: 10) {
            let label = Array(String(level))
            let at = cell(Float(level)) + 1 - label.count / 2
            for (k, ch) in label.enumerated() where at + k >= 0 && at + k < line.count { line[at + k] = ch }
        }
        return String(repeating: " ", count: 14) + String(line)
    }

    /// The cell of a level on the bar (0 at −60 LUFS, `cells` at 0 LUFS).
    func cell(_ level: Float) -> Int {
        guard level.isFinite else { return 0 }
        return max(0, min(Self.cells, Int(((level - Self.floor) / -Self.floor * Float(Self.cells)).rounded())))
    }

    /// One bar: filled cells coloured against the target (one colour code per run of cells), the
    /// target cell marked `:` when empty.
    func bar(_ v: Float) -> String {
        let filled = cell(v), targetCell = max(1, cell(target))
        var out = ""
        var open: String?
        for c in 1...Self.cells {
            let level = Self.floor + Float(c) * -Self.floor / Float(Self.cells)
            if c <= filled {
                if colour {
                    let code = level <= target ? "32" : level <= target + Self.warningSpan ? "33" : "31"
                    if code != open { out += "\u{1B}[\(code)m"; open = code }
                }
                out += "#"
            } else {
                if open != nil { out += "\u{1B}[0m"; open = nil }
                out += c == targetCell ? ":" : "."
            }
        }
        if open != nil { out += "\u{1B}[0m" }
        return out
    }

    private func paint(_ text: String, red: Bool) -> String {
        colour && red ? "\u{1B}[31m\(text)\u{1B}[0m" : text
    }

    private func row(_ label: String, _ v: Float, max held: Float?) -> String {
        let hold = held.map { "  max \(MeterCommand.level($0).leftPad(6))" } ?? ""
        return "\u{1B}[2K  \(label.padding(toLength: 10, withPad: " ", startingAt: 0)) \(MeterCommand.level(v).leftPad(6)) LUFS |\(bar(v))|\(hold)\n"
    }
}

/// A file read at playback speed for `cadenza meter --realtime`: the decoder hands out a buffer
/// only when the wall clock has reached its start, so a person watching sees the levels as the
/// audio would play (memory stays one buffer).
final class PacedInput: @unchecked Sendable {
    // Used by one task at a time (the provider's iteration); the decoder is not Sendable.
    private let decoder: AudioDecoder
    private var played = 0.0

    init(path: String, rawFormat: RawPCMFormat?) throws {
        do { decoder = try AudioDecoder(path: path, rawFormat: rawFormat) } catch { throw AnalysisError.decoding(error) }
    }

    /// The buffers, each released when its start time has come; `nil` ends the input (also on
    /// a read error, after printing it).
    func buffers() -> AsyncStream<PCMBuffer?> {
        let clock = ContinuousClock()
        let start = clock.now
        return AsyncStream(unfolding: { [self] in
            let buffer: PCMBuffer?
            do { buffer = try decoder.read() } catch {
                printError("error: \(error)")
                return nil
            }
            guard let buffer else { return nil }
            try? await clock.sleep(until: start + .milliseconds(Int64(played * 1000)))
            played += Double(buffer.frameCount) / buffer.sampleRate
            return .some(buffer)
        })
    }
}

extension String {
    func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}

import Synchronization
