package import CloudSyncModel

/// The SQL a store speaks, where the engines differ (docs/architecture.md, "One store, two engines").
package enum SQLDialect: Sendable, Equatable {
    /// A store file: the personal store, and each patient's store of a clinic on one machine.
    case sqlite
    /// A clinic's PostgreSQL: every patient's rows in the same tables, each row carrying its owner.
    case postgres
}

extension SQLDialect {
    /// The smaller of two values, NULL only when both are (SQLite's two-value `min` is NULL when one
    /// side is; PostgreSQL's `LEAST` skips a NULL).
    package func least(_ a: String, _ b: String) -> String {
        self == .sqlite ? "coalesce(min(\(a), \(b)), \(a), \(b))" : "LEAST(\(a), \(b))"
    }

    /// The larger of two values, NULL only when both are.
    package func greatest(_ a: String, _ b: String) -> String {
        self == .sqlite ? "coalesce(max(\(a), \(b)), \(a), \(b))" : "GREATEST(\(a), \(b))"
    }

    /// The columns of a unique key as `ON CONFLICT (…)` names them: on PostgreSQL every key starts
    /// with the row's owner (`PostgresStoreSchema`).
    package func conflictTarget(_ columns: String) -> String { self == .sqlite ? columns : "owner, " + columns }

    /// `INSERT OR IGNORE` on SQLite; on PostgreSQL `INSERT`, and the statement ends with
    /// `ignoringConflicts`. For the hot path: SQLite's upsert form (`ON CONFLICT DO NOTHING`, which
    /// both engines read and the rest of the store writes) cost 200 instructions a metric more (callgrind).
    package var insertOrIgnore: String { self == .sqlite ? "INSERT OR IGNORE" : "INSERT" }
    package var ignoringConflicts: String { self == .sqlite ? "" : "ON CONFLICT DO NOTHING" }

    /// The member `key` of a row's metadata members (`extra`: a JSON object's members without its
    /// braces, or NULL), as text; NULL when absent.
    package func metadataMember(_ extra: String, _ key: String) -> String {
        self == .sqlite ? "json_extract('{' || ifnull(\(extra), '') || '}', '$.\(key)')"
                        : "((('{' || coalesce(\(extra), '') || '}')::json) ->> '\(key)')"
    }

    /// `expression` as a floating-point number.
    package func real(_ expression: String) -> String {
        self == .sqlite ? "CAST(\(expression) AS REAL)" : "CAST(\(expression) AS double precision)"
    }

    /// Whether text `haystack` holds `needle`.
    package func contains(_ haystack: String, _ needle: String) -> String {
        self == .sqlite ? "instr(\(haystack), \(needle)) > 0" : "strpos(\(haystack), \(needle)) > 0"
    }

    /// The length of the array under `key` of the JSON object in `column` (NULL when there is none).
    package func jsonArrayLength(_ column: String, key: String) -> String {
        self == .sqlite ? "json_array_length(\(column), '$.\(key)')" : "json_array_length((\(column))::json -> '\(key)')"
    }

    /// After a table's name: read it without its indexes (SQLite's `NOT INDEXED`; PostgreSQL's
    /// planner is not told).
    package var notIndexed: String { self == .sqlite ? "NOT INDEXED" : "" }
}

/// A value to bind, on either engine.
package enum StoreValue: Sendable, Equatable {
    case int(Int64)
    case double(Double)
    case text(String)
    case null
}

extension StoreValue {
    /// Integers as one parameter: PostgreSQL's text of an array (`{1,NULL,3}`), bound to
    /// `?::bigint[]`, so that a statement of any number of rows is prepared once (`unnest`, `ANY`).
    package static func integerArray(_ values: [Int64?]) -> StoreValue {
        .text("{" + values.map { $0.map(String.init) ?? "NULL" }.joined(separator: ",") + "}")
    }
}

/// What the store's SQL runs on, the same calls for both engines, so that what counts is written
/// once: SQLite (`SQLiteDatabase`) and PostgreSQL (`PostgresDatabase`). Synchronous, like the store:
/// one connection per thread. Parameters are `?` or `?NNN` in the SQL, bound from 1; columns are
/// read from 0.
package protocol StoreDatabase: AnyObject {
    associatedtype Statement: StoreStatement
    var dialect: SQLDialect { get }
    /// Where the database is, as messages say it (a path; an address without its password).
    var path: String { get }
    func prepare(_ sql: String) throws -> Statement
    /// Runs SQL without parameters or results (one or several statements).
    func execute(_ sql: String) throws
    /// Runs SQL without parameters or results whose outcome matters only when it fails, in the
    /// open transaction: an engine of round trips (PostgreSQL) sends it with the connection's next
    /// statement, before it, and its error is that statement's (which it stops). SQLite, and any
    /// engine outside a transaction, runs it at once.
    func executeWithNext(_ sql: String) throws
    /// The same for a statement each write runs, with parameters: PostgreSQL runs it as a prepared
    /// statement (planned once a connection), in a pipeline with the next statement.
    func executeWithNext(_ sql: String, _ arguments: [StoreValue]) throws
    /// Says which statements without parameters the caller prepares and steps next, before any
    /// other: an engine of round trips (PostgreSQL) runs them together now, in one, and answers each
    /// from what it read when it is stepped (anything else run first drops what was read). SQLite
    /// does nothing.
    func readAhead(_ sqls: [String]) throws
    /// Opens a transaction that holds the write lock from its start: SQLite's `BEGIN IMMEDIATE` (in
    /// the store's waiting room); on PostgreSQL `BEGIN` and the owner's advisory lock, so that one
    /// patient's writers take turns as on their SQLite file, and other patients' write beside.
    func beginWriting() throws
    /// Gives up the open transaction: the database is as at its last commit. Never throws: whatever
    /// the rollback meets (a connection gone), what the transaction wrote is not there.
    func rollBack()
    /// Rows the last statement inserted, updated or deleted.
    var changes: Int { get }
    /// True while a transaction is open.
    var isInTransaction: Bool { get }
    /// A number that changes when another connection commits (SQLite's `PRAGMA data_version`); nil
    /// when the engine does not say (PostgreSQL): the caller then looks for others' rows every time.
    func othersCommits() throws -> Int64?
    /// Rows written a chunk at a time by one statement, `sql`, which reads them as `{rows}` with
    /// columns `c0`, `c1`, … of `columns`' types: for a writer of many small rows (`RowBatch`).
    func rowBatch(_ columns: [RowBatchColumn], sql: String, rowsPerChunk: Int) throws -> any RowBatch
}

