import CLibPQ
import CloudSyncModel
import Foundation

/// PostgreSQL's `RowBatch`: a chunk's rows go to the server in `COPY`'s binary format, into a
/// temporary table of the connection, and the statement (`INSERT … SELECT c0, c1, … FROM {rows}
/// … ON CONFLICT …`) moves them into the store's table in one go; the temporary table is emptied
/// before the next chunk, and left to the connection's next batch of the same columns. One round
/// trip and one statement a chunk, instead of one per row (issue 34's item 5).
///
/// libpq's copy is synchronous and tells a connection that broke during it as an error of the
/// flush (PostgresNIO's stopped the process: docs/performance.md, "Issue 34").
///
/// A full chunk's statement is sent, not waited for (`PostgresDatabase.send`): PostgreSQL inserts it
/// while the import maps the next chunk, and its outcome is read before the connection's next command.
/// `flush` waits for it: what the writer reads after (`notTaken`) is then complete.
///
/// A statement that ignores conflicts (`… ON CONFLICT DO NOTHING`, the rows its writer knows new) is
/// run first as a plain insert under a savepoint: PostgreSQL's speculative insertion for each row
/// doubled its cost (221,444 metrics of the 100 MB export: 1.5–1.7 s against 0.7–0.8 s). A conflict,
/// which the writer rules out, rolls back to the savepoint and takes the ignoring form.
///
/// Binary, not text: PostgreSQL read each of a metric's 16 cells from its digits (`int8in`,
/// `float8in`), and the import wrote them as digits; each cell is now its 8 bytes as they are. The
/// 1 GB export's upload spent 7.8–8.1 s of PostgreSQL's 38–42 s in the chunks' `COPY` (1,809 of
/// them, 3.2 µs a row) before.
final class PostgresRowBatch: RowBatch {
    private unowned let database: PostgresDatabase
    private let columns: [RowBatchColumn]
    private let rowsPerChunk: Int
    private let table: String
    private let create, copy, insert: String
    /// `insert` without the ending its writer gave it to ignore conflicts
    /// (`SQLDialect.ignoringConflicts`), when it has it.
    private let plainInsert: String?
    /// The chunk in `COPY`'s binary format: the header, then each row as its count of cells and
    /// each cell as its length and bytes (big-endian), then the trailer when it is sent.
    // Unchecked (one thread fills a batch): their checks were 2% of the upload's CPU, and the
    // thread-local lookups behind them 4%.
    @exclusivity(unchecked) private var text = CopyBytes()
    @exclusivity(unchecked) private var cell = 0
    @exclusivity(unchecked) private var rows = 0
    private(set) var notTaken = 0
    /// `database.rollbacks` when the temporary table was made: another rollback since may have taken it.
    private var madeAtRollbacks: Int?
    /// Whether the temporary table holds the last chunk's rows: emptied before the next chunk, not
    /// after each (the table goes with the connection, which `serve` opens for each write).
    private var holdsRows = false
    /// Rows deleted from the table since it was last truncated. A `TRUNCATE` costs 0.7 ms whatever
    /// the rows, more than a chunk of a few rows' insert (a push's, or a batch's between two looks at
    /// the store: 10 chunks a batch of 1,000, 3.4 of a receiver's 15.8 s in PostgreSQL for 166,000
    /// metrics); a `DELETE` of few rows costs little but leaves them dead in the table, which no
    /// vacuum visits (temporary): a truncate once they add up.
    private var deletedSinceTruncate = 0
    private var rowsHeld = 0
    /// The table's columns, as declared: the key under which the table is left for the next batch.
    private let declared: String
    /// For `deinit` only, which must not reach a connection that went first.
    private weak var home: PostgresDatabase?
    /// Whether each chunk is copied straight into `table` (`init(database:columns:copyInto:…)`).
    private let direct: Bool
    /// The `COPY` of each chunk straight into the patient's partition, tried before the statement's
    /// way (`init(database:columns:sql:straightInto:…)`); nil once the partition refused it for
    /// good (`copiedStraight`).
    private var straightCopy: String?

