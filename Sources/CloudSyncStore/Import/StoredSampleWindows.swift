import CloudSyncModel

/// An import's look at the samples stored, on PostgreSQL (issue 35, a clinic): whether rows alike a
/// sample (but for the creation date) are there and whether one has its creation date, answered from
/// a day of the type's rows read at once, not from a statement per sample. On PostgreSQL a statement
/// is a round trip: a push of 4,320 samples that looked each up and inserted each took 1.2 s with the
/// server on the same machine, and the 100 MB export imported again 18.6 s. The rule is the same
/// (`MetricWriter.add`); only where the answer comes from differs. The import holds the patient's
/// write turn (the owner's lock) while it looks and writes; the rows it adds are noted here as it
/// adds them, and a look after a commit (when others may have written) starts afresh.
final class StoredSampleWindows {
    private struct Sample: Hashable {
        var type, start, end, source: Int64
        var value: UInt64
        var unit, category: Int64

        init(type: Int64, start: Int64, end: Int64, source: Int64, value: Double, unit: Int64, category: Int64) {
            (self.type, self.start, self.end, self.source, self.unit, self.category) = (type, start, end, source, unit, category)
            self.value = value == 0 ? 0 : value.bitPattern   // -0 is 0, as SQL compares them
        }
    }

    /// A stored row of a sample: its creation date and the import that wrote it.
    private struct Row { var created: Int64, importID: Int64 }

    private struct Window: Hashable { var type, day: Int64 }

    /// A window's length: a push's samples of a type span a day or so; an export's come a type at a
    /// time, in time.
    static let span: Int64 = 86_400
    /// Windows kept at most (then all are forgotten and read again as needed): memory stays flat
    /// through an export of years.
    static let kept = 64

    private let select: any StoreStatement
    private var loaded: Set<Window> = []
    private var rows: [Sample: [Row]] = [:]
    /// The windows of the rows the import's chunk holds, not yet in the table: only such a window
    /// needs the chunk written before it is read. Writing the chunk before every read cut a batch
    /// of 500 into 16 inserts (5,210 `INSERT … SELECT` and `COPY` for 166,056 received metrics).
    private var unwritten: Set<Window> = []
    /// The last window found loaded, and the last put in `unwritten`: a batch's samples mostly
    /// follow one another in a window, and hashing windows and samples into these sets was 2.4% of
    /// `serve`'s CPU on a PostgreSQL receiver's upload (perf; 10% for all its hashing).
    private var lastLoaded: Window?
    private var lastUnwritten: Window?
    /// Per type, the latest start of a stored row, when one is known: a window that begins after it
    /// holds no row and is not read. Received batches and pushes mostly bring days after every
    /// stored one, and each such window was a statement that found nothing (31 a batch of 1,000
    /// metrics, 5,208 of a 166,056-metric upload's 19,300 statements). Read with the first window,
    /// again after `forget()`.
    private var storedBefore: [Int64: Int64]?
    /// Per type, the latest start of a row this import wrote or put in its chunk.
    private var addedLatest: [Int64: Int64] = [:]
    private let database: any StoreDatabase

    init(database: any StoreDatabase) throws {
        self.database = database
        select = try database.prepare("""
            SELECT start_date, end_date, source_id, value, unit_id, category_id, created_at, import_id FROM metric
            WHERE type_id = ? AND start_date >= ? AND start_date < ?
            """)
        // A batch's samples and their windows' rows: not grown from nothing, a rehash at each doubling.
        rows.reserveCapacity(1_024)
    }

    private static func day(of instant: Int64) -> Int64 { instant >= 0 ? instant / span : (instant - span + 1) / span }

    enum Alike { case none, alike, same(importID: Int64) }

    /// For a sample without a creation date (`created` nil): `.same` with the import of any alike
    /// stored row. For a dated one: `.same` when an alike row has its creation date, `.alike` when
    /// only others do.
    func alike(type: Int64, start: Int64, end: Int64, source: Int64, value: Double, unit: Int64, category: Int64,
               created: Int64?) throws -> Alike {
        if try isAfterEveryRow(type: type, start: start) { return .none }
        try load(type: type, start: start)
        guard let stored = rows[Sample(type: type, start: start, end: end, source: source, value: value, unit: unit, category: category)],
              let first = stored.first else { return .none }
        guard let created else { return .same(importID: first.importID) }
        return stored.first { $0.created == created }.map { .same(importID: $0.importID) } ?? .alike
    }

    /// Whether the sample's window is still to be read from the table and the import's chunk holds
    /// rows of it (then the chunk is written first).
    func needsChunkWritten(type: Int64, start: Int64) throws -> Bool {
        let window = Window(type: type, day: Self.day(of: start))
        guard window != lastLoaded && !loaded.contains(window) && unwritten.contains(window) else { return false }
        return try !isAfterEveryRow(type: type, start: start)
    }

