package import CloudSyncModel

/// Rows written a chunk at a time by one statement that reads them as `{rows}`: SQLite's
/// `CellRows` (a virtual table over a flat buffer of cells), PostgreSQL's `PostgresRowBatch` (`COPY`
/// into a temporary table). For a writer of many small rows (metrics, route points, hour
/// summaries): a statement per row cost SQLite 13,500 instructions a metric against 3,300 a chunk
/// at a time (docs/performance.md, "Issue 34"), and PostgreSQL a round trip.
///
/// A row is its cells added in column order, then `endRow()`; a full chunk is written then, in the
/// caller's transaction, and `flush()` writes the rest.
package protocol RowBatch: AnyObject {
    func add(_ value: Int64)
    func add(_ value: Double)
    func add(bytes text: ByteText)
    func addNull()
    /// Ends the row; writes the chunk when it is full.
    func endRow() throws
    /// Writes the rows added since the last flush, in the open transaction.
    func flush() throws
    /// Writes them as `flush` does, but may leave the database at it while the caller goes on: on
    /// PostgreSQL the statement is sent, and its outcome (an error too) read before the connection's
    /// next command. What comes before a commit is a `flush`.
    func send() throws
    /// Rows given to the flushes so far that the table did not take (an `ON CONFLICT DO NOTHING`
    /// may take fewer).
    var notTaken: Int { get }
}

extension RowBatch {
    /// SQLite writes in the caller's thread: there is nothing to leave it at.
    package func send() throws { try flush() }

    package func add(_ value: Int64?) {
        if let value { add(value) } else { addNull() }
    }

    package func add(_ value: Double?) {
        if let value { add(value) } else { addNull() }
    }

    package func add(_ text: String?) {
        guard var text else { return addNull() }
        text.withUTF8 { add(bytes: $0) }
    }
}

/// A column of a `RowBatch`: what PostgreSQL's temporary table declares (SQLite takes any value).
package enum RowBatchColumn: Sendable {
    case integer, real, text

    /// `count` integer columns.
    package static func integers(_ count: Int) -> [RowBatchColumn] { Array(repeating: .integer, count: count) }
}
