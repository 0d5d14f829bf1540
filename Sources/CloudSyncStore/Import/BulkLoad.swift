/// A new patient's export on PostgreSQL, imported whole (`POST /api/v1/exports`): its metrics,
/// their hours and its route points are loaded as a bulk load into the patient's own partitions of
/// `metric`, `metric_hour` and `route_point` (`OwnerPartitions`), made for it in the import's
/// transaction and attached when their rows are in (the route points' as the import commits:
/// `attachAddedRows`).
///
/// - Each chunk is copied straight into the table, which has no index yet and no row-level security
///   (nobody else can see it before the commit), with its ids (`nextID`); its owner is the table's
///   default. The shared table kept its key, the identity index and three partial indexes up to
///   date row by row (`Benchmarks/pg-bulk.sh`: 21.8–23.5 s of PostgreSQL's time for the 1 GB
///   export's 2.4 million rows, against 7.1–7.8 s for the copy and about 7 s for the indexes built
///   by sort).
/// - The hours the import counts are copied straight into the patient's new hour table, those
///   written twice added up once it is attached (`BulkHours`).
/// - Nothing is looked up in the store while the rows come: the patient had none. A sample the
///   import's filter says it may have added before (`SeenSamples`: its repeats, and about 1 in 700
///   that it did not add) is copied into a temporary table of undecided rows, and decided once the
///   table is attached, by its identity index (`settle`): written twice (dropped), a repeat, or new
///   after all; the rest then join the table. Written into the table and marked, they were decided
///   by a join that read the whole table, and unmarked by an update that read it again (0.7–1.0 s
///   and 0.4–0.6 s for the 1 GB export's 2.4 million rows); and the marks' updates in place could
///   leave the indexes built at the attach unusable to the rest of the transaction
///   (`pg_index.indcheckxmin`).
/// - Attaching the table builds the shared table's key and identity index on it by sort (its partial
///   indexes, which hold few rows, and a check that every row is the patient's are made with the
///   table: `OwnerPartitions.readyToAttach`), and takes a lock that lets
///   the other patients' reads and writes go on. Until the commit nobody else sees any of it; a
///   connection that drops, or an input that fails, leaves nothing (the table goes with the rollback).
final class BulkLoad {
    private let database: PostgresDatabase
    /// The partitions to be (of `metric` and of `metric_hour`), quoted.
    private let table, hourTable: String
    private let name, hourName: String
    /// The partitions to be of the tables whose rows are added as they are (`route_point`), by
    /// table: each chunk copied straight in (`addedRows`), the table attached as the import commits.
    private let added: [String: String]
    /// How many samples the input holds, when it says: the hours' filter is sized by it.
    private let samples: Int?
    private var hours: BulkHours?

    private init(database: PostgresDatabase, name: String, hourName: String, added: [String: String], samples: Int?) {
        self.database = database
        self.name = name
        self.hourName = hourName
        self.added = added
        self.samples = samples
        table = PostgresStoreSchema.quoted(name)
        hourTable = PostgresStoreSchema.quoted(hourName)
    }

    /// The tables of `OwnerPartitions` loaded so, beside `metric` and `metric_hour`. Through the
    /// shared table (a temporary table's copy, then an insert whose key and row-level security are
    /// checked row by row), the 1 GB export's 666,586 route points cost PostgreSQL 3.3 s.
    private static let addedTables = ["route_point"]