    /// Each chunk copied straight into `table`'s `names` (a bulk load's table: no row-level security,
    /// no index to keep up to date, nobody else's rows), with no statement after: the rows are the
    /// table's once the copy returns.
    init(database: PostgresDatabase, columns: [RowBatchColumn], copyInto table: String, names: [String], rowsPerChunk: Int) {
        self.database = database
        self.columns = columns
        self.rowsPerChunk = rowsPerChunk
        self.table = table
        direct = true
        declared = ""
        create = ""
        copy = "COPY \(table)(\(names.joined(separator: ", "))) FROM STDIN (FORMAT binary)"
        insert = copy
        plainInsert = nil
    }

    /// Each chunk moved by `sql` (`INSERT … SELECT … FROM {rows} …`) from a temporary table; with
    /// `straightInto`, copied straight into that partition's `names` first (`copiedStraight`).
    init(database: PostgresDatabase, columns: [RowBatchColumn], sql: String, straightInto: (partition: String, names: [String])? = nil,
         rowsPerChunk: Int) {
        self.database = database
        straightCopy = straightInto.map { "COPY \($0.partition)(\($0.names.joined(separator: ", "))) FROM STDIN (FORMAT binary)" }
        home = database
        direct = false
        self.columns = columns
        self.rowsPerChunk = rowsPerChunk
        declared = columns.enumerated().map { index, column in
            "c\(index) " + (column == .integer ? "bigint" : column == .real ? "double precision" : "text")
        }.joined(separator: ", ")
        // A table an earlier batch of these columns left on the connection (the hour summary makes a
        // batch per type: making a temporary table is 1.3 ms, 6.6 of a receiver's batch of 1,000),
        // emptied before its first chunk; else a new one.
        if let left = database.takeTemporaryTable(declared: declared) {
            (table, madeAtRollbacks, holdsRows, rowsHeld, deletedSinceTruncate) = (left.name, left.madeAtRollbacks, true, 1, left.deleted)
        } else {
            table = "cloudsync_rows_\(database.nextTemporaryName())"
        }
        // Made again when missing: a temporary table made in a transaction that was rolled back is gone.
        create = "CREATE TEMPORARY TABLE IF NOT EXISTS \(table) (\(declared))"
        copy = "COPY \(table) FROM STDIN (FORMAT binary)"
        (insert, plainInsert) = Self.statements(sql, rows: table)
    }

