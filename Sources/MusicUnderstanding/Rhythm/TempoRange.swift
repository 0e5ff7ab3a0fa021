import Foundation

/// Why a tempo range (``RhythmAnalyzer/Configuration/LevelSettings/foldedTempoRange``) is unusable.
public enum TempoRangeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not two numbers joined by `-` (`70-140`).
    case malformed(String)
    /// The range leaves the tempi the analysis tracks (``RhythmAnalyzer/Configuration/TempoSettings/minimumBPM``
    /// ... ``RhythmAnalyzer/Configuration/TempoSettings/maximumBPM``).
    case outside(ClosedRange<Double>, tracked: ClosedRange<Double>)
    /// The range spans less than an octave, so some tempi have no octave inside it.
    case narrowerThanAnOctave(ClosedRange<Double>)

    public var description: String {
        func text(_ r: ClosedRange<Double>) -> String { "\(format(r.lowerBound))-\(format(r.upperBound))" }
        switch self {
        case .malformed(let s): return "invalid tempo range '\(s)': expected LOW-HIGH in BPM, e.g. 70-140"
        case .outside(let r, let tracked): return "tempo range \(text(r)) leaves the tracked tempi \(text(tracked)) BPM"
        case .narrowerThanAnOctave(let r): return "tempo range \(text(r)) spans less than an octave (HIGH must be at least 2 x LOW)"
        }
    }

    private func format(_ v: Double) -> String { v == v.rounded() && v.magnitude < 1e15 ? String(Int(v)) : String(v) }
}

extension RhythmAnalyzer.Configuration {
    /// Checks `range` as a ``LevelSettings/foldedTempoRange`` for this configuration: inside
    /// ``TempoSettings/minimumBPM``...``TempoSettings/maximumBPM`` and at least an octave wide.
    public func validate(foldedTempoRange range: ClosedRange<Double>) throws(TempoRangeError) {
        let tracked = tempo.minimumBPM...tempo.maximumBPM
        guard range.lowerBound >= tracked.lowerBound, range.upperBound <= tracked.upperBound else {
            throw .outside(range, tracked: tracked)
        }
        guard range.upperBound >= 2 * range.lowerBound - 1e-9 else { throw .narrowerThanAnOctave(range) }
    }

    /// Parses `LOW-HIGH` (BPM, e.g. `70-140`, as the `--tempo-range` option spells it) and checks
    /// it with ``validate(foldedTempoRange:)``.
    public func parseFoldedTempoRange(_ text: String) throws(TempoRangeError) -> ClosedRange<Double> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let low = Double(parts[0]), let high = Double(parts[1]),
            low.isFinite, high.isFinite, low > 0, low <= high
        else { throw .malformed(text) }
        try validate(foldedTempoRange: low...high)
        return low...high
    }
}
