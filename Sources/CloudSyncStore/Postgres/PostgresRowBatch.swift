import CLibPQ
import CloudSyncModel
import Foundation

/// PostgreSQL's `RowBatch`: a chunk's rows go to the server in `COPY`'s text format, into a
/// temporary table of the connection, and the statement (`INSERT … SELECT c0, c1, … FROM {rows}
/// … ON CONFLICT …`) moves them into the store's table in one go; the temporary table is emptied
/// after. One round trip and one statement a chunk, instead of one per row (issue 34's item 5).
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
final class PostgresRowBatch: RowBatch {
    private unowned let database: PostgresDatabase
    private let columns: [RowBatchColumn]
    private let rowsPerChunk: Int
    private let table: String
    private let create, copy, insert: String
    /// `insert` without its `ON CONFLICT DO NOTHING`, when it has one.
    private let plainInsert: String?
    /// The chunk in `COPY`'s text format: tab between cells, a newline after each row.
    private var text: [UInt8] = []
    private var cell = 0
    private var rows = 0
    private(set) var notTaken = 0

    init(database: PostgresDatabase, columns: [RowBatchColumn], sql: String, rowsPerChunk: Int) {
        self.database = database
        self.columns = columns
        self.rowsPerChunk = rowsPerChunk
        table = "cloudsync_rows_\(database.nextTemporaryName())"
        let declared = columns.enumerated().map { index, column in
            "c\(index) " + (column == .integer ? "bigint" : column == .real ? "double precision" : "text")
        }
        // Made again when missing: a temporary table made in a transaction that was rolled back is gone.
        create = "CREATE TEMPORARY TABLE IF NOT EXISTS \(table) (\(declared.joined(separator: ", ")))"
        copy = "COPY \(table) FROM STDIN"
        insert = sql.replacingOccurrences(of: "{rows}", with: table)
        let trimmed = insert.trimmingCharacters(in: .whitespacesAndNewlines)
        plainInsert = trimmed.hasSuffix("ON CONFLICT DO NOTHING") ? String(trimmed.dropLast("ON CONFLICT DO NOTHING".count)) : nil
        text.reserveCapacity(1 << 16)
    }

    private func separate() {
        if cell > 0 { text.append(UInt8(ascii: "\t")) }
        cell += 1
    }

    func add(_ value: Int64) {
        separate()
        text.append(contentsOf: String(value).utf8)
    }

    func add(_ value: Double) {
        separate()
        // The shortest text that reads back as the same Double.
        if value.isNaN {
            text.append(contentsOf: "NaN".utf8)
        } else if value.isInfinite {
            text.append(contentsOf: (value < 0 ? "-Infinity" : "Infinity").utf8)
        } else {
            text.append(contentsOf: value.description.utf8)
        }
    }

    func add(bytes value: ByteText) {
        separate()
        for byte in value {
            switch byte {
            case UInt8(ascii: "\\"): text.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\t"): text.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case UInt8(ascii: "\n"): text.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): text.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            default: text.append(byte)
            }
        }
    }

    func addNull() {
        separate()
        text.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "N")])
    }

    func endRow() throws {
        precondition(cell == columns.count, "a row of this batch has \(columns.count) cells")
        text.append(UInt8(ascii: "\n"))
        cell = 0
        rows += 1
        if rows == rowsPerChunk { try send() }
    }

    func flush() throws {
        try send()
        try database.finishSent()
    }

    /// The chunk to the server, and its statement sent (see the type's comment).
    private func send() throws {
        guard rows > 0 else { return }
        let sentRows = rows
        defer {
            text.removeAll(keepingCapacity: text.count <= 1 << 20)
            rows = 0
        }
        try database.execute(create)   // after the previous chunk's statement was read: its table is empty again
        try text.withUnsafeBufferPointer { try database.copy(copy, data: UnsafeRawBufferPointer($0)) }
        if let plainInsert, database.isInTransaction {
            try database.execute("SAVEPOINT cloudsync_rows")
            try database.send(plainInsert) { [weak self] outcome in try self?.read(outcome, of: sentRows, savepoint: true) }
        } else {
            try database.send(insert) { [weak self] outcome in try self?.read(outcome, of: sentRows, savepoint: false) }
        }
    }

    /// A sent chunk's outcome: a conflict under the savepoint takes the statement's ignoring form.
    private func read(_ outcome: Result<Int, PostgresError>, of sentRows: Int, savepoint: Bool) throws {
        var taken: Int
        switch outcome {
        case .success(let changed):
            taken = changed
            if savepoint { try database.execute("RELEASE SAVEPOINT cloudsync_rows") }
        case .failure(let error) where savepoint && error.isUniqueViolation:
            try database.execute("ROLLBACK TO SAVEPOINT cloudsync_rows")
            try database.execute(insert)
            taken = database.changes
        case .failure(let error):
            throw error
        }
        notTaken += sentRows - taken
        try database.execute("TRUNCATE \(table)")
    }
}
