import Foundation

/// The headline values of reports as CSV (RFC 4180): one header line, then one row per input,
/// lines ending in CRLF, a field quoted (with `"` doubled) when it holds a comma, a quote, CR or LF.
///
/// Columns: `path, duration, bpm, beats_per_bar, key, camelot, integrated_lufs,
/// loudness_range_lu, true_peak_dbtp, error`. An empty field is a value that was not measured (an
/// analysis not asked for, no beat grid, no key); silence's integrated loudness is `-inf`. Seconds
/// and levels are written with three decimals, the key as `F# major`.
public enum CSVTable {
    /// The column names.
    public static let columns = [
        "path", "duration", "bpm", "beats_per_bar", "key", "camelot",
        "integrated_lufs", "loudness_range_lu", "true_peak_dbtp", "error",
    ]

    /// The header line, CRLF included.
    public static var header: String { line(columns) }

    /// The row of one report, CRLF included.
    public static func row(_ report: Report) -> String {
        let h = ReportHeadline(report)
        return line([
            h.path,
            number(h.duration),
            number(h.beatsPerMinute),
            h.beatsPerBar.map(String.init) ?? "",
            h.key?.name ?? "",
            h.key?.camelot ?? "",
            number(h.integratedLoudness),
            number(h.loudnessRange),
            number(h.truePeak),
            h.error?.message ?? "",
        ])
    }

    /// Fields joined by commas, each quoted when it needs to be, and CRLF.
    public static func line(_ fields: [String]) -> String {
        fields.map(quoted).joined(separator: ",") + "\r\n"
    }

    /// A field as RFC 4180 §2 rules 6–7 write it.
    public static func quoted(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Three decimals, `-inf`/`inf` for infinities, empty for `nil` or NaN.
    static func number(_ value: Double?) -> String {
        guard let value, !value.isNaN else { return "" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        return String(format: "%.3f", value + 0)
    }
}
