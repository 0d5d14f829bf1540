#if canImport(Glibc)
import Glibc
#endif
import CloudSyncModel

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
/// start, end, source, value, unit; its last columns, category and creation date, tell apart only
/// rows alike in these, which add the same value), so merging the runs gives the rows in that
/// order, and the hours add up in the same order to the same bits.
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
    /// buffer of its own (at least 8 rows, 384 bytes).
    static let mostRuns = 16_384

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

    /// `makeFile`: an anonymous temporary file (`AnonymousFile`), unless a test says otherwise.
    init(makeFile: @escaping () -> UnsafeMutablePointer<FILE>? = { AnonymousFile.open() }) {
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
            let code = errno
            throw SpillError.unwritable("\(AnonymousFile.place): \(String(cString: strerror(code)))")
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

/// A type's spilled rows, its runs merged: each run read through a buffer of its own (`pread`),
/// the next row the least of the runs' heads, found by a binary heap; ties go to the earlier run.
/// The buffers share about 2 MiB: a run's holds 512 rows, fewer when there are many runs (the 1 GB
/// export's active energy, listed with 2,695 rows that go back in time, has as many runs), and at
/// least 8 (6 MiB for 16,384 runs).
struct MergedRows {
    private typealias Row = MergeSpill.Row
    private static let noRow = Row(start: 0, end: 0, source: 0, value: 0, unit: 0, rank: 0)
    private static let bufferedRows = (2 << 20) / MemoryLayout<Row>.stride
    private let descriptor: Int32
    private let readRows: Int
    /// By run: where its next unread row is in the file and where it ends; how far its buffer is
    /// read and filled; its head, the least row not given yet.
    private var unread: [Int], end: [Int], position: [Int], filled: [Int]
    private var heads: [Row]
    private var buffer: [Row]
    /// The runs not spent, as a binary heap by head.
    private var heap: [Int] = []

    init(descriptor: Int32, runs: [(first: Int, count: Int)]) throws {
        let runs = runs.filter { $0.count > 0 }
        self.descriptor = descriptor
        readRows = max(8, min(512, Self.bufferedRows / max(1, runs.count)))
        unread = runs.map(\.first)
        end = runs.map { $0.first + $0.count }
        position = Array(repeating: 0, count: runs.count)
        filled = position
        heads = Array(repeating: Self.noRow, count: runs.count)
        buffer = Array(repeating: Self.noRow, count: runs.count * readRows)
        for run in runs.indices where try advance(run) {
            heap.append(run)
            var child = heap.count - 1
            while child > 0, less(heap[child], heap[(child - 1) / 2]) {
                heap.swapAt(child, (child - 1) / 2)
                child = (child - 1) / 2
            }
        }
    }

    /// The next row in key order, nil after the last.
    mutating func next() throws -> MergeSpill.Row? {
        guard let top = heap.first else { return nil }
        let row = heads[top]
        if try !advance(top) {
            let last = heap.removeLast()
            guard !heap.isEmpty else { return row }
            heap[0] = last
        }
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var least = parent
            if left < heap.count, less(heap[left], heap[least]) { least = left }
            if right < heap.count, less(heap[right], heap[least]) { least = right }
            if least == parent { break }
            heap.swapAt(parent, least)
            parent = least
        }
        return row
    }

    private func less(_ a: Int, _ b: Int) -> Bool {
        if Row.precedes(heads[a], heads[b]) { return true }
        if Row.precedes(heads[b], heads[a]) { return false }
        return a < b
    }

    /// Moves the run to its next row (read from the file when its buffer is spent); false when it
    /// has none.
    private mutating func advance(_ run: Int) throws -> Bool {
        if position[run] == filled[run] {
            let rows = min(readRows, end[run] - unread[run])
            guard rows > 0 else { return false }
            let stride = MemoryLayout<Row>.stride, offset = off_t(unread[run] * stride), descriptor = descriptor
            let start = run * readRows
            let bytes = buffer[start..<(start + rows)].withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, rows * stride, offset) }
            guard bytes == rows * stride else {
                throw MergeSpill.SpillError.unwritable(bytes < 0 ? String(cString: strerror(errno)) : "it ended early")
            }
            unread[run] += rows
            position[run] = 0
            filled[run] = rows
        }
        heads[run] = buffer[run * readRows + position[run]]
        position[run] += 1
        return true
    }
}