    /// On PostgreSQL, in the import's transaction: when the patient has no partitions yet, an export
    /// imported whole is loaded into new ones (returned). Any other write found them made before its
    /// transaction (`makeMissingPartitions`); one that did not (the patient was erased since) makes
    /// those missing now, empty (nil). A patient with rows (`storedBefore`, the last row's id) has their partitions:
    /// nothing is asked. (Asked at each received batch, the receiver's CPU a stored metric was 2–7%
    /// above the unpartitioned store's in five pairs; not asked, −5 to +4% in three.)
    static func begin(database: any StoreDatabase, origin: ImportOrigin, storedBefore: Int64) throws -> BulkLoad? {
        guard let postgres = database as? PostgresDatabase, storedBefore == 0 else { return nil }
        let missing = try OwnerPartitions.missingOwn(in: postgres)
        guard !missing.isEmpty else { return nil }
        let inBulk = loadsInBulk(origin, missing: missing)
        let loaded = inBulk ? ["metric", "metric_hour"] + addedTables : []
        for (table, name) in missing.sorted(by: { $0.key < $1.key }) where !loaded.contains(table) {
            try OwnerPartitions.makeOwn(name, of: table, in: postgres)
        }
        guard inBulk, let name = missing["metric"], let hourName = missing["metric_hour"] else { return nil }
        let added = missing.filter { addedTables.contains($0.key) }
        try OwnerPartitions.asTablesOwner(postgres) { acting in
            for (table, name) in [("metric", name), ("metric_hour", hourName)] + added.sorted(by: { $0.key < $1.key }) {
                try makeTable(name, like: table, acting: acting, in: postgres)
            }
        }
        return BulkLoad(database: postgres, name: name, hourName: hourName, added: added, samples: origin.samples)
    }

    /// On PostgreSQL, before the import's first transaction: a patient without partitions gets them
    /// now, empty, in a short transaction of their own (`OwnerPartitions.makeMissingOwn`), unless this
    /// import loads in bulk (`begin` makes its own). Made in the import's transaction, a new patient's
    /// first write held the lock that attaching takes on the shared tables to its commit: 50 phones'
    /// first pushes at once waited for one another, 12–14 of them past the push's 10 s and answered
    /// 503 (`Benchmarks/clinic-load.sh --postgres`, three rounds).
    /// Asked once a connection: a round trip at each received batch cost the receiver 2–7% of its CPU
    /// (above); once found made, they are not asked for again (`begin` makes them again if the patient
    /// was erased since).
    static func makeMissingPartitions(database: any StoreDatabase, origin: ImportOrigin) throws {
        guard let postgres = database as? PostgresDatabase, !postgres.ownPartitionsFound else { return }
        let missing = try OwnerPartitions.missingOwn(in: postgres)
        guard !loadsInBulk(origin, missing: missing) else { return }
        if !missing.isEmpty { try OwnerPartitions.makeMissingOwn(in: postgres) }
        postgres.straightPartitions = (try? OwnerPartitions.straightCopyTargets(in: postgres)) ?? nil
        postgres.ownPartitionsFound = true
    }

    /// Whether an import into a patient whose partitions `missing` lacks is a bulk load: an export
    /// imported whole, for a patient without rows.
    private static func loadsInBulk(_ origin: ImportOrigin, missing: [String: String]) -> Bool {
        origin.commit == .whole && origin.loadsInBulk && missing["metric"] != nil && missing["metric_hour"] != nil
    }