    /// `sql` with `{rows}` written as `table`, and that without its ending that ignores conflicts,
    /// when it has it. Byte by byte: Foundation's `replacingOccurrences` and `trimmingCharacters`
    /// were 3.5% of `serve`'s CPU as a receiver (perf), which makes three of these a batch.
    static func statements(_ sql: String, rows table: String) -> (insert: String, plain: String?) {
        let marker = Array("{rows}".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(sql.utf8.count + table.utf8.count)
        var rest = sql.utf8[...]
        while let start = rest.firstIndex(of: UInt8(ascii: "{")) {
            bytes.append(contentsOf: rest[..<start])
            if rest[start...].starts(with: marker) {
                bytes.append(contentsOf: table.utf8)
                rest = rest[rest.index(start, offsetBy: marker.count)...]
            } else {
                bytes.append(UInt8(ascii: "{"))
                rest = rest[rest.index(after: start)...]
            }
        }
        bytes.append(contentsOf: rest)
        var end = bytes.count
        while end > 0, [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r")].contains(bytes[end - 1]) { end -= 1 }
        let ignoring = Array(SQLDialect.postgres.ignoringConflicts.utf8)
        let plain = end >= ignoring.count && bytes[(end - ignoring.count)..<end].elementsEqual(ignoring)
            ? String(decoding: bytes[..<(end - ignoring.count)], as: UTF8.self) : nil
        return (String(decoding: bytes, as: UTF8.self), plain)
    }

    deinit {
        // Its rows, if it holds some, are deleted by the next batch before its first chunk.
        home?.leaveTemporaryTable(declared: declared, .init(name: table, madeAtRollbacks: madeAtRollbacks,
                                                            deleted: deletedSinceTruncate + (holdsRows ? rowsHeld : 0)))
    }

    /// `PGCOPY\n\377\r\n\0`, no flags, no header extension.
    private static let header: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0] + [0, 0, 0, 0]

    private func append<Word: FixedWidthInteger>(_ word: Word) {
        text.append(word)
    }

    /// The next cell's column, after the row's count of cells when it is the first.
    private func nextCell() -> RowBatchColumn {
        if cell == 0 {
            if text.isEmpty { text.append(contentsOf: Self.header) }
            append(Int16(columns.count))
        }
        cell += 1
        return columns[cell - 1]
    }

    /// A cell its column cannot read (text that is no number for a number's column): the row ends
    /// in the error PostgreSQL gave when it read the cells as text, and, as that error did, the
    /// transaction ends with nothing of it kept (a writer that keeps what it wrote on an error, an
    /// export's import, would otherwise commit its counts of the chunk's rows without the rows).
    private var unreadable: (text: String, type: String)?

    private func unreadable(_ text: String, _ type: String) {
        if unreadable == nil { unreadable = (text, type) }
        append(Int32(-1))
    }

    /// A cell is its column's binary form: a number given for a text column is its digits, an
    /// integer for a real column its Double, as the text format read them.
    func add(_ value: Int64) {
        switch nextCell() {
        case .integer: append(Int32(8)); append(value)
        case .real: append(Int32(8)); append(Double(value).bitPattern)
        case .text: cellBytes(String(value).utf8)
        }
    }

    func add(_ value: Double) {
        switch nextCell() {
        case .real: append(Int32(8)); append(value.bitPattern)
        case .integer:
            guard let exact = Int64(exactly: value) else { return unreadable("\(value)", "bigint") }
            append(Int32(8)); append(exact)
        case .text: cellBytes((value.isNaN ? "NaN" : value.isInfinite ? (value < 0 ? "-Infinity" : "Infinity") : value.description).utf8)
        }
    }

    func add(bytes value: ByteText) {
        switch nextCell() {
        case .text: cellBytes(value)
        case .integer:
            guard let number = Int64(value.string) else { return unreadable(value.string, "bigint") }
            append(Int32(8)); append(number)
        case .real:
            guard let number = Double(value.string) else { return unreadable(value.string, "double precision") }
            append(Int32(8)); append(number.bitPattern)
        }
    }

    private func cellBytes<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        append(Int32(bytes.count))
        text.append(contentsOf: bytes)
    }

    func addNull() {
        _ = nextCell()
        append(Int32(-1))
    }

    func endRow() throws {
        precondition(cell == columns.count, "a row of this batch has \(columns.count) cells")
        cell = 0
        if let (value, type) = unreadable {
            unreadable = nil
            text.removeAll(keepingUpTo: 1 << 22)
            rows = 0
            database.rollBack()
            throw PostgresError(sqlState: "22P02", message: "invalid input syntax for type \(type): \"\(value)\"", sql: insert,
                                database: database.path)
        }
        rows += 1
        if rows == rowsPerChunk { try send() } else if direct && rows & 63 == 0 { database.pump() }
    }

    func flush() throws {
        try send()
        try database.finishSent()
    }

