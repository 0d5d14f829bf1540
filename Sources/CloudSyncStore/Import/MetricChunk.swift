import CloudSyncModel
import CSQLiteRows

/// The rows of an import that need no look at the store (new to it: `SeenSamples` says so), kept in
/// a flat buffer and written a chunk at a time by one `INSERT … SELECT` from the virtual table
/// `cloudsync_rows` over the buffer (Sources/CSQLiteRows). A step per row reopened the table's and
/// its indexes' cursors and ran the statement's prologue every time: 13,500 of SQLite's instructions
/// a row on the 48 MB generated export, against 3,300 for the chunk (docs/performance.md, "Issue 34").
final class MetricChunk {
    private var rows: [cloudsync_row] = []
    private var extra = ByteBuffer(capacity: 1 << 16)
    private let chunk: UnsafeMutablePointer<cloudsync_chunk>
    private let insert: SQLiteStatement
    private let run: Int64

    init(database: SQLiteDatabase, run: Int64) throws {
        chunk = try database.rowChunk()
        self.run = run
        insert = try database.prepare("""
            INSERT OR IGNORE INTO metric(type_id, start_date, end_date, source_id, value, unit_id, category_id, device_id,
                                         source_version_id, extra, import_id, created_at, is_repeat, summary, superseded, origin)
            SELECT * FROM cloudsync_rows
            """)
        rows.reserveCapacity(4096)
    }

    var count: Int { rows.count }

    /// Adds a row; `extra` is its metadata's other members as JSON (nil: none).
    func add(_ row: cloudsync_row, extra metadata: ByteText?) {
        var row = row
        if let metadata {
            row.extra_offset = Int64(extra.count)
            row.extra_length = Int32(metadata.count)
            extra.append(metadata)
        } else {
            row.extra_length = -1
        }
        rows.append(row)
    }

    /// Writes the rows in the open transaction: how many the table took (fewer only when the
    /// identity index had some, which the import's filter rules out unless the store changed under it).
    func flush() throws -> Int {
        guard !rows.isEmpty else { return 0 }
        defer {
            chunk.pointee = cloudsync_chunk(rows: nil, count: 0, extra: nil, run: 0)
            rows.removeAll(keepingCapacity: true)
            extra.removeAll(shrinkingAbove: 8 << 20, to: 1 << 16)
        }
        return try rows.withUnsafeBufferPointer { buffer in
            try extra.withBytes { bytes in
                chunk.pointee = cloudsync_chunk(rows: buffer.baseAddress, count: Int64(buffer.count),
                                                extra: UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self), run: run)
                try insert.step()
                insert.rewind()
                return insert.database.changes
            }
        }
    }
}
