import CSQLite
import Foundation

/// Why the catalog database could not be used.
public enum CatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// SQLite refused: the database file, the operation and SQLite's message.
    case database(path: String, operation: String, message: String)
    /// A report folder cannot be read.
    case unreadableFolder(path: String, reason: String)

    public var description: String {
        switch self {
        case .database(let path, let operation, let message): "\(path): \(operation): \(message)"
        case .unreadableFolder(let path, let reason): "cannot read \(path): \(reason)"
        }
    }
}

/// A value bound to or read from SQLite.
enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// The system SQLite library (`libsqlite3`) behind a thin wrapper: one connection, owned by one
/// ``CatalogIndex``. The only code that touches SQLite's C pointers.
final class SQLiteDatabase {
    private var handle: OpaquePointer?
    let path: String

    /// Opens (creating when missing) the database at `path`, waiting up to 10 s for a lock.
    init(path: String, readOnly: Bool = false) throws(CatalogError) {
        self.path = path
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let status = sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close(handle)
            handle = nil
            throw .database(path: path, operation: "open", message: message)
        }
        sqlite3_busy_timeout(handle, 10_000)
    }

    deinit { sqlite3_close(handle) }

    private func failure(_ operation: String) -> CatalogError {
        .database(path: path, operation: operation, message: handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed")
    }

    /// Runs statements without results (`;`-separated).
    func execute(_ sql: String) throws(CatalogError) {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw failure(String(sql.prefix(60))) }
    }

    /// A prepared statement for `sql`.
    func prepare(_ sql: String) throws(CatalogError) -> SQLiteStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw failure("prepare " + String(sql.prefix(60)))
        }
        return SQLiteStatement(statement, database: self)
    }

    /// Runs `body` in one transaction (`BEGIN IMMEDIATE` … `COMMIT`), rolled back when it throws.
    func transaction<T>(_ body: () throws(CatalogError) -> T) throws(CatalogError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    fileprivate func stepFailure(_ operation: String) -> CatalogError { failure(operation) }
}

/// One prepared statement of a ``SQLiteDatabase``.
final class SQLiteStatement {
    private let statement: OpaquePointer
    private let database: SQLiteDatabase

    fileprivate init(_ statement: OpaquePointer, database: SQLiteDatabase) {
        self.statement = statement
        self.database = database
    }

    deinit { sqlite3_finalize(statement) }

    /// Binds `values` to the parameters 1, 2, … after a reset.
    func bind(_ values: [SQLiteValue]) throws(CatalogError) {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(statement, index)
            case .integer(let v): status = sqlite3_bind_int64(statement, index, v)
            case .real(let v): status = v.isFinite ? sqlite3_bind_double(statement, index, v) : sqlite3_bind_null(statement, index)
            case .text(let v):
                // With its byte length, so a NUL inside the text (possible in a report's JSON
                // strings) does not cut it short.
                // Over SQLite's length limit (1 GB by default) the bind fails with SQLITE_TOOBIG.
                let bytes = Int32(clamping: v.utf8.count)
                status = v.withCString { cadenza_sqlite3_bind_text(statement, index, $0, bytes) }
            }
            guard status == SQLITE_OK else { throw database.stepFailure("bind") }
        }
    }

    /// Runs the statement to the end (an insert, update or delete).
    func run(_ values: [SQLiteValue] = []) throws(CatalogError) {
        try bind(values)
        let status = sqlite3_step(statement)
        guard status == SQLITE_DONE || status == SQLITE_ROW else { throw database.stepFailure("step") }
    }

    /// Runs a query and returns every row, each a list of column values.
    func rows(_ values: [SQLiteValue] = []) throws(CatalogError) -> [[SQLiteValue]] {
        try bind(values)
        var rows: [[SQLiteValue]] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else { throw database.stepFailure("query") }
            var row: [SQLiteValue] = []
            for column in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, column)))
                case SQLITE_TEXT, SQLITE_BLOB:
                    if let text = sqlite3_column_text(statement, column) {
                        let count = Int(sqlite3_column_bytes(statement, column))
                        row.append(.text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)))
                    } else {
                        row.append(.null)
                    }
                default: row.append(.null)
                }
            }
            rows.append(row)
        }
        sqlite3_reset(statement)
        return rows
    }
}

extension SQLiteValue {
    var text: String? { if case .text(let v) = self { v } else { nil } }
    var double: Double? {
        switch self {
        case .real(let v): v
        case .integer(let v): Double(v)
        default: nil
        }
    }
    var integer: Int? {
        switch self {
        case .integer(let v): Int(v)
        case .real(let v): Int(v)
        default: nil
        }
    }
}
