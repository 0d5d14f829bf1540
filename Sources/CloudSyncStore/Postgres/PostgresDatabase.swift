import CLibPQ
import Foundation

/// One PostgreSQL connection through libpq's synchronous calls: the store's other engine beside
/// `SQLiteDatabase`, with the same calls (`StoreDatabase`), so that the store's SQL runs on both.
/// Not thread-safe: one connection per thread, as with SQLite.
///
/// Every row of a clinic's tables carries its owner. A connection is opened for one owner: it sets
/// `cloudsync.owner` for its session, which the tables' row-level security reads (only that owner's
/// rows are seen, and new rows get that owner by default), so the store's SQL is the same text on
/// both engines and cannot read another patient's rows.
package final class PostgresDatabase: StoreDatabase {
    package var dialect: SQLDialect { .postgres }
    /// The address without its password.
    package let path: String
    let connection: OpaquePointer
    package private(set) var changes = 0

    /// Connects to `address` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?host=/socket/folder]`,
    /// libpq's URI) as `owner`; nil: a connection that reads no owner's rows (for the schema).
    package init(address: String, owner: String?) throws {
        path = Self.withoutPassword(address)
        guard let connection = PQconnectdb(Self.withConnectTimeout(address)) else {
            throw PostgresError(sqlState: "", message: "cannot allocate a connection", sql: nil, database: path)
        }
        self.connection = connection
        // PostgreSQL's notices ("relation … already exists, skipping") are not the user's business:
        // libpq's default prints them on stderr.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        guard PQstatus(connection) == CONNECTION_OK else {
            // The connection is finished by `deinit`, which runs for an init that throws once every
            // property is set (finishing it here too freed it twice: a crash).
            throw PostgresError(sqlState: "", message: Self.message(of: connection), sql: nil, database: path)
        }
        if let owner {
            let statement = try prepare("SELECT set_config('cloudsync.owner', ?, false)")
            try statement.bind(1, owner)
            try statement.step()
            statement.reset()
        }
    }

    deinit {
        dropReadAhead()
        PQfinish(connection)
    }

    /// How long a connection may take to be made: a server that does not answer (a host that is
    /// down, a full backlog) is said as unavailable instead of holding its caller for ever.
    static let connectTimeoutSeconds = 10

    /// `address` with libpq's `connect_timeout`, unless it gives its own.
    static func withConnectTimeout(_ address: String) -> String {
        guard !address.contains("connect_timeout=") else { return address }
        return address + (address.contains("?") ? "&" : "?") + "connect_timeout=\(connectTimeoutSeconds)"
    }

    package func prepare(_ sql: String) throws -> PostgresStatement { PostgresStatement(database: self, sql: sql) }

    package func execute(_ sql: String) throws {
        assert(!sql.hasPrefix("ROLLBACK"), "a rollback goes through rollBack(), which counts it")
        try finishSent()
        try runStatements(try withDeferred(sql))
    }

    /// Statements `executeWithNext` deferred to the round trip of the connection's next statement
    /// (PostgresDatabase+Pipeline.swift).
    var deferred: [DeferredStatement] = []

    /// Results of `readAhead`, by their statement's SQL, until the statement is stepped.
    var readAheadResults: [(sql: String, result: OpaquePointer)] = []

    /// Gives up the transaction whatever the statement sent before said (the rollback is what
    /// undoes it), and counts it: a temporary table made since is gone (`PostgresRowBatch`). The
    /// statements deferred to the next one go with the rest of the transaction.
    package func rollBack() {
        try? finishSent()
        rollbacks += 1
        deferred.removeAll()
        dropReadAhead()
        try? runStatements("ROLLBACK")
    }

    /// Gives up what the transaction did since the savepoint `name`, and the savepoint, counted as a
    /// rollback. Left there, each refused chunk's savepoint nested one more subtransaction under the
    /// next one of its name: past 64 in a transaction, PostgreSQL's snapshots slow down for every
    /// connection.
    func rollBack(toSavepoint name: String) throws {
        try? finishSent()
        rollbacks += 1
        try runStatements(try withDeferred("ROLLBACK TO SAVEPOINT \(name); RELEASE SAVEPOINT \(name)"))
    }

    /// Statements without parameters, in one round trip: the first cell of the last one's result
    /// (nil when it has none). An error in any stops the rest, and is thrown.
    func lastText(ofStatements sql: String) throws -> String? {
        try finishSent()
        let sql = try withDeferred(sql)
        return try withLastResult(ofStatements: sql) { result in
            guard PQntuples(result) > 0, PQnfields(result) > 0, PQgetisnull(result, 0, 0) == 0 else { return nil }
            return String(cString: PQgetvalue(result, 0, 0))
        }
    }

    /// One statement, or several, without parameters: what `execute` and the rollbacks send.
    func runStatements(_ sql: String) throws {
        try withLastResult(ofStatements: sql) { result in changes = Int(String(cString: PQcmdTuples(result))) ?? 0 }
    }

    /// Runs `sql` (one statement or several, without parameters) in one round trip and reads the
    /// last one's result, once checked.
    private func withLastResult<T>(ofStatements sql: String, _ read: (OpaquePointer) -> T) throws -> T {
        guard let result = PQexec(connection, sql) else { throw error(nil, sql: sql) }
        defer { PQclear(result) }
        try check(result, sql: sql)
        return read(result)
    }

    /// `BEGIN`, then the owner's advisory lock for the transaction: the patient's other writers,
    /// on this server or another, wait here until it ends. One round trip (each received batch
    /// begins so): a lock not had in time leaves the transaction failed, rolled back here.
    package func beginWriting() throws {
        do {
            // The lock's statement prepared (it was parsed and planned at every received batch).
            _ = try runInPipeline([
                PipelineCommand(sql: "BEGIN", parameters: [], prepared: false, kept: false),
                PipelineCommand(sql: "SELECT pg_advisory_xact_lock(hashtextextended('cloudsync.owner:' || current_setting('cloudsync.owner'), 0))",
                                parameters: [], prepared: true, kept: false),
            ])
        } catch {
            if isInTransaction { rollBack() }
            throw error
        }
    }

    /// Whether the connection is still open, without a round trip when nothing came from the server
    /// since its last answer: a connection the server closed (a restart, an administrator's
    /// termination) has its farewell, or its end, waiting to be read. Anything else waiting (a
    /// notice) is read, and the server asked. (`SELECT 1` before each received batch was one of its
    /// 32 round trips: see `executeWithNext`.)
    package func isOpen() -> Bool {
        guard PQstatus(connection) == CONNECTION_OK, sent == nil, !isInTransaction else { return false }
        var socket = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
        let ready = poll(&socket, 1, 0)
        if ready == 0 { return true }
        guard ready > 0, PQconsumeInput(connection) == 1, PQstatus(connection) == CONNECTION_OK else { return false }
        return (try? runStatements("SELECT 1")) != nil
    }

    package var isInTransaction: Bool { PQtransactionStatus(connection) != PQTRANS_IDLE }

    /// The role the connection acts as, outside `OwnerPartitions.asTablesOwner`: known from the
    /// session's `SET ROLE` (`PostgresStoreSchema.actAsPatient`), so that taking the tables' owner's
    /// role back asks no round trip.
    var actingRole = ActingRole.unknown

    enum ActingRole: Equatable {
        /// Not said: asked of the server (`current_user`).
        case unknown
        /// Its own (`session_user`).
        case own
        case other(String)
    }

    /// Whether the connection's owner's partitions were found made (`BulkLoad.makeMissingPartitions`).
    var ownPartitionsFound = false

    /// The connection's owner's metric partition, quoted, when a writer may copy its new rows
    /// straight into it, and its hour partition (`OwnerPartitions.straightCopyTargets`); nil when
    /// not, or not asked yet. Either one refusing a copy for good (`PostgresRowBatch
    /// .copiedStraight`) ends both for the connection.
    var straightPartitions: StraightPartitions?

    /// PostgreSQL has no counter of other connections' commits: the caller looks every time.
    package func othersCommits() throws -> Int64? { nil }

    package func rowBatch(_ columns: [RowBatchColumn], sql: String, rowsPerChunk: Int) throws -> any RowBatch {
        PostgresRowBatch(database: self, columns: columns, sql: sql, rowsPerChunk: rowsPerChunk)
    }

    private var temporaryNames = 0

    /// A number for a temporary table's name, unique on this connection.
    func nextTemporaryName() -> Int {
        temporaryNames += 1
        return temporaryNames
    }

    /// The temporary tables of `PostgresRowBatch`es that are done, by their columns' declaration, with
    /// `rollbacks` when they were made.
    private var leftTables: [String: [LeftTable]] = [:]

    struct LeftTable {
        var name: String
        var madeAtRollbacks: Int?
        /// Rows deleted from it since it was last truncated (`PostgresRowBatch`).
        var deleted: Int
    }

    func takeTemporaryTable(declared: String) -> LeftTable? { leftTables[declared]?.popLast() }

    func leaveTemporaryTable(declared: String, _ table: LeftTable) { leftTables[declared, default: []].append(table) }

    /// How many rollbacks (whole, or to a savepoint) this connection ran (`rollBack`): a temporary
    /// table made before the last one may be gone (`PostgresRowBatch`).
    private(set) var rollbacks = 0

    /// A statement sent and not read back yet (`send`), and what to do with its outcome.
    private var sent: (sql: String, then: (Result<Int, PostgresError>) throws -> Void)?

    /// Sends `sql` and returns at once: the server runs it while the caller goes on (a chunk's insert,
    /// while the import fills the next chunk: `PostgresRowBatch`). `then` is given its outcome (the
    /// rows it changed, or its error) when the connection is next used, before anything else runs on
    /// it (libpq runs one command at a time), or by `finishSent`.
    func send(_ sql: String, then: @escaping (Result<Int, PostgresError>) throws -> Void) throws {
        try finishSent()
        let sql = try withDeferred(sql)
        guard PQsendQuery(connection, sql) == 1 else { throw error(nil, sql: sql) }
        sent = (sql, then)
    }

    /// Reads the outcome of the statement `send` sent, if any, and hands it to its `then`.
    func finishSent() throws {
        guard let (sql, then) = sent else { return }
        sent = nil
        if copyQueued {
            // The copy's rows left in libpq's buffer go now, waited for as libpq asks: for the socket
            // to take more, or to bring something to read first. (Setting the connection blocking
            // while rows are left fails and leaves it nonblocking: a flush that spun.)
            copyQueued = false
            var flushed = PQflush(connection)
            while flushed == 1 {
                var socket = pollfd(fd: PQsocket(connection), events: Int16(POLLIN | POLLOUT), revents: 0)
                _ = poll(&socket, 1, -1)
                if socket.revents & Int16(POLLIN) != 0 { _ = PQconsumeInput(connection) }
                flushed = PQflush(connection)
            }
            PQsetnonblocking(connection, 0)
            if flushed < 0 { throw error(nil, sql: sql) }
        }
        var outcome: Result<Int, PostgresError>?
        while let result = PQgetResult(connection) {
            // A copy never ended (its end could not be queued) is ended failed, or the results would
            // never run out.
            if PQresultStatus(result) == PGRES_COPY_IN, PQputCopyEnd(connection, "the copy was not ended") != 1 {
                outcome = outcome ?? .failure(error(result, sql: sql))
                PQclear(result)
                break
            }
            // Statements sent together (a savepoint and its insert): the first error, else the last count.
            if case .failure = outcome {} else {
                switch PQresultStatus(result) {
                case PGRES_COMMAND_OK, PGRES_TUPLES_OK: outcome = .success(Int(String(cString: PQcmdTuples(result))) ?? 0)
                default: outcome = .failure(error(result, sql: sql))
                }
            }
            PQclear(result)
        }
        try then(outcome ?? .failure(error(nil, sql: sql)))
    }

    /// A copy's rows queued in libpq's buffer (`copy(…, waiting: false)`), sent a part at a time
    /// by `pump` while the caller goes on, and the rest by `finishSent`.
    private var copyQueued = false

    /// Runs `COPY … FROM STDIN` (`sql`) with `data`, in `COPY`'s text format. The rows are queued
    /// and the copy's outcome read as a sent statement's (`send`); not `waiting`, PostgreSQL takes
    /// them in while the caller fills the next chunk (`pump`), and the outcome is read before the
    /// connection's next command. Waited for, a bulk load's chunk of 8,192 metrics held the import
    /// 14 ms, 4.1 s of the 1 GB upload's 16 s of streaming.
    func copy(_ sql: String, data: UnsafeRawBufferPointer, waiting: Bool = true) throws {
        try finishSent()
        let sql = try withDeferred(sql)
        guard let started = PQexec(connection, sql) else { throw error(nil, sql: sql) }
        defer { PQclear(started) }
        guard PQresultStatus(started) == PGRES_COPY_IN else { throw error(started, sql: sql) }
        // Queued whole (libpq's buffer grows to hold it; nonblocking, it sends what the socket takes).
        PQsetnonblocking(connection, 1)
        var queued = true
        if data.count > 0, let base = data.baseAddress {
            queued = PQputCopyData(connection, base.assumingMemoryBound(to: CChar.self), Int32(data.count)) == 1
        }
        if queued { queued = PQputCopyEnd(connection, nil) == 1 }
        // Not queued (a broken connection, or a buffer that could not grow): the copy ends failed.
        if !queued { _ = PQputCopyEnd(connection, "the rows could not be sent") }
        // Either way what is queued is flushed, and the connection made blocking, by `finishSent`.
        copyQueued = true
        // Unowned: held by the connection itself, which a strong reference would keep open.
        sent = (sql, { [unowned self] outcome in
            // The server's failure first, when it said one.
            let changed = try outcome.get()
            guard queued else { throw self.error(nil, sql: sql) }
            self.changes = changed
        })
        if waiting { try finishSent() }
    }

    /// Sends what the socket takes of a queued copy's rows, without waiting (see `copy`).
    func pump() {
        if copyQueued { _ = PQflush(connection) }
    }

    /// The statements run more than once on this connection, prepared on the server by name (parsed
    /// and planned once: a push looks up and inserts its samples one by one), by their SQL.
    var prepared: [String: String] = [:]
    private var statementsNamed = 0

    /// A name for a statement prepared on this connection, never given before.
    func nextStatementName() -> String {
        statementsNamed += 1
        return "cloudsync_\(statementsNamed)"
    }

    /// The statements run once so far: prepared when they run again (a statement run once is not
    /// worth the round trip of its preparation).
    private var ranOnce: Set<String> = []

    /// Runs a translated statement with its parameters as text (PostgreSQL infers their types from
    /// where they stand, as SQLite takes any value): the result, whose rows are all here.
    func run(_ sql: String, parameters: [String?]) throws -> OpaquePointer {
        try finishSent()
        if parameters.isEmpty, let read = takeReadAhead(sql) {
            changes = Int(String(cString: PQcmdTuples(read))) ?? 0
            return read
        }
        dropReadAhead()
        let prepares = prepared[sql] != nil || !ranOnce.insert(sql).inserted
        let result: OpaquePointer
        if !deferred.isEmpty {
            // The deferred statements and this one in one round trip.
            let commands = takeDeferred() + [PipelineCommand(sql: sql, parameters: parameters, prepared: prepares, kept: true)]
            guard let kept = try pipeline(commands).first else { throw error(nil, sql: sql) }
            result = kept
        } else {
            result = try runAlone(sql, parameters: parameters, prepares: prepares)
        }
        changes = Int(String(cString: PQcmdTuples(result))) ?? 0
        return result
    }

    /// `run` with nothing deferred: prepared first (its own round trip, once a connection) when it
    /// `prepares`, then run by name; else run as it is.
    private func runAlone(_ sql: String, parameters: [String?], prepares: Bool) throws -> OpaquePointer {
        var name = prepared[sql]
        if name == nil, prepares {
            let made = nextStatementName()
            guard let preparation = PQprepare(connection, made, sql, Int32(parameters.count), nil) else { throw error(nil, sql: sql) }
            defer { PQclear(preparation) }
            try check(preparation, sql: sql)
            prepared[sql] = made
            name = made
        }
        let result = Self.withCStrings(parameters) { count, values in
            if let name { return PQexecPrepared(connection, name, count, values, nil, nil, 0) }
            return PQexecParams(connection, sql, count, nil, values, nil, nil, 0)
        }
        guard let result else { throw error(nil, sql: sql) }
        do {
            try check(result, sql: sql)
        } catch {
            PQclear(result)
            throw error
        }
        return result
    }

    /// `body` given `parameters` as libpq takes them (their count, and C strings, nil for NULL).
    static func withCStrings<T>(_ parameters: [String?], _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?) -> T) -> T {
        let cStrings = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { for pointer in cStrings { free(pointer) } }
        return cStrings.withUnsafeBufferPointer { values in
            values.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: max(values.count, 1)) { pointers in
                body(Int32(parameters.count), values.isEmpty ? nil : pointers)
            }
        }
    }

    func check(_ result: OpaquePointer, sql: String) throws {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default: throw error(result, sql: sql)
        }
    }

    func error(_ result: OpaquePointer?, sql: String?) -> PostgresError {
        guard let result else { return PostgresError(sqlState: "", message: Self.message(of: connection), sql: sql, database: path) }
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
        let message = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) } ?? Self.message(of: connection)
        return PostgresError(sqlState: state, message: message, sql: sql, database: path)
    }

    private static func message(of connection: OpaquePointer) -> String {
        String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `postgres://user:secret@host/db` → `postgres://user@host/db`: no message repeats a password.
    package static func withoutPassword(_ address: String) -> String {
        guard let scheme = address.range(of: "://"), let at = address[scheme.upperBound...].firstIndex(of: "@") else { return address }
        let credentials = address[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return address }
        return String(address[..<colon]) + String(address[at...])
    }
}

@available(*, unavailable)
extension PostgresDatabase: Sendable {}
