import CSQLite3
public import Foundation

/// Read-only SQL over documented views of the store (the MCP `sql` tool), on a connection of its own.
///
/// Why it is safe to hand to an assistant (docs/mcp.md):
/// - the connection is opened `SQLITE_OPEN_READONLY`, with `PRAGMA query_only`;
/// - an authorizer allows one thing: a SELECT reading the views below, and functions other than
///   `load_extension`. No ATTACH, PRAGMA, write, schema table or base table. SQLite does not tell
///   an authorizer which view a read comes through (measured: the view argument is NULL for the
///   base tables a view reads), so the views read the store through a second, read-only attachment
///   of the same file under a schema name made at random for this connection, and reads are
///   allowed in that schema and of the views only: `SELECT * FROM metric` reads `main` and is refused;
/// - one statement per call; a progress handler stops it after `timeLimit`; at most `limit` rows and
///   `maximumResultBytes` of text. The handler runs between instructions, and one function call is
///   one instruction, so functions are an allowed list (no `printf`, `instr`, `zeroblob`,
///   `fts3_tokenizer`…: a review found `instr` of two long `printf` strings running for minutes
///   and `fts3_tokenizer` giving out a pointer), and strings are at most 100,000 bytes.
///
/// The `daily` view (`DailyTable`) is rows that `aggregate` computes, kept in a temporary table of this
/// connection: building them is the only write, by our own statements, with the guard lifted between
/// two of the assistant's statements (`trusted`), and only when a query names `daily`.
public final class ReadOnlySQL {
    /// The views, as `CREATE TEMP VIEW` bodies: readable columns, dates as ISO 8601 UTC text.
    /// `metrics` is what counts (`CountedRows`), so an assistant cannot count a sample twice by
    /// forgetting a filter; `stored_metrics` is every stored row with why it does not count.
    public static let views: [(name: String, description: String, sql: String)] = [
        ("metrics", "one row per sample that counts (each sample once; repeats and superseded rows left out, as status and aggregate count): id, type, start, end (ISO 8601 UTC), value, unit, source, device, metadata (JSON)",
         metricColumns(from: "\(CountedRows.view)", extra: "")),
        ("stored_metrics", "every stored row, those that do not count included: the columns of metrics, and is_repeat (1: alike a sample stored before it but for its creation date), superseded (not 0: pushed by Health Auto Export where another source counts: 1 before an export's date, 2 a summary with samples in it, 3 a summary pushed again), origin (export or health-auto-export). To count, use metrics",
         metricColumns(from: "metric", extra: ", m.is_repeat AS is_repeat, m.superseded AS superseded, CASE m.origin WHEN 1 THEN 'health-auto-export' ELSE 'export' END AS origin")),
        ("workouts", "one row per workout that counts: id, activity, start, end, minutes, distance_km, energy_kcal, source", """
            SELECT m.id AS id, json_extract('{' || ifnull(m.extra, '') || '}', '$.activityType') AS activity,
                   strftime('%Y-%m-%dT%H:%M:%SZ', m.start_date, 'unixepoch') AS start,
                   strftime('%Y-%m-%dT%H:%M:%SZ', m.end_date, 'unixepoch') AS "end", m.value AS minutes,
                   CAST(json_extract('{' || ifnull(m.extra, '') || '}', '$.totalDistanceKm') AS REAL) AS distance_km,
                   CAST(json_extract('{' || ifnull(m.extra, '') || '}', '$.totalEnergyKcal') AS REAL) AS energy_kcal,
                   s.name AS source
            FROM {store}.\(CountedRows.view) m JOIN {store}.source s ON s.id = m.source_id
            WHERE m.type_id = (SELECT id FROM {store}.metric_type WHERE name = 'workout')
            """),
    ]

    /// The readable columns of a metric view over `rows` (a `CountedRows` view, or `metric`).
    private static func metricColumns(from rows: String, extra: String) -> String {
        """
        SELECT m.id AS id, t.name AS type, strftime('%Y-%m-%dT%H:%M:%SZ', m.start_date, 'unixepoch') AS start,
               strftime('%Y-%m-%dT%H:%M:%SZ', m.end_date, 'unixepoch') AS "end", m.value AS value, u.name AS unit,
               s.name AS source, d.name AS device,
               '{' || '"device":' || json_quote(d.name) || ifnull(',"sourceVersion":' || json_quote(v.name), '')
                   || ifnull(',' || m.extra, '') || '}' AS metadata\(extra)
        FROM {store}.\(rows) m JOIN {store}.metric_type t ON t.id = m.type_id JOIN {store}.unit u ON u.id = m.unit_id
        JOIN {store}.source s ON s.id = m.source_id JOIN {store}.device d ON d.id = m.device_id
        LEFT JOIN {store}.source_version v ON v.id = m.source_version_id
        """
    }