    /// Whether the sample starts after every row of its type, stored or added by this import: then
    /// no row is alike (alike rows start at the same instant), and its window need not be read.
    /// Why per sample, not only per window: a batch mostly goes on where the last one stopped, in
    /// the middle of a day whose stored rows all start before the batch's samples (9.4 windows read
    /// a received batch of 1,000 in the 100 MB upload, each a round trip).
    private func isAfterEveryRow(type: Int64, start: Int64) throws -> Bool {
        if storedBefore == nil { storedBefore = try Self.latestStoredStarts(database) }
        return start > max(storedBefore?[type] ?? .min, addedLatest[type] ?? .min)
    }

    /// The import wrote its chunk: its rows are in the table.
    func chunkWritten() {
        unwritten.removeAll(keepingCapacity: true)
        lastUnwritten = nil
    }

    private func load(type: Int64, start: Int64) throws {
        let window = Window(type: type, day: Self.day(of: start))
        guard window != lastLoaded else { return }
        guard !loaded.contains(window) else {
            lastLoaded = window
            return
        }
        if loaded.count >= Self.kept { forget() }
        loaded.insert(window)
        lastLoaded = window
        if storedBefore == nil { storedBefore = try Self.latestStoredStarts(database) }
        if let stored = storedBefore?[type], window.day * Self.span > max(stored, addedLatest[type] ?? .min) { return }
        defer { select.reset() }
        try select.bind([.int(type), .int(window.day * Self.span), .int((window.day + 1) * Self.span)])
        while try select.step() {
            let sample = Sample(type: type, start: select.int64(0), end: select.int64(1), source: select.int64(2), value: select.double(3),
                                unit: select.int64(4), category: select.int64(5))
            rows[sample, default: []].append(Row(created: select.int64(6), importID: select.int64(7)))
        }
    }

    /// A row this import adds to its chunk (after its look: its window is read).
    func add(type: Int64, start: Int64, end: Int64, source: Int64, value: Double, unit: Int64, category: Int64, created: Int64,
             importID: Int64) {
        let sample = Sample(type: type, start: start, end: end, source: source, value: value, unit: unit, category: category)
        let window = Window(type: type, day: Self.day(of: start))
        if window != lastUnwritten {
            unwritten.insert(window)
            lastUnwritten = window
        }
        wrote(type: type, start: start)
        guard window == lastLoaded || loaded.contains(window) else { return }
        rows[sample, default: []].append(Row(created: created, importID: importID))
    }

    /// The latest start of the type's stored rows (nil: none is stored), as read with the first
    /// window, or now: the hours after its hour are new (`OnlineHourSummary.FreshHours`).
    func latestStoredStart(of type: Int64) throws -> Int64? {
        if storedBefore == nil { storedBefore = try Self.latestStoredStarts(database) }
        return storedBefore?[type]
    }

    /// A row this import wrote into the table itself (not through its chunk).
    func wrote(type: Int64, start: Int64) {
        if start > addedLatest[type, default: .min] { addedLatest[type] = start }
    }

    /// Everything read so far: what others wrote between two commits is read again (the chunk's
    /// windows stay known: its rows are not in the table yet).
    func forget() {
        loaded.removeAll()
        lastLoaded = nil
        rows.removeAll(keepingCapacity: true)
        storedBefore = nil
    }

    /// What `latestStoredStarts` reads.
    static let latestStoredStartsRead = """
        SELECT t.type_id, (SELECT m.start_date FROM metric m WHERE m.type_id = t.type_id ORDER BY m.start_date DESC LIMIT 1)
        FROM (SELECT DISTINCT type_id FROM metric_summary) t
        """

    /// Per stored type (those `metric_summary` names), the latest start of its rows: one backward
    /// step in the identity index a type (0.3–0.7 ms for 35 types). Not the summary's latest end: a
    /// received sample may end before it starts, and its row would lie past that bound.
    /// The step asked for (`ORDER BY … DESC LIMIT 1`), not left to the planner's choice for `max`:
    /// planned when the patient's partition was new and nearly empty, `max` read every row of the
    /// type instead, and the plan stayed with the connection (23 ms a batch at 166,000 rows: the
    /// receiver's PostgreSQL CPU went from 3.5–4.3 s to 9.8–11.5 s).
    private static func latestStoredStarts(_ database: any StoreDatabase) throws -> [Int64: Int64] {
        var latest: [Int64: Int64] = [:]
        let rows = try database.prepare(latestStoredStartsRead)
        while try rows.step() {
            if !rows.isNull(1) { latest[rows.int64(0)] = rows.int64(1) }
        }
        return latest
    }
}
