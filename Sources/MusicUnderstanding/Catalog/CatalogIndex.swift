import Foundation

/// A searchable index of report folders in one SQLite file (`cadenza index OUTDIR… --db catalog.sqlite`,
/// `cadenza query`): one row per report file with the headline values and the whole report.
///
/// ```swift
/// let index = try CatalogIndex(path: "catalog.sqlite")
/// let update = try index.update(reportFolders: ["reports"])      // touches only changed reports
/// let tracks = try index.entries(matching: CatalogQuery(bpm: 118...126, camelot: CamelotCode(parsing: "8A"), compatible: true))
/// ```
///
/// The table, for plain SQL (`sqlite3 catalog.sqlite "select path, bpm from tracks where camelot = '8A'"`):
///
/// | column | type | meaning |
/// |---|---|---|
/// | `report_file` | TEXT PRIMARY KEY | absolute path of the report file |
/// | `path` | TEXT | `source.path`, the input as it was given to `analyze` |
/// | `report_size`, `report_modified` | INTEGER, TEXT | the report file's stamp (incremental updates) |
/// | `duration` | REAL | seconds |
/// | `bpm`, `beats_per_bar` | REAL, INTEGER | tempo and meter (NULL without a beat grid) |
/// | `key`, `camelot` | TEXT | main key (`A minor`) and its Camelot code (`8A`); NULL without a key |
/// | `integrated_lufs`, `loudness_range_lu`, `true_peak_dbtp` | REAL | EBU R128 (NULL for silence's minus infinity) |
/// | `sections` | INTEGER | number of structure sections |
/// | `error_code`, `error_message` | TEXT | the error record's, NULL for a report |
/// | `warning` | TEXT | the report's warning (damaged input) |
/// | `analyzer_version`, `analyses` | TEXT | what made the report (`0.4.0`, `key,rhythm,loudness`) |
/// | `source_modified`, `source_size` | TEXT, INTEGER | the input file's stamp when analysed |
/// | `report` | TEXT | the whole report, one JSON line (`json_extract(report, '$.rhythm.beats')`) |
///
/// Updates run in transactions of at most 500 rows, so a killed update leaves the file valid and
/// the next one carries on; rows whose report file disappeared from a folder that is indexed
/// again are deleted.
public final class CatalogIndex {
    /// The schema, created when missing.
    public static let schema = """
        CREATE TABLE IF NOT EXISTS tracks (
          report_file TEXT PRIMARY KEY,
          path TEXT NOT NULL,
          report_size INTEGER NOT NULL,
          report_modified TEXT NOT NULL,
          duration REAL,
          bpm REAL,
          beats_per_bar INTEGER,
          key TEXT,
          camelot TEXT,
          integrated_lufs REAL,
          loudness_range_lu REAL,
          true_peak_dbtp REAL,
          sections INTEGER,
          error_code TEXT,
          error_message TEXT,
          warning TEXT,
          analyzer_version TEXT,
          analyses TEXT,
          source_modified TEXT,
          source_size INTEGER,
          report TEXT NOT NULL,
          energy INTEGER
        );
        CREATE INDEX IF NOT EXISTS tracks_path ON tracks(path);
        CREATE INDEX IF NOT EXISTS tracks_bpm ON tracks(bpm);
        CREATE INDEX IF NOT EXISTS tracks_camelot ON tracks(camelot);
        """

    /// Rows written per transaction.
    public static let transactionSize = 500

    private let database: SQLiteDatabase
    /// Whether the table has the `energy` column (an index made before it has none until it is
    /// opened for writing, e.g. by `cadenza index`, which adds and fills it).
    private var hasEnergy: Bool
    /// The database file.
    public var path: String { database.path }

    /// Opens the index at `path`, creating the file and its table when missing.
    /// With `readOnly` nothing is created or changed (queries).
    public init(path: String, readOnly: Bool = false) throws(CatalogError) {
        database = try SQLiteDatabase(path: path, readOnly: readOnly)
        if !readOnly { try database.execute(Self.schema) }
        hasEnergy = try database.prepare("PRAGMA table_info(tracks)").rows().contains { $0.count > 1 && $0[1].text == "energy" }
        if !readOnly && !hasEnergy { try addEnergyColumn() }
    }