    /// A new table `name` to be the patient's partition of `table`, made as the tables' owner: its
    /// owner a constant (not read a row at a time), ready to attach (`OwnerPartitions.readyToAttach`),
    /// and written by the role the connection acts as (`acting`), which copies into it by its name.
    /// Attached by `attachAsEveryPartition`.
    private static func makeTable(_ name: String, like table: String, acting: String?, in database: PostgresDatabase) throws {
        try OwnerPartitions.create(name, like: table, in: database)
        let defaults = try database.scalarText("SELECT format('ALTER TABLE %I ALTER COLUMN owner SET DEFAULT %L', ?::text, \(OwnerPartitions.currentOwner))",
                                               [.text(name)])
        try database.execute(defaults ?? "")
        try OwnerPartitions.readyToAttach(name, of: table, in: database)
        if let acting { try database.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON \(PostgresStoreSchema.quoted(name)) TO \(PostgresStoreSchema.quoted(acting))") }
    }

    /// Rows of `table` added as they are, copied a chunk at a time straight into the patient's new
    /// partition of it; nil when this load makes none (its rows go through the shared table).
    func addedRows(_ cells: [RowBatchColumn], into table: String, names: [String]) -> (any RowBatch)? {
        guard let partition = added[table] else { return nil }
        return PostgresRowBatch(database: database, columns: cells, copyInto: PostgresStoreSchema.quoted(partition), names: names,
                                rowsPerChunk: 8192)
    }

    /// The import is about to commit: the partitions of the rows added as they are are attached
    /// (their keys built by sort), as `settle` attached the metrics'.
    func attachAddedRows() throws {
        try OwnerPartitions.asTablesOwner(database) { _ in
            for (table, name) in added.sorted(by: { $0.key < $1.key }) { try attachAsEveryPartition(name, to: table) }
        }
    }

    /// The rows, copied a chunk at a time into the table (`columns` of the metric table, as `cells`
    /// declares them, then the id: each row's last cell is `nextID()`).
    func rows(_ cells: [RowBatchColumn], columns: [String], rowsPerChunk: Int) -> any RowBatch {
        PostgresRowBatch(database: database, columns: cells + [.integer], copyInto: table, names: columns + ["id"], rowsPerChunk: rowsPerChunk)
    }

    /// The rows the import's filter says it may have added before, copied like `rows` into a
    /// temporary table of their own, and decided at `settle`.
    func undecidedRows(_ cells: [RowBatchColumn], columns: [String]) throws -> any RowBatch {
        try database.execute("CREATE TEMPORARY TABLE \(Self.undecidedRows) (LIKE \(table) INCLUDING DEFAULTS) ON COMMIT DROP")
        return PostgresRowBatch(database: database, columns: cells + [.integer], copyInto: Self.undecidedRows, names: columns + ["id"],
                                rowsPerChunk: 8192)
    }

    private static let undecidedRows = "cloudsync_undecided_metrics"

    /// The ids this load gives its rows, taken from the shared table's numbering a million at a time:
    /// the id's default (`nextval` a row) cost PostgreSQL 1.2 µs of a row's 2.7 µs in the copy (the
    /// 1 GB export: 6.45 s for the 2.4 million rows).
    private var ids: Range<Int64> = 0..<0
    private static let idsTaken: Int64 = 1_000_000

    func nextID() throws -> Int64 {
        if ids.isEmpty {
            // The numbering jumps ahead by the ids taken, under a lock of its own, so that it never goes
            // back: a row of another patient's that took an id meanwhile is below the jump, and two
            // loads never take the same ids (a patient's own are all in their partition: its key is
            // the owner and the id, so ids below another patient's are no conflict).
            // As the tables' owner: `setval` needs a right the patients' role has not.
            let first = try OwnerPartitions.asTablesOwner(database) { _ in
                try database.execute("SELECT pg_advisory_lock(hashtextextended('cloudsync.metric-ids', 0))")
                defer { _ = try? database.execute("SELECT pg_advisory_unlock(hashtextextended('cloudsync.metric-ids', 0))") }
                return try database.scalarInt("""
                    SELECT setval(pg_get_serial_sequence(\(OwnerViews.sharedSQL("'metric'")), 'id'),
                                  nextval(pg_get_serial_sequence(\(OwnerViews.sharedSQL("'metric'")), 'id')) + \(Self.idsTaken - 1))
                    """) ?? 0
            }
            ids = (first - Self.idsTaken + 1)..<(first + 1)
        }
        return ids.popFirst()!
    }

    /// The hours the import counts (`OnlineHourSummary`): copied straight into the patient's new
    /// hour table, or staged in a temporary table when they may have been written before, and added
    /// to their twins when the table is attached (`attachHours`). Upserted a chunk at a time, an hour
    /// that the next source's rows opened again was written again: the 1 GB export's 765,336 hours
    /// were 1.7 million upserted rows, 6.35 s of PostgreSQL's time. Inserted into the shared table
    /// (its key kept up to date row by row), they cost 6.8 s.
    func hourRows(_ cells: [RowBatchColumn], columns: String) throws -> BulkHours {
        let names = columns.split(separator: ", ").map(String.init)
        let declared = zip(names, cells).map { name, cell in
            name + (cell == .integer ? " bigint" : cell == .real ? " double precision" : " text")
        }.joined(separator: ", ")
        try database.execute("CREATE TEMPORARY TABLE \(Self.stagedHours) (\(declared)) ON COMMIT DROP")
        let hours = BulkHours(table: PostgresRowBatch(database: database, columns: cells, copyInto: hourTable, names: names, rowsPerChunk: 8192),
                              staged: PostgresRowBatch(database: database, columns: cells, copyInto: Self.stagedHours, names: names,
                                                       rowsPerChunk: 8192),
                              hours: samples)
        self.hours = hours
        return hours
    }

    private static let stagedHours = "cloudsync_staged_hours"

    /// The types `rebuilt` from the rows lose the hours counted of them as the rows came, before
    /// their rebuilt ones are copied in (`rebuiltHours`).
    func removeHours(of rebuilt: Set<Int64>) throws {
        let written = rebuilt.intersection(hours?.typesInTable ?? [])
        guard !written.isEmpty else { return }
        try database.execute("DELETE FROM \(hourTable) WHERE type_id IN (\(written.sorted().map(String.init).joined(separator: ", ")))")
    }

    /// The hours of the types rebuilt from the rows, each whole and once: copied straight into the
    /// patient's hour table, after `removeHours` and before `attachHours`.
    func rebuiltHours(_ cells: [RowBatchColumn], columns: String) -> any RowBatch {
        PostgresRowBatch(database: database, columns: cells, copyInto: hourTable, names: columns.split(separator: ", ").map(String.init),
                         rowsPerChunk: 8192)
    }

    /// The hours are all in: their table becomes the patient's partition, its key built by sort; then
    /// the staged hours (but the types `rebuilt`'s), each hour's parts added up, are added to their
    /// twins through the key (`OnlineHourSummary.addedToStored`).
    func attachHours(columns: String, rebuilt: Set<Int64>) throws {
        try OwnerPartitions.asTablesOwner(database) { _ in try attachAsEveryPartition(hourName, to: "metric_hour") }
        try database.execute("""
            INSERT INTO metric_hour AS h(\(columns))
            SELECT type_id, unit_id, hour, sum("count"), sum("sum"), min(minimum), max(maximum),
                   sum(merged_count), sum(merged_sum), min(merged_minimum), max(merged_maximum)
            FROM \(Self.stagedHours)
            \(rebuilt.isEmpty ? "" : "WHERE type_id NOT IN (\(rebuilt.sorted().map(String.init).joined(separator: ", ")))")
            GROUP BY type_id, unit_id, hour
            \(OnlineHourSummary.addedToStored(.postgres))
            """)
        try database.execute("DROP TABLE \(Self.stagedHours)")
    }

    /// What an undecided row turned out to be, when it was not new.
    struct Decided {
        enum Outcome { case writtenTwice, repeated }
        var type, unit, source, start: Int64
        var value: Double
        var outcome: Outcome
    }

    /// The rows are all in: the table becomes the patient's partition, then the undecided rows are
    /// decided. What was decided otherwise than new, for the writer's counts.
    ///
    /// The table holds no sample twice (the filter says "maybe" to every second one: it is
    /// undecided), so its identity index is built as it is attached, and the undecided rows are
    /// decided by it: 70 ms for 3,600 rows against 2.4 million (psql), where before the attach a
    /// join read the whole table (1.4–2.1 s).
    func settle() throws -> [Decided] {
        // The statistics of the rows, for the plans of the decision, of the rebuild and, once
        // committed, of the patient's next writes (without them, a nested loop that read the whole
        // table for each undecided row was one).
        try OwnerPartitions.asTablesOwner(database) { _ in
            try database.execute("ANALYZE \(table)")
            try attachAsEveryPartition(name, to: "metric")
        }
        try database.execute("ANALYZE \(Self.undecidedRows)")
        return try decide()
    }

    /// Attaches the table made by `begin` as the patient's partition, made like every other first:
    /// the owner read from the connection, the row-level security.
    private func attachAsEveryPartition(_ name: String, to table: String) throws {
        try database.execute("ALTER TABLE \(PostgresStoreSchema.quoted(name)) ALTER COLUMN owner SET DEFAULT \(OwnerPartitions.currentOwner)")
        try OwnerPartitions.secure(name, in: database)
        try attach(name, to: table)
    }

    /// Attaching waits for another new patient's first write, which holds the same lock to its
    /// commit (an import in chunks: to its first): longer than a write waits for the patient's turn
    /// (`lock_timeout`), rather than lose a whole export at its end.
    private func attach(_ name: String, to table: String) throws {
        let wait = try database.scalarText("SELECT current_setting('lock_timeout')") ?? "0"
        try database.execute("SET LOCAL lock_timeout = '60s'")
        try OwnerPartitions.attach(name, to: table, owner: nil, in: database)
        try OwnerPartitions.attached(name, in: database)
        try database.prepare("SELECT set_config('lock_timeout', ?, true)").run([.text(wait)])
    }

    /// Each undecided row against the rows alike before it (the same type, dates, source, value,
    /// unit and category), in the order they were written, as the import would have looked it up:
    /// - one with its creation date, or any when it has none: written twice, removed;
    /// - else one without a creation date: that row takes the date, and this one is removed;
    /// - else: a repeat. With none before it: new, as written.
    /// Two joins find them all: against the table (by its identity index) and among themselves. The
    /// undecided rows left then go into the table, each a repeat or new.
    private func decide() throws -> [Decided] {
        let pairs = try database.prepare([1, 0].map { inTable in
            """
            SELECT x.id, x.type_id, x.unit_id, x.source_id, x.created_at, \(inTable), m.id, m.created_at, x.start_date, x.value
            FROM \(Self.undecidedRows) x JOIN \(inTable == 1 ? table : Self.undecidedRows) m ON m.type_id = x.type_id
                AND m.start_date = x.start_date AND m.end_date = x.end_date AND m.source_id = x.source_id AND m.value = x.value
                AND m.unit_id = x.unit_id AND m.category_id = x.category_id AND m.id < x.id
            """
        }.joined(separator: "\nUNION ALL\n") + "\nORDER BY 1, 7")
        /// A row alike, of the table or undecided.
        struct Row { var inTable: Bool, id, created: Int64 }
        struct Undecided { var id, created, type, unit, source, start: Int64; var value: Double; var before: [Row] }
        var found: [Undecided] = []
        while try pairs.step() {
            let id = pairs.int64(0)
            if found.last?.id != id {
                found.append(Undecided(id: id, created: pairs.int64(4), type: pairs.int64(1), unit: pairs.int64(2), source: pairs.int64(3),
                                       start: pairs.int64(8), value: pairs.double(9),
                                       before: []))
            }
            found[found.count - 1].before.append(Row(inTable: pairs.int64(5) == 1, id: pairs.int64(6), created: pairs.int64(7)))
        }
        pairs.reset()
        var removed: Set<Int64> = [], repeats: [Int64] = [], dated: [Int64: Row] = [:]
        var decided: [Decided] = []
        for undecided in found {
            let before = undecided.before.filter { !removed.contains($0.id) }.map { dated[$0.id] ?? $0 }
            let outcome: Decided.Outcome
            if before.isEmpty {
                continue   // new after all (the rows alike before it were written twice)
            } else if undecided.created == StoreSchema.undated || before.contains(where: { $0.created == undecided.created }) {
                outcome = .writtenTwice
            } else if var undated = before.first(where: { $0.created == StoreSchema.undated }) {
                undated.created = undecided.created
                dated[undated.id] = undated
                outcome = .writtenTwice
            } else {
                repeats.append(undecided.id)
                outcome = .repeated
            }
            if outcome == .writtenTwice { removed.insert(undecided.id) }
            decided.append(Decided(type: undecided.type, unit: undecided.unit, source: undecided.source, start: undecided.start,
                                   value: undecided.value, outcome: outcome))
        }
        let ids = { (ids: [Int64]) in StoreValue.text("{" + ids.map(String.init).joined(separator: ",") + "}") }
        // A row dated may be a repeat too (an undecided one): its flag is set below, after.
        for row in dated.values {
            try database.prepare("UPDATE \(row.inTable ? table : Self.undecidedRows) SET created_at = ? WHERE id = ?")
                .run([.int(row.created), .int(row.id)])
        }
        if !removed.isEmpty { try database.prepare("DELETE FROM \(Self.undecidedRows) WHERE id = ANY(?::bigint[])").run([ids(Array(removed))]) }
        if !repeats.isEmpty { try database.prepare("UPDATE \(Self.undecidedRows) SET is_repeat = 1 WHERE id = ANY(?::bigint[])").run([ids(repeats)]) }
        try database.execute("INSERT INTO \(table) SELECT * FROM \(Self.undecidedRows)")
        try database.execute("DROP TABLE \(Self.undecidedRows)")
        return decided
    }
}
