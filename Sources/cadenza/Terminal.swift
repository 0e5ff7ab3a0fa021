import Dispatch
import Foundation
import MusicUnderstanding
import Synchronization

/// Progress of `cadenza analyze` on standard error, drawn from the library's ``BatchProgress``:
/// a one-line bar (done/total, failures, audio hours per wall hour, ETA, last file) redrawn in
/// place when stderr is a terminal; otherwise one plain line every `interval` seconds (for cluster
/// logs); nothing with `.quiet`. File names are shown with control characters escaped.
final class ProgressDisplay: Sendable {
    enum Mode: Sendable { case bar, lines(interval: Double), quiet }

    private struct State {
        var progress: BatchProgress
        var lastLength = 0
        var lastDraw = Date.distantPast
        var finished = false
    }
    private let mode: Mode
    private let state: Locked<State>
    /// Signalled by ``finish()`` to end the ticking thread.
    private let stop = DispatchSemaphore(value: 0)

    init(total: Int, mode: Mode) {
        self.mode = mode
        state = Locked(State(progress: BatchProgress(total: total)))
        let period: Double
        switch mode {
        case .bar: period = 0.5
        case .lines(let interval): period = max(0.05, interval)
        case .quiet: return
        }
        let stop = self.stop
        Thread.detachNewThread { [weak self] in
            while stop.wait(timeout: .now() + period) == .timedOut { self?.tick() }
        }
    }

    /// Takes a batch event into account and redraws the bar (at most ten times a second).
    func record(_ event: BatchEvent) {
        state.withLock { s in
            s.progress.record(event)
            if case .bar = mode, Date().timeIntervalSince(s.lastDraw) >= 0.1 { draw(&s) }
        }
    }

    /// Removes the bar so that a message can be printed; it comes back at the next update.
    func clear() {
        state.withLock { s in clearLine(&s) }
    }

    /// Stops updating and removes the bar. Returns the final totals.
    func finish() -> BatchProgress {
        stop.signal()
        return state.withLock { s in
            s.finished = true
            clearLine(&s)
            return s.progress
        }
    }

    private func tick() {
        state.withLock { s in
            guard !s.finished else { return }
            switch mode {
            case .bar: draw(&s)
            case .lines: printError("cadenza: " + Self.status(s.progress))
            case .quiet: break
            }
        }
    }

    private func clearLine(_ s: inout State) {
        guard case .bar = mode, s.lastLength > 0 else { return }
        StandardStreams.writeError("\r" + String(repeating: " ", count: s.lastLength) + "\r")
        s.lastLength = 0
    }

    private func draw(_ s: inout State) {
        guard !s.finished else { return }
        s.lastDraw = Date()
        let p = s.progress
        let width = 20
        let filled = min(width, Int(p.fraction * Double(width)))
        let bar =
            String(repeating: "=", count: filled) + (filled < width ? ">" : "")
            + String(repeating: " ", count: max(0, width - filled - 1))
        var line = "[\(bar)] " + Self.status(p)
        if let last = p.lastPath { line += " " + sanitized((last as NSString).lastPathComponent) }
        let columns = Self.terminalColumns()
        if line.count > columns - 1 { line = String(line.prefix(columns - 1)) }
        let pad = max(0, s.lastLength - line.count)
        StandardStreams.writeError("\r" + line + String(repeating: " ", count: pad))
        s.lastLength = line.count
    }

    /// `12/40 done, 1 failed, 312 audio h/h, ETA 0:42`.
    static func status(_ p: BatchProgress) -> String {
        var text = "\(p.done)/\(p.total) done"
        if p.failed > 0 { text += ", \(p.failed) failed" }
        if p.skipped > 0 { text += ", \(p.skipped) current" }
        if let rate = p.audioHoursPerWallHour() { text += ", " + rateText(rate) }
        text += ", ETA " + (p.secondsLeft().map(clock) ?? "--:--")
        return text
    }

    /// The summary printed at the end of every run.
    static func summary(_ p: BatchProgress, interrupted: Bool, notTagged: Int = 0) -> String {
        let analysed = p.done - p.skipped
        var text = interrupted ? "interrupted: \(p.done) of \(p.total) inputs analysed" : "cadenza: \(p.total) inputs"
        text += "; \(analysed) analysed now"
        if p.skipped > 0 { text += ", \(p.skipped) current (kept)" }
        text += ", \(p.failed) failed"
        if notTagged > 0 { text += ", \(notTagged) not tagged" }
        text += "; audio " + clock(p.audioSeconds) + " in " + clock(p.elapsed())
        if let rate = p.audioHoursPerWallHour() { text += " (" + rateText(rate) + ")" }
        return text
    }

    /// `312 audio h/h`, `2.5 audio h/h`.
    static func rateText(_ rate: Double) -> String {
        (rate < 10 ? String(format: "%.1f", rate) : String(Int(rate.rounded()))) + " audio h/h"
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(max(0, seconds).rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }

    static func terminalColumns() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 10 { return Int(size.ws_col) }
        return 80
    }
}

/// `text` with every control character written as `\xNN` (``TerminalText/escapingControlCharacters(_:)``).
func sanitized(_ text: String) -> String { TerminalText.escapingControlCharacters(text) }

/// Runs a handler when a signal arrives (instead of the default action of ending the process).
final class SignalWatcher {
    private let source: any DispatchSourceSignal
    private let signalNumber: Int32

    init(signal signalNumber: Int32, handler: @escaping @Sendable () -> Void) {
        self.signalNumber = signalNumber
        signal(signalNumber, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
        source.setEventHandler(handler: handler)
        source.resume()
    }

    func stop() {
        source.cancel()
        signal(signalNumber, SIG_DFL)
    }
}