    /// Adds the `energy` column to an index made before it and fills it from the stored reports.
    private func addEnergyColumn() throws(CatalogError) {
        try database.execute("ALTER TABLE tracks ADD COLUMN energy INTEGER")
        hasEnergy = true
        let rows = try database.prepare("SELECT report_file, report FROM tracks").rows()
        let set = try database.prepare("UPDATE tracks SET energy = ? WHERE report_file = ?")
        try database.transaction { () throws(CatalogError) in
            for row in rows {
                guard row.count == 2, let file = row[0].text, let text = row[1].text,
                    let report = try? JSONLineDecoder().decode(Report.self, from: Data(text.utf8)),
                    let level = EnergyLevel.level(of: report)
                else { continue }
                try set.run([.integer(Int64(level)), .text(file)])
            }
        }
    }

    /// Brings the index up to date with the reports (`*.json`, hidden files skipped) in
    /// `reportFolders` and their subfolders: new reports are added, changed ones (size or
    /// modification time of the report file) replaced, rows of reports gone from those folders
    /// deleted; unchanged reports are not read at all.
    ///
    /// - Throws: ``CatalogError`` when a folder cannot be read or the database refuses a write
    ///   (rows committed before stay).
    public func update(reportFolders: [String]) throws(CatalogError) -> CatalogUpdate {
        var known: [String: FileStamp] = [:]
        for row in try database.prepare("SELECT report_file, report_size, report_modified FROM tracks").rows() {
            if let file = row[0].text, let size = row[1].integer, let modified = row[2].text {
                known[file] = FileStamp(size: Int64(size), modified: modified)
            }
        }
        var update = CatalogUpdate()
        var pending: [(file: String, stamp: FileStamp, report: Report, line: Data)] = []
        var gone: [String] = []
        let upsert = try database.prepare(
            """
            INSERT OR REPLACE INTO tracks (report_file, path, report_size, report_modified, duration, bpm, beats_per_bar,
              key, camelot, integrated_lufs, loudness_range_lu, true_peak_dbtp, sections, error_code, error_message,
              warning, analyzer_version, analyses, source_modified, source_size, report, energy)
            VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
            """)
        let delete = try database.prepare("DELETE FROM tracks WHERE report_file = ?")
        func flush() throws(CatalogError) {
            guard !pending.isEmpty || !gone.isEmpty else { return }
            try database.transaction { () throws(CatalogError) in
                for item in pending { try upsert.run(Self.row(file: item.file, stamp: item.stamp, report: item.report, line: item.line)) }
                for file in gone { try delete.run([.text(file)]) }
            }
            pending.removeAll(keepingCapacity: true)
            gone.removeAll()
        }
        for folder in reportFolders {
            let root = URL(fileURLWithPath: folder).standardizedFileURL.path
            var seen = Set<String>()
            for file in try Self.reportFiles(in: root) {
                seen.insert(file)
                guard let stamp = FileStamp.of(path: file) else { continue }
                if known[file] == stamp { update.unchanged += 1; continue }
                guard let (report, data) = Report.read(file: file) else {
                    update.notReports.append(file)
                    if known[file] != nil { gone.append(file) }
                    continue
                }
                var line = data
                while let last = line.last, last == 0x0A || last == 0x0D || last == 0x20 { line.removeLast() }
                if known[file] == nil { update.added += 1 } else { update.updated += 1 }
                pending.append((file, stamp, report, line))
                if pending.count + gone.count >= Self.transactionSize { try flush() }
            }
            let prefix = root.hasSuffix("/") ? root : root + "/"
            for file in known.keys where file.hasPrefix(prefix) && !seen.contains(file) {
                gone.append(file)
                update.removed += 1
                known[file] = nil
            }
        }
        try flush()
        return update
    }

