package import CloudSyncModel
import CSQLiteRows
import Foundation

/// SQLite's `RowBatch`: rows for one `INSERT … SELECT c0, c1, … FROM {rows}`, kept in a flat
/// buffer of cells that the statement reads as the virtual table `cloudsync_cells`
/// (Sources/CSQLiteRows/cloudsync_cells.c), written a chunk at a time: one statement per chunk
/// instead of a step per row, which reopened the table's cursors and ran the statement's prologue
/// each time (route points: 8,900 of SQLite's instructions a point on the 48 MB generated export;
/// docs/performance.md, "Issue 34").
package final class CellRows: RowBatch {
    private let database: SQLiteDatabase
    private let insert: SQLiteStatement
    private let chunk: UnsafeMutablePointer<cloudsync_cell_chunk>
    private let columns: Int
    private let rowsPerChunk: Int
    /// A chunk's cells, allocated once: an `append` to an array per cell cost the import 380
    /// instructions a metric more (callgrind).
    private let cells: UnsafeMutablePointer<cloudsync_cell>
    private let capacity: Int
    // Unchecked: the checks of a class's stored property cost 60% of an `add` (callgrind).
    @exclusivity(unchecked) private var used = 0
    @exclusivity(unchecked) private var bytes = ByteBuffer(capacity: 1 << 12)
    /// Rows given to the flushes so far that the table did not take (an `OR IGNORE` may take fewer).
    package private(set) var notTaken = 0

    /// Rows added and not yet written.
    package var pendingRows: Int { used / columns }

    /// `sql` reads `{rows}` (`… SELECT c0, c1 FROM {rows}`); `columns` ≤ 16.
    package init(database: SQLiteDatabase, columns: Int, sql: String, rowsPerChunk: Int = 4096) throws {
        precondition(columns > 0 && columns <= Int(CLOUDSYNC_CELLS_MAX_COLUMNS), "cloudsync_cells has 16 columns")
        self.database = database
        self.columns = columns
        self.rowsPerChunk = rowsPerChunk
        chunk = try database.cellChunk()   // before the statement: it names the table
        insert = try database.prepare(sql.replacingOccurrences(of: "{rows}", with: "cloudsync_cells"))
        capacity = columns * rowsPerChunk
        cells = .allocate(capacity: capacity)
    }

    deinit { cells.deallocate() }

    @inline(__always) private func append(_ cell: cloudsync_cell) {
        precondition(used < capacity, "a row of CellRows has at most its columns")
        cells[used] = cell
        used += 1
    }

    package func add(_ value: Int64) {
        var cell = cloudsync_cell()
        cell.integer = value
        cell.kind = Int32(CLOUDSYNC_CELL_INT)
        append(cell)
    }

    package func add(_ value: Double) {
        var cell = cloudsync_cell()
        cell.real = value
        cell.kind = Int32(CLOUDSYNC_CELL_DOUBLE)
        append(cell)
    }

    package func add(bytes text: ByteText) {
        var cell = cloudsync_cell()
        cell.integer = Int64(bytes.count)
        cell.kind = Int32(CLOUDSYNC_CELL_TEXT)
        cell.length = Int32(text.count)
        bytes.append(text)
        append(cell)
    }

    package func addNull() { append(cloudsync_cell()) }

    /// Ends the row; writes the chunk when it is full.
    package func endRow() throws {
        precondition(used % columns == 0, "a row of CellRows has \(columns) cells")
        if used == capacity { try flush() }
    }

    /// Writes the rows added since the last flush, in the open transaction.
    package func flush() throws {
        guard used > 0 else { return }
        defer {
            insert.rewind()
            chunk.pointee = cloudsync_cell_chunk(cells: nil, count: 0, columns: 0, bytes: nil)
            used = 0
            bytes.removeAll(shrinkingAbove: 1 << 20, to: 1 << 12)
        }
        let rows = used / columns
        try bytes.withBytes { text in
            chunk.pointee = cloudsync_cell_chunk(cells: cells, count: Int64(rows), columns: Int32(columns),
                                                 bytes: UnsafeRawPointer(text.baseAddress)?.assumingMemoryBound(to: CChar.self))
            try insert.step()
            notTaken += rows - database.changes
        }
    }
}
