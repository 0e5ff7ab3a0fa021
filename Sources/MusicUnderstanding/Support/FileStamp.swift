import Foundation

/// A file's size and modification time, as recorded in a report's `source` (``SourceInfo/size``,
/// ``SourceInfo/modified``) and compared by a resumed batch.
public struct FileStamp: Sendable, Hashable {
    /// Size in bytes.
    public var size: Int64
    /// Modification time, ISO 8601 UTC with nanoseconds: `2026-12-01T12:27:13.123456789Z`.
    public var modified: String

    /// Creates a stamp from its parts.
    public init(size: Int64, modified: String) {
        self.size = size
        self.modified = modified
    }

    /// The stamp of a file's status (`stat`).
    public init(_ info: stat) {
        self.init(size: Int64(info.st_size), modified: Self.iso8601(seconds: Int(info.st_mtim.tv_sec), nanoseconds: Int(info.st_mtim.tv_nsec)))
    }

    /// The stamp of the file at `path` now (following symbolic links), or nil when it cannot be
    /// read (missing, no permission) or `path` is standard input ("-").
    public static func of(path: String) -> FileStamp? {
        guard path != "-" else { return nil }
        var info = stat()
        guard stat(FilePath.cString(path), &info) == 0 else { return nil }
        return FileStamp(info)
    }

    /// `seconds` and `nanoseconds` since 1970 as `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ` (proleptic
    /// Gregorian calendar, UTC; civil-from-days after Hinnant, "chrono-compatible low-level date algorithms").
    static func iso8601(seconds: Int, nanoseconds: Int) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%09dZ", year, month, day,
            secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60, nanoseconds)
    }
}