    /// The rows matching `query`, ordered by ``CatalogQuery/sort`` (then path).
    ///
    /// A tempo matches when it lies within ``CatalogQuery/bpmTolerance`` of the range (by default
    /// its BPM rounded to a whole number does, as DJ software shows it: 120 matches 119.96), and
    /// with ``CatalogQuery/halfAndDoubleTime`` also when half or twice it does.
    public func entries(matching query: CatalogQuery = CatalogQuery()) throws(CatalogError) -> [CatalogEntry] {
        var conditions: [String] = []
        var values: [SQLiteValue] = []
        if let bpm = query.bpm {
            let tolerance = max(0, query.bpmTolerance.isFinite ? query.bpmTolerance : 0)
            let factors: [Double] = query.halfAndDoubleTime ? [1, 0.5, 2] : [1]
            // Half time: the track's tempo is half the range's (its double is inside), and so on.
            conditions.append("(" + factors.map { _ in "(bpm * ? >= ? AND bpm * ? < ?)" }.joined(separator: " OR ") + ")")
            for factor in factors {
                values += [.real(1 / factor), .real(bpm.lowerBound - tolerance), .real(1 / factor), .real(bpm.upperBound + tolerance)]
            }
        }
        if query.sort == .energy && !hasEnergy {
            throw .database(path: path, operation: "sort by energy", message: "the index has no energy levels yet: run 'cadenza index' on it again")
        }
        if let camelot = query.camelot {
            let codes = query.compatible ? camelot.compatible : [camelot]
            conditions.append("camelot IN (" + codes.map { _ in "?" }.joined(separator: ",") + ")")
            values += codes.map { .text($0.description) }
        }
        if !query.includeErrors { conditions.append("error_code IS NULL") }
        var sql = "SELECT " + CatalogEntry.columns.joined(separator: ", ") + (hasEnergy ? ", energy" : ", NULL") + " FROM tracks"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        switch query.sort {
        case .path: sql += " ORDER BY path, report_file"
        case .bpm: sql += " ORDER BY bpm IS NULL, bpm, path, report_file"
        // The Camelot wheel's order: 1A, 1B, 2A ... 12B (CAST reads the number before the letter).
        case .key: sql += " ORDER BY camelot IS NULL, CAST(camelot AS INTEGER), camelot, path, report_file"
        case .energy: sql += " ORDER BY energy IS NULL, energy, path, report_file"
        }
        if let limit = query.limit { sql += " LIMIT \(max(0, limit))" }
        return try database.prepare(sql).rows(values).map(CatalogEntry.init(row:))
    }

    /// The whole report stored for `reportFile` (one JSON line), or nil.
    public func report(reportFile: String) throws(CatalogError) -> Data? {
        try database.prepare("SELECT report FROM tracks WHERE report_file = ?").rows([.text(reportFile)]).first?.first?.text.map { Data($0.utf8) }
    }

    /// Every report file below `root` (sorted), hidden files and folders skipped.
    static func reportFiles(in root: String) throws(CatalogError) -> [String] {
        // Raw names (FilePath): reports of inputs whose names are not UTF-8 are named so too.
        guard (try? FilePath.status(root).get())?.isDirectory == true else {
            throw .unreadableFolder(path: root, reason: "not a folder")
        }
        var files: [String] = []
        var stack = [root]
        while let dir = stack.popLast() {
            let names: [String]
            switch FilePath.contentsOfDirectory(dir) {
            case .success(let found): names = found
            case .failure(let error): throw .unreadableFolder(path: dir, reason: error.description)
            }
            for name in names where !name.hasPrefix(".") {
                let path = dir + "/" + name
                var info = stat()
                guard lstat(FilePath.cString(path), &info) == 0 else { continue }
                if info.st_mode & S_IFMT == S_IFDIR { stack.append(path); continue }
                if info.st_mode & S_IFMT == S_IFREG, name.hasSuffix(".json") { files.append(path) }
            }
        }
        return files.sorted()
    }

    static func row(file: String, stamp: FileStamp, report: Report, line: Data) -> [SQLiteValue] {
        let h = ReportHeadline(report)
        func real(_ v: Double?) -> SQLiteValue { v.map { .real($0) } ?? .null }
        func text(_ v: String?) -> SQLiteValue { v.map { .text($0) } ?? .null }
        func integer(_ v: Int?) -> SQLiteValue { v.map { .integer(Int64($0)) } ?? .null }
        return [
            .text(file), .text(report.source.path), .integer(stamp.size), .text(stamp.modified),
            real(h.duration), real(h.beatsPerMinute), integer(h.beatsPerBar),
            text(h.key?.name), text(h.key?.camelot),
            real(h.integratedLoudness), real(h.loudnessRange), real(h.truePeak),
            integer(report.result?.structure?.sections.count),
            text(h.error?.code), text(h.error?.message), text(h.warning),
            text(report.analyzer?.version), text(report.analyzer?.analyses.joined(separator: ",")),
            text(report.source.modified), report.source.size.map { .integer($0) } ?? .null,
            .text(String(decoding: line, as: UTF8.self)),
            integer(EnergyLevel.level(of: report)),
        ]
    }
}

/// What ``CatalogIndex/update(reportFolders:)`` did.
public struct CatalogUpdate: Sendable, Hashable {
    /// Reports new to the index.
    public var added = 0
    /// Reports whose file changed and were read again.
    public var updated = 0
    /// Rows deleted because their report file is gone.
    public var removed = 0
    /// Reports not read because their file did not change.
    public var unchanged = 0
    /// `.json` files that are no report (not indexed).
    public var notReports: [String] = []

    /// Creates an empty update.
    public init() {}
}

