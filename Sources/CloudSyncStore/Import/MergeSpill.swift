#if canImport(Glibc)
import Glibc
#endif

/// The counted rows of the types whose values merge across sources (steps, distances…) that an
/// import brings into the store for the first time, kept in an anonymous temporary file as they are
/// inserted, so that the hours of a type listed source by source (its rows going back in time) are
/// merged from here after the import's commit (`SpilledHours`), not read back through SQLite.
///
/// Why: on the 100 MB export the rebuild of the three types that go back in time read 80,000 rows
/// through `counted_metric` (the identity index, then the table's row for each), 339 M of the
/// import's 11,300 M instructions, alone on one core at the import's end.
///
/// Each type's rows are kept in runs: a run ends when the type changes or a row's identity key
/// goes back. A run is sorted by the key the rebuild reads the rows in (the identity index:
/// start, end, source, value, unit), so merging the runs gives the rows in that order, and the
/// hours add up in the same order to the same bits.
final class MergeSpill {
    /// One counted row: 48 bytes on disk.
    struct Row {
        var start, end, source: Int64
        var value: Double
        var unit, rank: Int64

        /// The identity index's order (its first column, the type, is the run's).
        static func precedes(_ a: Row, _ b: Row) -> Bool {
            if a.start != b.start { return a.start < b.start }
            if a.end != b.end { return a.end < b.end }
            if a.source != b.source { return a.source < b.source }
            if a.value != b.value { return a.value < b.value }
            return a.unit < b.unit
        }
    }

    /// A type with more runs than this is rebuilt from its rows: merging reads each run through a
    /// buffer of its own.
    static let mostRuns = 64
    /// How an error would name it (a full /tmp makes the types be rebuilt from their rows instead).
    static let name = "the temporary file in /tmp that holds the merged types' rows until the import's end"

    /// Made when the buffer is first full (a push's few rows never make one), by `makeFile`.
    private var file: UnsafeMutablePointer<FILE>?
    private let makeFile: () -> UnsafeMutablePointer<FILE>?
    /// Rows not yet written to the file; `count` rows in all, written and buffered. Unchecked (one
    /// thread imports), as the rest of what `append` touches.
    private let buffer: UnsafeMutablePointer<Row>
    @exclusivity(unchecked) private var buffered = 0, count = 0
    private static let bufferRows = 1365   // 64 KiB
    /// Each type's runs but the open one: where they start in the file (in rows) and how many rows they hold.
    private var runs: [Int64: [(first: Int, count: Int)]] = [:]
    /// The run rows are added to: its type, its first row, and its last row (the next one must not precede it).
    @exclusivity(unchecked) private var openType: Int64 = -1, openFirst = 0
    @exclusivity(unchecked) private var last = Row(start: 0, end: 0, source: 0, value: 0, unit: 0, rank: 0)

    /// `makeFile`: an anonymous temporary file in /tmp, unless a test says otherwise.
    init(makeFile: @escaping () -> UnsafeMutablePointer<FILE>? = { tmpfile() }) {
        self.makeFile = makeFile
        buffer = .allocate(capacity: Self.bufferRows)
    }

    deinit {
        if let file { fclose(file) }
        buffer.deallocate()
    }

    enum SpillError: Error { case unwritable(String) }

    /// Adds a counted row of `type`. False when the type has too many runs to merge (it is then to
    /// be rebuilt from its rows; its runs stay, unread). Per row, a comparison and a copy: with a
    /// dictionary's lookups per row, the spill was 103 M of the 100 MB import's mapping thread.
    func append(type: Int64, _ row: Row) throws -> Bool {
        if type != openType || Row.precedes(row, last) {
            closeRun()
            guard runs[type, default: []].count < Self.mostRuns else { return false }
            openType = type
            openFirst = count
        }
        last = row
        buffer[buffered] = row
        buffered += 1
        count += 1
        if buffered == Self.bufferRows { try flush() }
        return true
    }

    private func closeRun() {
        guard openType >= 0, count > openFirst else { return }
        runs[openType, default: []].append((openFirst, count - openFirst))
        openType = -1
    }

    private func flush() throws {
        guard buffered > 0 else { return }
        if file == nil { file = makeFile() }
        guard let file, fwrite(buffer, MemoryLayout<Row>.stride, buffered, file) == buffered, fflush(file) == 0 else {
            throw SpillError.unwritable(String(cString: strerror(errno)))
        }
        buffered = 0
    }

    /// The type's rows, merged from its runs in the identity index's order.
    func rows(of type: Int64) throws -> MergedRows {
        closeRun()
        try flush()
        return try MergedRows(descriptor: file.map { fileno($0) } ?? -1, runs: runs[type] ?? [])
    }
}

/// A type's spilled rows, its runs merged: each run read through a buffer of its own (`pread`), the
/// next row the least of the runs' heads, kept at hand (few runs: a scan, not a heap). Ties go to
/// the earlier run.
struct MergedRows {
    private typealias Row = MergeSpill.Row
    private let descriptor: Int32
    /// The runs not yet spent, in order: each one's next row, and where its buffer and file stand.
    private var heads: [Row] = []
    private var cursors: [(next: Int, end: Int, position: Int, filled: Int)] = []
    private var buffers: [[Row]] = []
    private static let readRows = 512

    init(descriptor: Int32, runs: [(first: Int, count: Int)]) throws {
        self.descriptor = descriptor
        for run in runs where run.count > 0 {
            cursors.append((run.first, run.first + run.count, 0, 0))
            buffers.append(Array(repeating: Row(start: 0, end: 0, source: 0, value: 0, unit: 0, rank: 0), count: Self.readRows))
            heads.append(Row(start: 0, end: 0, source: 0, value: 0, unit: 0, rank: 0))
            _ = try advance(cursors.count - 1)
        }
    }

    /// The next row in key order, nil after the last.
    mutating func next() throws -> MergeSpill.Row? {
        guard !heads.isEmpty else { return nil }
        var least = 0
        for index in 1..<heads.count where Row.precedes(heads[index], heads[least]) { least = index }
        let row = heads[least]
        if try !advance(least) {
            heads.remove(at: least)
            cursors.remove(at: least)
            buffers.remove(at: least)
        }
        return row
    }

    /// Moves the run at `index` to its next row (read from the file when its buffer is spent); false
    /// when it has none.
    private mutating func advance(_ index: Int) throws -> Bool {
        if cursors[index].position == cursors[index].filled {
            let rows = min(Self.readRows, cursors[index].end - cursors[index].next)
            guard rows > 0 else { return false }
            let stride = MemoryLayout<Row>.stride, offset = off_t(cursors[index].next * stride), descriptor = descriptor
            let bytes = buffers[index].withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, rows * stride, offset) }
            guard bytes == rows * stride else {
                throw MergeSpill.SpillError.unwritable(bytes < 0 ? String(cString: strerror(errno)) : "it ended early")
            }
            cursors[index] = (cursors[index].next + rows, cursors[index].end, 0, rows)
        }
        heads[index] = buffers[index][cursors[index].position]
        cursors[index].position += 1
        return true
    }
}