    /// Every view a query may read, for messages: the store's and `daily`.
    public static let viewNames = views.map(\.name) + [DailyTable.viewName]

    public struct Result: Sendable, Codable, Equatable {
        public var columns: [String]
        public var rows: [[SQLCell]]
        public var truncated: Bool
        /// The zone of `daily`'s days when the query named it (absent otherwise).
        public var timeZone: String?
    }

    /// Building `daily`'s rows for a zone: for the server's log (what it cost and why).
    public struct DailyBuild: Sendable {
        public var zone: String
        public var rows: Int
        public var seconds: Double
        public var reason: Reason

        public enum Reason: String, Sendable {
            /// The zone was not asked before.
            case firstUse = "first use"
            /// The zone's rows were kept, but the store changed since (an import committed).
            case storeChanged = "store changed"
            /// The zone's rows were let go for those of other zones (`DailyTable.cachedZones`).
            case notKept = "not kept"
        }
    }

    public enum SQLError: Error, CustomStringConvertible, Equatable {
        case refused(String)
        case failed(String)
        case timeLimit(Double)

        public var description: String {
            switch self {
            case .refused(let why): return "not allowed: \(why) (only SELECT over the views \(ReadOnlySQL.viewNames.joined(separator: ", ")))"
            case .failed(let message): return message
            case .timeLimit(let seconds): return "stopped after \(seconds) s: the time limit of a query"
            }
        }
    }

    private let database: SQLiteDatabase
    private var handle: OpaquePointer { database.handle }
    private let guardState: GuardState
    private let daily: DailyTable
    private let onDailyBuilt: (DailyBuild) -> Void
    /// False if `query_only` could not be set again after building `daily`: then nothing more runs.
    private var isQueryOnly = false