    /// The chunk to the server, and its statement sent (see the type's comment).
    func send() throws {
        guard rows > 0 else { return }
        let sentRows = rows
        defer {
            // A chunk of 8,192 metrics is about 1.5 MB: its memory kept (given back above 1 MB, it
            // grew again from 64 KB for each chunk).
            text.removeAll(keepingUpTo: 1 << 22)
            rows = 0
        }
        try database.finishSent()   // the previous chunk's statement, which reads the table
        append(Int16(-1))   // the trailer
        if direct { return try text.withBytes { try database.copy(copy, data: $0, waiting: false) } }
        // A chunk the partition refused takes the ignoring form at once: most often a row already there.
        var refusedStraight = false
        if let straightCopy, database.isInTransaction {
            if try copiedStraight(straightCopy) { return }
            refusedStraight = true
        }
        // The table made and emptied in the copy's round trip: an error in any of them stops the
        // rest, and the next chunk makes and empties the table again.
        var before: [String] = []
        if madeAtRollbacks != database.rollbacks {
            // After a rollback the table may be the one a committed chunk left rows in: emptied too.
            if madeAtRollbacks != nil { (holdsRows, rowsHeld) = (true, rowsPerChunk) }
            before.append(create)
            madeAtRollbacks = database.rollbacks
        }
        if holdsRows {
            if rowsHeld < 1_000 && deletedSinceTruncate < 4_000 {
                before.append("DELETE FROM \(table)")
                deletedSinceTruncate += rowsHeld
            } else {
                before.append("TRUNCATE \(table)")
                deletedSinceTruncate = 0
            }
            holdsRows = false
        }
        do {
            try text.withBytes { try database.copy((before + [copy]).joined(separator: "; "), data: $0) }
        } catch {
            (madeAtRollbacks, holdsRows, rowsHeld) = (nil, true, rowsPerChunk)
            throw error
        }
        if let plainInsert, database.isInTransaction, !refusedStraight {
            // The savepoint in the insert's round trip. Held by the connection until the outcome is
            // read: an error is never dropped with the batch.
            try database.send("SAVEPOINT cloudsync_rows; " + plainInsert) { outcome in try self.read(outcome, of: sentRows, savepoint: true) }
        } else {
            try database.send(insert) { outcome in try self.read(outcome, of: sentRows, savepoint: false) }
        }
    }

    /// The chunk copied straight into the patient's partition (`straightCopy`), under a savepoint,
    /// as the tables' owner (the partition's policy would refuse the copy: `OwnerPartitions
    /// .straightCopyTargets`): true when its rows are in. False when the partition refused the chunk
    /// whole, rolled back to the savepoint for the statement's way (which says the error again if
    /// it is the rows'): a row already there (which the writer rules out), or a refusal that may
    /// pass later (a full disk, a lock not had, a server shutting down); on anything else (a
    /// partition gone with an erase, or made again since without what the copy needs) the
    /// connection takes the statement's way from then on. A connection that broke is said as it is.
    private func copiedStraight(_ straightCopy: String) throws -> Bool {
        do {
            try OwnerPartitions.asTablesOwner(database, opening: "SAVEPOINT cloudsync_rows", closing: "RELEASE SAVEPOINT cloudsync_rows") { _ in
                try text.withBytes { try database.copy(straightCopy, data: $0) }
            }
        } catch let error as PostgresError where !error.isConnectionFailure {
            // The role the connection acted as comes back with the savepoint. A statement deferred
            // to the copy's round trip that failed before the savepoint was made (a summary's counts
            // refused by a full disk) left none: its error is the one said.
            let refused = error
            do { try database.rollBack(toSavepoint: "cloudsync_rows") } catch { throw refused }
            if !(error.isUniqueViolation || error.isUnavailable || error.isDiskFull || error.isLockTimeout) {
                (self.straightCopy, database.straightPartitions) = (nil, nil)
            }
            return false
        }
        return true
    }

    /// A sent chunk's outcome: a conflict under the savepoint takes the statement's ignoring form.
    private func read(_ outcome: Result<Int, PostgresError>, of sentRows: Int, savepoint: Bool) throws {
        var taken: Int
        switch outcome {
        case .success(let changed):
            taken = changed
            if savepoint { try database.executeWithNext("RELEASE SAVEPOINT cloudsync_rows") }
        case .failure(let error) where savepoint && error.isUniqueViolation:
            try database.rollBack(toSavepoint: "cloudsync_rows")
            try database.execute(insert)
            taken = database.changes
        case .failure(let error):
            throw error
        }
        notTaken += sentRows - taken
        holdsRows = true
        rowsHeld = sentRows
    }
}