/// Which rows ``CatalogIndex/entries(matching:)`` returns.
public struct CatalogQuery: Sendable, Hashable {
    /// Tempo range in BPM (inclusive); nil for any.
    public var bpm: ClosedRange<Double>?
    /// The key wanted, as a Camelot code; nil for any.
    public var camelot: CamelotCode?
    /// With ``camelot``: also the keys that mix with it (``CamelotCode/compatible``).
    public var compatible: Bool
    /// Also list error records (they have no tempo or key, so only without those filters).
    public var includeErrors: Bool
    /// At most this many rows.
    public var limit: Int?
    /// How far outside ``bpm`` a tempo still matches, BPM (default 0.5: the tempo rounded to a
    /// whole number is in the range, so `120` matches 119.96; the upper edge is exclusive).
    public var bpmTolerance: Double = 0.5
    /// With ``bpm``: also tracks at half or double the tempo (a 60 or 240 BPM track for 120).
    public var halfAndDoubleTime = false
    /// The row order.
    public var sort: CatalogSort = .path

    /// Creates a query.
    public init(
        bpm: ClosedRange<Double>? = nil, camelot: CamelotCode? = nil, compatible: Bool = false,
        includeErrors: Bool = false, limit: Int? = nil
    ) {
        self.bpm = bpm
        self.camelot = camelot
        self.compatible = compatible
        self.includeErrors = includeErrors
        self.limit = limit
    }
}

/// The order of ``CatalogIndex/entries(matching:)``'s rows; ties (and rows without the value,
/// last) in path order.
public enum CatalogSort: String, Sendable, CaseIterable {
    /// By path (the default).
    case path
    /// By tempo, slowest first.
    case bpm
    /// Round the Camelot wheel: 1A, 1B, 2A … 12B, so neighbouring keys are neighbours.
    case key
    /// By energy level (``EnergyLevel``), calmest first.
    case energy
}

/// A position on the Camelot wheel: 1–12 and `A` (minor) or `B` (major); `8A` is A minor, `8B` C major.
public struct CamelotCode: Sendable, Hashable, CustomStringConvertible {
    /// 1 … 12: one step is a fifth.
    public let number: Int
    /// `B` (major) or `A` (minor).
    public let isMajor: Bool

    /// The code `number` and major (`B`) or minor (`A`); nil unless 1 ≤ number ≤ 12.
    public init?(number: Int, isMajor: Bool) {
        guard (1...12).contains(number) else { return nil }
        self.number = number
        self.isMajor = isMajor
    }

    /// The code of `key` (``KeyResult/KeySignature/camelot``).
    public init(key: KeyResult.KeySignature) {
        let major = key.mode == .major ? key.tonic.pitchClass : (key.tonic.pitchClass + 3) % 12
        number = (7 * major + 7) % 12 + 1
        isMajor = key.mode == .major
    }

    /// Parses a Camelot code (`8A`, `12b`) or a key name: `A minor`, `Am`, `F# major`, `F#`, `Ebm`, `Bb minor`.
    public init?(parsing text: String) {
        let t = text.trimmingCharacters(in: .whitespaces)
        if let letter = t.last, "AaBb".contains(letter), let n = Int(t.dropLast()) {
            self.init(number: n, isMajor: letter == "B" || letter == "b")
            return
        }
        var name = t.lowercased()
        var minor = false
        for suffix in [" minor", "minor", " min", "min", "m"] where name.hasSuffix(suffix) {
            name = String(name.dropLast(suffix.count))
            minor = true
            break
        }
        if !minor {
            for suffix in [" major", "major", " maj", "maj"] where name.hasSuffix(suffix) {
                name = String(name.dropLast(suffix.count))
                break
            }
        }
        let letters: [Character: Int] = ["c": 0, "d": 2, "e": 4, "f": 5, "g": 7, "a": 9, "b": 11]
        guard let first = name.first, var pitch = letters[first] else { return nil }
        switch name.dropFirst() {
        case "": break
        case "#", "♯", "sharp", " sharp": pitch += 1
        case "b", "♭", "flat", " flat": pitch += 11
        default: return nil
        }
        let major = minor ? (pitch % 12 + 3) % 12 : pitch % 12
        self.init(number: (7 * major + 7) % 12 + 1, isMajor: !minor)
    }

    /// `8A`.
    public var description: String { "\(number)\(isMajor ? "B" : "A")" }

    /// The codes that mix harmonically (Mixed In Key's rule): itself, one step either way round
    /// the wheel (a fifth up or down, same mode) and the relative major or minor (same number).
    public var compatible: [CamelotCode] {
        let up = number % 12 + 1, down = (number + 10) % 12 + 1
        return [self, CamelotCode(unchecked: down, isMajor), CamelotCode(unchecked: up, isMajor), CamelotCode(unchecked: number, !isMajor)]
    }

