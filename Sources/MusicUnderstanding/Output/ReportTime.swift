import Foundation

/// Times and tempi read from a report, as the exporters write them. A report file is untrusted
/// input (`cadenza export` and `cadenza plot` read what anyone wrote): a finite number in it can
/// still be far beyond what an integer frame, millisecond or BPM count holds, so each exporter
/// checks it here before it turns it into an integer.
enum ReportTime {
    /// The longest time an exporter writes, seconds (10^7, about 116 days: longer than any audio
    /// file). A report's times beyond it are corrupt or hostile and are left out of the export.
    static let maximumSeconds: Double = 1e7

    /// The largest tempo written as an integer BPM tag (beyond any music's).
    static let maximumBeatsPerMinute: Double = 100_000

    /// Whether `seconds` is a time an exporter writes: finite and within `0 ... maximumSeconds`.
    static func isWritable(_ seconds: Double) -> Bool { seconds.isFinite && seconds >= 0 && seconds <= maximumSeconds }

    /// `beatsPerMinute` rounded to a whole BPM, or nil when it is not positive, finite and at most
    /// ``maximumBeatsPerMinute``.
    static func wholeBeatsPerMinute(_ beatsPerMinute: Double) -> Int? {
        beatsPerMinute.isFinite && beatsPerMinute > 0 && beatsPerMinute <= maximumBeatsPerMinute ? Int(beatsPerMinute.rounded()) : nil
    }

    /// `seconds` rounded to whole seconds, or nil when it is not a writable time (``isWritable(_:)``).
    static func wholeSeconds(_ seconds: Double) -> Int? { isWritable(seconds) ? Int(seconds.rounded()) : nil }
}