/// A statement of a `StoreDatabase`: bound, stepped row by row, reset for the next use.
package protocol StoreStatement: AnyObject {
    func bind(_ index: Int32, _ value: Int64) throws
    func bind(_ index: Int32, _ value: Double) throws
    func bind(_ index: Int32, _ value: String) throws
    /// Text given as its UTF-8 bytes, which may be reused once the call returns.
    func bind(_ index: Int32, bytes: ByteText) throws
    func bindNull(_ index: Int32) throws
    /// Runs the statement on the first call; true while a row is available.
    @discardableResult func step() throws -> Bool
    /// Forgets the results and the values bound.
    func reset()
    /// Forgets the results and keeps the values bound (a statement whose every value is bound again).
    func rewind()
    func int64(_ column: Int32) -> Int64
    func double(_ column: Int32) -> Double
    func isNull(_ column: Int32) -> Bool
    func text(_ column: Int32) -> String?
    /// The column's bytes, valid until the next step or reset.
    func bytes(_ column: Int32) -> ByteText
    /// Bytes kept as they are (SQLite's BLOB, PostgreSQL's bytea).
    func bind(_ index: Int32, blob: UnsafeRawBufferPointer) throws
    /// A BLOB (bytea) column's bytes, valid until the next step or reset.
    func blob(_ column: Int32) -> UnsafeRawBufferPointer
}

extension StoreStatement {
    package func bind(_ values: [StoreValue]) throws {
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            switch value {
            case .int(let v): try bind(index, v)
            case .double(let v): try bind(index, v)
            case .text(let v): try bind(index, v)
            case .null: try bindNull(index)
            }
        }
    }

    package func bind(_ index: Int32, _ value: Int64?) throws {
        if let value { try bind(index, value) } else { try bindNull(index) }
    }

    package func bind(_ index: Int32, _ value: Double?) throws {
        if let value { try bind(index, value) } else { try bindNull(index) }
    }

    package func bind(_ index: Int32, _ value: String?) throws {
        if let value { try bind(index, value) } else { try bindNull(index) }
    }

    /// Runs to completion and resets for the next use.
    package func run(_ values: [StoreValue] = []) throws {
        try bind(values)
        defer { reset() }
        while try step() {}
    }

    package func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }
    package func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
}

extension StoreDatabase {
    /// Runs `body` in one transaction that holds the write lock from its start (`beginWriting`).
    package func transaction<T>(_ body: () throws -> T) throws -> T {
        try beginWriting()
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            rollBack()
            throw error
        }
    }

    /// `ROLLBACK`, unless the engine has more to do on the way (`PostgresDatabase.rollBack`).
    package func rollBack() { try? execute("ROLLBACK") }

    /// At once, unless the engine has round trips to save (`PostgresDatabase.executeWithNext`).
    package func executeWithNext(_ sql: String) throws { try execute(sql) }

    /// At once, unless the engine has round trips to save (`PostgresDatabase.executeWithNext`).
    package func executeWithNext(_ sql: String, _ arguments: [StoreValue]) throws { try prepare(sql).run(arguments) }

    /// Nothing, unless the engine has round trips to save (`PostgresDatabase.readAhead`).
    package func readAhead(_ sqls: [String]) throws {}

    /// The single value of a query (`SELECT count(*) …`).
    package func scalarInt(_ sql: String, _ arguments: [StoreValue] = []) throws -> Int64? {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        return try statement.step() ? (statement.isNull(0) ? nil : statement.int64(0)) : nil
    }

    package func scalarText(_ sql: String, _ arguments: [StoreValue] = []) throws -> String? {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        return try statement.step() ? statement.text(0) : nil
    }

    /// The first column of each row `sql` answers, as text.
    package func texts(_ sql: String, _ arguments: [StoreValue] = []) throws -> [String] {
        let rows = try prepare(sql)
        try rows.bind(arguments)
        defer { rows.reset() }
        var found: [String] = []
        while try rows.step() { found.append(rows.text(0) ?? "") }
        return found
    }

    /// id → name of one of the name tables (types, units, devices: tens to hundreds of rows).
    package func names(_ table: String) throws -> [Int64: String] {
        var names: [Int64: String] = [:]
        let rows = try prepare("SELECT id, name FROM \(table)")
        while try rows.step() { names[rows.int64(0)] = rows.text(1) ?? "" }
        return names
    }

    /// Whether the store has a table of this name (a kind's tables are made by the first import that
    /// writes it).
    package func hasTable(_ name: String) throws -> Bool {
        let sql = dialect == .sqlite ? "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?"
                                     : "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = ?"
        return try scalarInt(sql, [.text(name)]) ?? 0 > 0
    }

    /// `rowBatch` of 4,096 rows a chunk.
    package func rowBatch(_ columns: [RowBatchColumn], sql: String) throws -> any RowBatch {
        try rowBatch(columns, sql: sql, rowsPerChunk: 4096)
    }
}