    private init(unchecked number: Int, _ isMajor: Bool) {
        self.number = number
        self.isMajor = isMajor
    }
}

/// One row of the index, as ``CatalogIndex/entries(matching:)`` returns it and `cadenza query` prints it.
public struct CatalogEntry: Sendable, Hashable, Codable {
    /// The input as given to `analyze` (`source.path`).
    public var path: String
    /// The report file.
    public var reportFile: String
    /// Seconds.
    public var duration: Double?
    /// Tempo.
    public var bpm: Double?
    /// Meter.
    public var beatsPerBar: Int?
    /// Main key, `A minor`.
    public var key: String?
    /// Its Camelot code, `8A`.
    public var camelot: String?
    /// Integrated loudness, LUFS (nil for silence or not analysed).
    public var integratedLoudness: Double?
    /// Loudness range, LU.
    public var loudnessRange: Double?
    /// True peak, dBTP.
    public var truePeak: Double?
    /// Number of structure sections.
    public var sections: Int?
    /// The error record's code.
    public var errorCode: String?
    /// The error record's message.
    public var errorMessage: String?
    /// Energy level 1–10 (``EnergyLevel``); nil without the analyses it needs.
    public var energy: Int?

    /// The columns read, in ``init(row:)`` order.
    static let columns = [
        "path", "report_file", "duration", "bpm", "beats_per_bar", "key", "camelot", "integrated_lufs",
        "loudness_range_lu", "true_peak_dbtp", "sections", "error_code", "error_message",
    ]

    init(row: [SQLiteValue]) {
        func at(_ i: Int) -> SQLiteValue { i < row.count ? row[i] : .null }
        path = at(0).text ?? ""
        reportFile = at(1).text ?? ""
        duration = at(2).double
        bpm = at(3).double
        beatsPerBar = at(4).integer
        key = at(5).text
        camelot = at(6).text
        integratedLoudness = at(7).double
        loudnessRange = at(8).double
        truePeak = at(9).double
        sections = at(10).integer
        errorCode = at(11).text
        errorMessage = at(12).text
        energy = at(13).integer
    }
}

/// How `cadenza query` prints rows.
public enum CatalogFormat: String, Sendable, CaseIterable {
    /// Aligned columns for reading (control characters shown as `\xNN`).
    case table
    /// One JSON object per line (sorted keys, ``CatalogEntry`` field names).
    case ndjson
    /// RFC 4180 CSV with a header (the table's columns).
    case csv

    static let headers = [
        "path", "duration", "bpm", "beats_per_bar", "key", "camelot", "integrated_lufs",
        "loudness_range_lu", "true_peak_dbtp", "sections", "energy", "error",
    ]

    /// `entries` in this format, ending in a newline (empty for no rows in ndjson; a header only in csv and table).
    public func render(_ entries: [CatalogEntry]) -> String {
        func number(_ v: Double?, _ digits: Int) -> String { v.map { String(format: "%.\(digits)f", $0) } ?? "" }
        func cells(_ e: CatalogEntry) -> [String] {
            [
                e.path, number(e.duration, 1), number(e.bpm, 1), e.beatsPerBar.map(String.init) ?? "", e.key ?? "", e.camelot ?? "",
                number(e.integratedLoudness, 1), number(e.loudnessRange, 1), number(e.truePeak, 1),
                e.sections.map(String.init) ?? "", e.energy.map(String.init) ?? "", e.errorCode.map { "\($0): \(e.errorMessage ?? "")" } ?? "",
            ]
        }
        switch self {
        case .ndjson:
            return entries.map { entry in
                String(decoding: (try? JSONLineEncoder().encode(entry)) ?? Data("{}".utf8), as: UTF8.self) + "\n"
            }.joined()
        case .csv:
            return CSVTable.line(Self.headers) + entries.map { CSVTable.line(cells($0)) }.joined()
        case .table:
            // Read on a terminal: a control character in a file name is shown as `\xNN`, so it can
            // never move the cursor or retitle the terminal (CSV and NDJSON keep the exact name;
            // NDJSON escapes it as JSON does).
            let rows = [Self.headers] + entries.map { cells($0).map(TerminalText.escapingControlCharacters) }
            var widths = Self.headers.map(\.count)
            for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
            return rows.map { row in
                row.enumerated().map { i, cell in
                    i == row.count - 1 ? cell : cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                }.joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
            }.joined()
        }
    }
}