    /// Opens `store`'s file read-only, a connection of its own, and prepares the views; `daily`'s rows
    /// come from `store.aggregate`, and each build of them is told to `onDailyBuilt`.
    public init(store: StagingStore, onDailyBuilt: @escaping (DailyBuild) -> Void = { _ in }) throws {
        let path = store.path
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(path: path, mode: .readOnly)
        } catch let error as SQLiteError {
            throw SQLError.failed("cannot open \(path): \(error.message)")
        }
        self.database = database
        sqlite3_busy_timeout(database.handle, 2000)
        let random = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let schema = "store_" + random
        self.onDailyBuilt = onDailyBuilt
        // `daily`'s rows live in memory: a temporary file would be health data on disk outside the store
        // (about 8 MiB a zone for 8 years: docs/mcp.md). Set before the temp schema is first used: setting
        // it empties that schema.
        try Self.exec("PRAGMA temp_store = MEMORY", on: database)
        try Self.exec("ATTACH DATABASE \(Self.quoted(path)) AS \(schema)", on: database)
        // The views live in the connection's own temp schema: the store file is never written.
        for view in Self.views {
            try Self.exec("CREATE TEMP VIEW \(view.name) AS \(view.sql.replacingOccurrences(of: "{store}", with: schema))", on: database)
        }
        do {
            daily = try DailyTable(connection: database, store: store, suffix: random)
        } catch let error as SQLiteError {
            throw SQLError.failed(error.message)
        }
        guardState = GuardState(viewSchema: schema, hiddenTables: [daily.table])
        try Self.exec("PRAGMA query_only = 1", on: database)
        isQueryOnly = true
        sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, 100_000)
        sqlite3_limit(handle, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 200)
        let state = Unmanaged.passUnretained(guardState).toOpaque()
        sqlite3_set_authorizer(handle, { state, action, first, second, database, _ in
            guard let state else { return SQLITE_DENY }
            let guardState = Unmanaged<GuardState>.fromOpaque(state).takeUnretainedValue()
            return guardState.authorize(action, first.map { String(cString: $0) }, second.map { String(cString: $0) },
                                        database.map { String(cString: $0) })
        }, state)
        sqlite3_progress_handler(handle, 1000, { state in
            guard let state else { return 1 }
            return Unmanaged<GuardState>.fromOpaque(state).takeUnretainedValue().isPastDeadline ? 1 : 0
        }, state)
    }

    /// Runs one SELECT, at most `limit` rows, for at most `timeLimit` seconds; `daily`'s days are in
    /// `timeZone` (nil: UTC). Building `daily` (when the query names it) is not counted in `timeLimit`.
    public func run(_ query: String, limit: Int, timeZone: TimeZone? = nil, timeLimit: Double = 3) throws(SQLError) -> Result {
        guardState.refusal = nil
        // Said in SQL's words: the authorizer sees what a statement does to SQLite's own tables
        // (CREATE TABLE first inserts into sqlite_master), not what the assistant wrote.
        if let verb = Self.firstWord(of: query), Self.writingVerbs.contains(verb) { throw .refused("\(verb): only SELECT is allowed") }
        let namesDaily = DailyTable.isNamed(in: query)
        if namesDaily {
            let build: DailyBuild?
            do {
                build = try trusted { try daily.use(zone: timeZone) }
            } catch {
                throw .failed("the daily view could not be built: \(error)")
            }
            if let build { onDailyBuilt(build) }
        }
        guard isQueryOnly else { throw .failed("the connection could not be made read-only again; restart the server") }
        guardState.deadline = Date().addingTimeInterval(timeLimit)
        defer { guardState.deadline = .distantFuture }
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let status = query.withCString { sqlite3_prepare_v2(handle, $0, -1, &statement, &tail) }
        defer { sqlite3_finalize(statement) }
        if status != SQLITE_OK {
            if let refusal = guardState.refusal { throw .refused(refusal) }
            throw .failed(String(cString: sqlite3_errmsg(handle)))
        }
        guard let statement else { throw .failed("no statement in the query") }
        if let tail, tail.pointee != 0, !String(cString: tail).allSatisfy({ $0.isWhitespace || $0 == ";" }) {
            throw .refused("one statement at a time")
        }
        guard sqlite3_stmt_readonly(statement) != 0 else { throw .refused("the statement writes") }
        let columnCount = sqlite3_column_count(statement)
        let columns = (0..<columnCount).map { String(cString: sqlite3_column_name(statement, $0)) }
        var rows: [[SQLCell]] = []
        var truncated = false
        var bytes = 0
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else {
                if step == SQLITE_INTERRUPT { throw .timeLimit(timeLimit) }
                throw .failed(String(cString: sqlite3_errmsg(handle)))
            }
            if rows.count == limit || bytes > Self.maximumResultBytes {
                truncated = true
                break
            }
            let row = (0..<columnCount).map { Self.cell(statement, $0) }
            for cell in row { if case .text(let text) = cell { bytes += text.utf8.count } else { bytes += 8 } }
            rows.append(row)
        }
        return Result(columns: columns, rows: rows, truncated: truncated, timeZone: namesDaily ? timeZone?.identifier ?? "UTC" : nil)
    }

    /// Runs our own statements (building `daily`) with the guard lifted: the authorizer allows them and
    /// `query_only` is off, only inside `body`, between two of the assistant's statements (this class is
    /// used from one thread at a time). Should `query_only` fail to come back on, `run` refuses everything.
    private func trusted<T>(_ body: () throws -> T) throws -> T {
        guardState.isTrusted = true
        defer {
            isQueryOnly = (try? Self.exec("PRAGMA query_only = 1", on: database)) != nil
            guardState.isTrusted = false
        }
        isQueryOnly = false
        try Self.exec("PRAGMA query_only = 0", on: database)
        return try body()
    }

    /// Text in one answer, beyond which the rows are cut (with `truncated`).
    public static let maximumResultBytes = 4 << 20

    /// The functions a query may call: SQLite's core scalar, aggregate, date and JSON functions whose
    /// cost is bounded by the length of their arguments.
    static let allowedFunctions: Set<String> = [
        "abs", "avg", "coalesce", "count", "date", "datetime", "group_concat", "hex", "ifnull", "iif", "json", "json_array",
        "json_array_length", "json_extract", "json_object", "json_quote", "json_type", "json_valid", "julianday", "length", "like", "glob",
        "lower", "ltrim", "max", "min", "nullif", "round", "rtrim", "sign", "string_agg", "strftime", "substr", "substring",
        "sum", "time", "total", "trim", "typeof", "unixepoch", "upper", "cast", "ceil", "ceiling", "floor", "sqrt", "pow",
        "power", "exp", "ln", "log", "log10", "log2", "mod", "pi", "row_number", "rank", "dense_rank", "percent_rank",
        "cume_dist", "ntile", "lag", "lead", "first_value", "last_value", "nth_value", "median",
    ]

    private static func cell(_ statement: OpaquePointer, _ column: Int32) -> SQLCell {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .int(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .double(sqlite3_column_double(statement, column))
        case SQLITE_NULL: return .null
        case SQLITE_BLOB: return .text("(\(sqlite3_column_bytes(statement, column)) bytes)")
        default: return .text(String(cString: sqlite3_column_text(statement, column)))
        }
    }

    /// Statements that are not a query, by their first word.
    static let writingVerbs: Set<String> = ["INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER", "ATTACH", "DETACH", "PRAGMA",
                                            "BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE", "VACUUM", "REINDEX", "ANALYZE"]

    /// The first word of a statement, upper case, past blanks and `--` and `/* */` comments.
    static func firstWord(of query: String) -> String? {
        var rest = Substring(query)
        while true {
            rest = rest.drop { $0.isWhitespace }
            if rest.hasPrefix("--") { rest = rest.drop { $0 != "\n" }; continue }
            if rest.hasPrefix("/*"), let end = rest.range(of: "*/") { rest = rest[end.upperBound...]; continue }
            break
        }
        let word = rest.prefix { $0.isLetter }
        return word.isEmpty ? nil : word.uppercased()
    }

    private static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    private static func exec(_ sql: String, on database: SQLiteDatabase) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(database.handle, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "error"
            sqlite3_free(message)
            throw SQLError.failed(text)
        }
    }

    /// What the C callbacks consult: the views, the deadline, why the last statement was refused.
    private final class GuardState {
        let viewNames = Set(ReadOnlySQL.viewNames)
        /// The attachment the views read the store through.
        let viewSchema: String
        /// Temporary tables a view reads (`daily`'s rows), under names made at random.
        let hiddenTables: Set<String>
        var deadline = Date.distantFuture
        var refusal: String?
        /// Our own statements are running (`trusted`): everything is allowed.
        var isTrusted = false

        init(viewSchema: String, hiddenTables: Set<String>) {
            self.viewSchema = viewSchema
            self.hiddenTables = hiddenTables
        }

        var isPastDeadline: Bool { Date() > deadline }

        func authorize(_ action: Int32, _ first: String?, _ second: String?, _ database: String?) -> Int32 {
            if isTrusted { return SQLITE_OK }
            switch action {
            case SQLITE_SELECT, SQLITE_RECURSIVE:
                return SQLITE_OK
            case SQLITE_READ:
                // A view's columns, or what the views read through their own attachment.
                if database == "temp", let table = first, viewNames.contains(table) || hiddenTables.contains(table) { return SQLITE_OK }
                if database == viewSchema { return SQLITE_OK }
                // A common table expression's columns belong to no schema.
                if database == nil { return SQLITE_OK }
                return deny("reading \(first ?? "?")")
            case SQLITE_FUNCTION:
                guard let name = second?.lowercased(), ReadOnlySQL.allowedFunctions.contains(name) else {
                    return deny("the function \(second ?? "?") (allowed: \(ReadOnlySQL.allowedFunctions.sorted().joined(separator: ", ")))")
                }
                return SQLITE_OK
            case SQLITE_ATTACH: return deny("ATTACH")
            case SQLITE_PRAGMA: return deny("PRAGMA")
            default: return deny(Self.statementName(action).map { "\($0): only SELECT is allowed" } ?? "anything but SELECT")
            }
        }

        /// What a statement the authorizer refuses does, in SQL's words (not SQLite's action number).
        static func statementName(_ action: Int32) -> String? {
            switch action {
            case SQLITE_INSERT: return "INSERT"
            case SQLITE_UPDATE: return "UPDATE"
            case SQLITE_DELETE: return "DELETE"
            case SQLITE_TRANSACTION, SQLITE_SAVEPOINT: return "a transaction"
            case SQLITE_CREATE_TABLE, SQLITE_CREATE_TEMP_TABLE, SQLITE_CREATE_INDEX, SQLITE_CREATE_TEMP_INDEX, SQLITE_CREATE_VIEW,
                 SQLITE_CREATE_TEMP_VIEW, SQLITE_CREATE_TRIGGER, SQLITE_CREATE_TEMP_TRIGGER, SQLITE_CREATE_VTABLE: return "CREATE"
            case SQLITE_DROP_TABLE, SQLITE_DROP_TEMP_TABLE, SQLITE_DROP_INDEX, SQLITE_DROP_TEMP_INDEX, SQLITE_DROP_VIEW,
                 SQLITE_DROP_TEMP_VIEW, SQLITE_DROP_TRIGGER, SQLITE_DROP_TEMP_TRIGGER, SQLITE_DROP_VTABLE: return "DROP"
            case SQLITE_ALTER_TABLE: return "ALTER TABLE"
            case SQLITE_DETACH: return "DETACH"
            case SQLITE_REINDEX: return "REINDEX"
            case SQLITE_ANALYZE: return "ANALYZE"
            default: return nil
            }
        }

        private func deny(_ why: String) -> Int32 {
            if refusal == nil { refusal = why }
            return SQLITE_DENY
        }
    }
}

@available(*, unavailable)
extension ReadOnlySQL: Sendable {}

/// One value of a `sql` result row.
public enum SQLCell: Sendable, Equatable, Codable {
    case int(Int64)
    case double(Double)
    case text(String)
    case null

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .int(let value): try container.encode(value)
        case .double(let value): try value.isFinite ? container.encode(value) : container.encodeNil()
        case .text(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null } else if let value = try? container.decode(Int64.self) { self = .int(value) }
        else if let value = try? container.decode(Double.self) { self = .double(value) } else { self = .text(try container.decode(String.self)) }
    }
}
