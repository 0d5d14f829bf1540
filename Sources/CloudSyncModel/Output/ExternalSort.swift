#if canImport(Glibc)
import Glibc
#endif

// An external sort by start date: records are encoded once into runs of bounded size, each run is
// sorted in memory and spilled to an anonymous temporary file, and the runs are merged at the end.
// Memory is bounded by the run size, whatever the number of records. Shared by every writer that
// must order its output by date (CloudCare batches; the store's exports).

/// Encoded metrics in arrival order, with their start dates, sortable without moving the bytes.
package final class SortRun {
    private var bytes = ByteBuffer(capacity: 1 << 20)
    /// (startDate, offset, length); Array's sort is not stable, so ties keep order by offset.
    private var index: [(start: Int64, offset: Int, length: Int)] = []

    package var byteCount: Int { bytes.count }
    package var count: Int { index.count }

    package func add(startDate: Int64, json: ByteText) {
        index.append((startDate, bytes.count, json.count))
        bytes.append(json)
    }

    /// Calls `body` with each metric's JSON in (startDate, arrival) order.
    package func sorted(_ body: (ByteText) throws -> Void) throws {
        index.sort { $0.start != $1.start ? $0.start < $1.start : $0.offset < $1.offset }
        for entry in index { try body(bytes.bytes(entry.offset..<(entry.offset + entry.length))) }
    }
}

/// A sorted run in an anonymous temporary file (`AnonymousFile`: deleted when closed or at exit).
package final class SpilledRun {
    private let file: UnsafeMutablePointer<FILE>
    private var record: [UInt8] = []
    private(set) var currentStart: Int64 = 0

    package init(_ run: SortRun) throws {
        guard let file = AnonymousFile.open() else {
            let code = errno   // before the name is made
            throw ConversionError.output(AnonymousFile.place, String(cString: strerror(code)))
        }
        self.file = file
        try run.sorted { json in try self.writeRecord(json) }
        rewind(file)
    }

    deinit { fclose(file) }

    private func writeRecord(_ json: ByteText) throws {
        var length = UInt32(json.count)
        guard fwrite(&length, 4, 1, file) == 1, fwrite(json.baseAddress, 1, json.count, file) == json.count else {
            throw ConversionError.output("a temporary file", String(cString: strerror(errno)))
        }
    }

    /// Reads the next record into `record`; false at the end.
    private func next() -> Bool {
        var length = UInt32(0)
        guard fread(&length, 4, 1, file) == 1 else { return false }
        record = [UInt8](repeating: 0, count: Int(length))
        return fread(&record, 1, Int(length), file) == Int(length)
    }

    /// Merges sorted runs; ties go to the earlier run, so the merge is stable.
    package static func merge(_ runs: [SpilledRun], _ body: (ByteText) throws -> Void) throws {
        var heads: [(start: Int64, run: Int)] = []
        for (i, run) in runs.enumerated() where run.next() {
            heads.append((run.startDate(), i))
        }
        while let best = heads.indices.min(by: { heads[$0].start != heads[$1].start ? heads[$0].start < heads[$1].start : heads[$0].run < heads[$1].run }) {
            let run = runs[heads[best].run]
            try run.record.withUnsafeBufferPointer { try body($0) }
            if run.next() { heads[best].start = run.startDate() } else { heads.remove(at: best) }
        }
    }

    /// The `startDate` of the current record, read from its JSON (always at the same offset:
    /// `{"type":"…","startDate":"2024-…`).
    private func startDate() -> Int64 {
        record.withUnsafeBufferPointer { bytes -> Int64 in
            guard let range = bytes.firstRange(of: "\",\"startDate\":\"") else { return 0 }
            let date = bytes.slice(range.upperBound..<Swift.min(range.upperBound + 20, bytes.count))
            return ExportDateParser.epochSeconds(date) ?? 0
        }
    }
}
