import Dispatch
import Foundation
import Synchronization

/// A one-line progress bar with ETA on standard error (only used when stderr is a terminal).
final class ProgressBar: Sendable {
    private struct State {
        var done = 0
        var bytesDone: Int64 = 0
        var lastLength = 0
    }
    private let total: Int
    private let sizes: [String: Int64]
    private let totalBytes: Int64
    private let start = Date()
    private let state = Mutex(State())

    init(inputs: [String]) {
        total = inputs.count
        var sizes: [String: Int64] = [:]
        for path in inputs {
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
            sizes[path] = max(1, size)
        }
        self.sizes = sizes
        totalBytes = max(1, sizes.values.reduce(0, +))
        draw(current: "")
    }

    func advance(path: String) {
        state.withLock { s in
            s.done += 1
            s.bytesDone += sizes[path] ?? 1
        }
        draw(current: (path as NSString).lastPathComponent)
    }

    func clear() {
        state.withLock { s in
            StandardStreams.writeError("\r" + String(repeating: " ", count: s.lastLength) + "\r")
            s.lastLength = 0
        }
    }

    func finish() {
        clear()
    }

    private func draw(current: String) {
        state.withLock { s in
            let fraction = Double(s.bytesDone) / Double(totalBytes)
            let width = 24
            let filled = min(width, Int(fraction * Double(width)))
            let bar = String(repeating: "=", count: filled) + (filled < width ? ">" : "")
                + String(repeating: " ", count: max(0, width - filled - 1))
            let elapsed = Date().timeIntervalSince(start)
            var eta = "--:--"
            if fraction > 0.001, s.done > 0 {
                let remaining = elapsed / fraction - elapsed
                eta = Self.clock(remaining)
            }
            var line = "[\(bar)] \(s.done)/\(total) \(Int(fraction * 100))% ETA \(eta) \(current)"
            let columns = Self.terminalColumns()
            if line.count > columns - 1 { line = String(line.prefix(columns - 1)) }
            let pad = max(0, s.lastLength - line.count)
            StandardStreams.writeError("\r" + line + String(repeating: " ", count: pad))
            s.lastLength = line.count
        }
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
