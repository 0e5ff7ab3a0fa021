import Foundation
import MusicUnderstanding

/// The options of `cadenza index`, declared once.
struct IndexOptions: OptionGroup {
    let db = Option<String>(names: ["--db"], value: "file", help: "The SQLite index to create or update (required).")
}

/// `cadenza index OUTDIR... --db catalog.sqlite`: builds or updates the index; the work is ``CatalogIndex``'s.
enum IndexCommand {
    static let spec = CommandSpec<IndexOptions>(
        name: "index",
        abstract: "Build or update a SQLite index of report folders (from analyze --output).",
        operands: "<report-folder>...", required: ["--db"],
        discussion: """
            One row per report file in table 'tracks' (path, duration, bpm, beats_per_bar, key, camelot, \
            integrated_lufs, loudness_range_lu, true_peak_dbtp, sections, error_code, ..., report). A rerun reads \
            only new and changed reports and deletes rows of reports that are gone; writes are transactions, \
            so a killed run never corrupts the file. Run it once after all shards have finished.
            Exit status: 0 done, 1 a folder or the database could not be used, 2 usage error.
            """)

    static func run(_ arguments: [String]) async -> Int32 {
        let args = Cadenza.parse(arguments, spec)
        guard let db = args[\.db] else { Cadenza.usageFailure("--db <file> is required", spec) }
        if args.positionals.isEmpty { Cadenza.usageFailure("give at least one report folder", spec) }
        do throws(CatalogError) {
            let index = try CatalogIndex(path: db)
            let update = try index.update(reportFolders: args.positionals)
            for file in update.notReports { printError("warning: \(sanitized(file)): not a report, not indexed") }
            _ = StandardStreams.writeOutput(
                "\(db): \(update.added) added, \(update.updated) updated, \(update.removed) removed, \(update.unchanged) unchanged"
                    + (update.notReports.isEmpty ? "" : ", \(update.notReports.count) not reports") + "\n")
            return 0
        } catch {
            printError("error: \(sanitized(error.description))")
            return 1
        }
    }
}

/// The options of `cadenza query`, declared once.
struct QueryOptions: OptionGroup {
    let bpm = Option<ClosedRange<Double>>(names: ["--bpm"], value: "lo-hi", help: "Tempo range, e.g. 118-126 (or one value).") {
        (text, name) throws(UsageError) in
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard (1...2).contains(parts.count), let low = parts.first ?? nil, let high = parts.last ?? nil, low.isFinite, high.isFinite, low <= high else {
            throw UsageError.invalidValue(text, for: name, expected: "a range like 118-126")
        }
        return low...high
    }
    let key = Option<CamelotCode>(names: ["--key"], value: "key", help: "Camelot code (8A) or key name (A minor, Am, F#).") { (text, name) throws(UsageError) in
        guard let code = CamelotCode(parsing: text) else {
            throw UsageError.invalidValue(text, for: name, expected: "a Camelot code like 8A or a key like 'A minor'")
        }
        return code
    }
    let compatible = Flag(names: ["--compatible"], help: "With --key: also the keys that mix (same code, one step round the wheel, relative major/minor).")
    let errors = Flag(names: ["--errors"], help: "Also list error records.")
    let limit = Option<Int>(names: ["--limit"], value: "n", help: "At most N rows.", range: 0...Int(Int32.max))
    let halfDouble = Flag(names: ["--half-double"], help: "With --bpm: also tracks at half or double the tempo.")
    let sort = Option<CatalogSort>(
        names: ["--sort"], value: "order", help: "Row order: path (default), bpm, key (Camelot wheel 1A, 1B, 2A...) or energy.",
        mistake: "unknown order", expected: "path, bpm, key or energy")
    let format = Option<CatalogFormat>(
        names: ["--format", "-f"], value: "format", help: "table (default), ndjson or csv.",
        mistake: "unknown format", expected: "table, ndjson or csv")
}

/// `cadenza query catalog.sqlite --bpm 118-126 --key 8A --compatible`: prints matching tracks.
enum QueryCommand {
    static let spec = CommandSpec<QueryOptions>(
        name: "query",
        abstract: "List tracks of a catalog index by tempo and key (harmonic mixing).",
        operands: "<db>",
        discussion: """
            Rows are ordered by path, or by --sort. --bpm matches the tempo rounded to a whole number (120 \
            matches 119.96); --half-double also matches half and double tempo. Energy is Cadenza's own level \
            1-10 from loudness, pace and drum density (docs/formats.md). --compatible lists the key given and its neighbours on the Camelot wheel \
            (8A: 8A, 7A, 9A, 8B). Plain SQL on the file works too: sqlite3 catalog.sqlite 'select path, bpm from tracks'.
            Exit status: 0 (also when nothing matches), 1 the index could not be read, 2 usage error, 3 stdout failed.
            """)

    static func run(_ arguments: [String]) async -> Int32 {
        let args = Cadenza.parse(arguments, spec)
        guard args.positionals.count == 1, let db = args.positionals.first else { Cadenza.usageFailure("give exactly one index file", spec) }
        if args[\.compatible] && args[\.key] == nil { Cadenza.usageFailure("--compatible needs --key", spec) }
        guard FileManager.default.fileExists(atPath: db) else {
            printError("error: \(sanitized(db)): no such index (make one with cadenza index)")
            return 1
        }
        do throws(CatalogError) {
            let index = try CatalogIndex(path: db, readOnly: true)
            var query = CatalogQuery(
                bpm: args[\.bpm], camelot: args[\.key], compatible: args[\.compatible],
                includeErrors: args[\.errors], limit: args[\.limit])
            if args[\.halfDouble] && args[\.bpm] == nil { Cadenza.usageFailure("--half-double needs --bpm", spec) }
            query.halfAndDoubleTime = args[\.halfDouble]
            query.sort = args[\.sort] ?? .path
            let entries = try index.entries(matching: query)
            if let reason = StandardStreams.writeOutput((args[\.format] ?? .table).render(entries)) {
                printError("error: cannot write the rows: \(reason)")
                return StandardStreams.outputFailedStatus
            }
            return 0
        } catch {
            printError("error: \(sanitized(error.description))")
            return 1
        }
    }
}
