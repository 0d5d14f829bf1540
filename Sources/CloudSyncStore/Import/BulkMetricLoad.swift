/// A new patient's export on PostgreSQL, imported whole (`POST /api/v1/exports`): its metrics and
/// their hours are loaded as a bulk load into the patient's own partitions of `metric` and
/// `metric_hour` (`OwnerPartitions`), made for it in the import's transaction and attached when the
/// rows are in.
///
/// - Each chunk is copied straight into the table, which has no index yet and no row-level security
///   (nobody else can see it before the commit), with its ids (`nextID`); its owner is the table's
///   default. The shared table kept its key, the identity index and three partial indexes up to
///   date row by row (`Benchmarks/pg-bulk.sh`: 21.8–23.5 s of PostgreSQL's time for the 1 GB
///   export's 2.4 million rows, against 7.1–7.8 s for the copy and about 7 s for the indexes built
///   by sort).
/// - The hours the import counts are staged and added up at the end (`addStagedHours`).
/// - Nothing is looked up in the store while the rows come: the patient had none. A sample the
///   import's filter says it may have added before (`SeenSamples`: its repeats, and about 1 in 700
///   that it did not add) is written undecided (`is_repeat` −1), and decided by one join when the
///   rows are in (`settle`): written twice (removed), a repeat, or new after all.
/// - Attaching the table builds the shared table's key and identity index on it by sort (its partial
///   indexes, which hold few rows, and a check that every row is the patient's are made with the
///   table: `OwnerPartitions.readyToAttach`), and takes a lock that lets
///   the other patients' reads and writes go on. Until the commit nobody else sees any of it; a
///   connection that drops, or an input that fails, leaves nothing (the table goes with the rollback).
final class BulkMetricLoad {
    /// `is_repeat` of a row not yet decided; no row keeps it past `settle`.
    static let undecided: Int64 = -1

    private let database: PostgresDatabase
    /// The partitions to be (of `metric` and of `metric_hour`), quoted.
    private let table, hourTable: String
    private let name, hourName: String

    private init(database: PostgresDatabase, name: String, hourName: String) {
        self.database = database
        self.name = name
        self.hourName = hourName
        table = PostgresStoreSchema.quoted(name)
        hourTable = PostgresStoreSchema.quoted(hourName)
    }

    /// On PostgreSQL, in the import's transaction: when the patient has no partitions yet, an export
    /// imported whole is loaded into new ones (returned); any other write makes those missing now,
    /// empty (nil). A patient with rows (`storedBefore`, the last row's id) has their partitions:
    /// nothing is asked. (Asked at each received batch, the receiver's CPU a stored metric was 2–7%
    /// above the unpartitioned store's in five pairs; not asked, −5 to +4% in three.)
    static func begin(database: any StoreDatabase, origin: ImportOrigin, storedBefore: Int64) throws -> BulkMetricLoad? {
        guard let postgres = database as? PostgresDatabase, storedBefore == 0 else { return nil }
        let missing = try OwnerPartitions.missingOwn(in: postgres)
        guard !missing.isEmpty else { return nil }
        guard origin.commit == .whole, origin.loadsInBulk, let name = missing["metric"], let hourName = missing["metric_hour"] else {
            for (table, name) in missing.sorted(by: { $0.key < $1.key }) { try OwnerPartitions.makeOwn(name, of: table, in: postgres) }
            return nil
        }
        try OwnerPartitions.asTablesOwner(postgres) { acting in
            try OwnerPartitions.create(name, like: "metric", in: postgres)
            // The owner a constant, not read a row at a time.
            let defaults = try postgres.scalarText("SELECT format('ALTER TABLE %I ALTER COLUMN owner SET DEFAULT %L', ?::text, \(OwnerPartitions.currentOwner))",
                                                   [.text(name)])
            try postgres.execute(defaults ?? "")
            try OwnerPartitions.readyToAttach(name, of: "metric", in: postgres)
            if let acting { try postgres.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON \(PostgresStoreSchema.quoted(name)) TO \(PostgresStoreSchema.quoted(acting))") }
        }
        return BulkMetricLoad(database: postgres, name: name, hourName: hourName)
    }

    /// The rows, copied a chunk at a time into the table (`columns` of the metric table, as `cells`
    /// declares them, then the id: each row's last cell is `nextID()`).
    func rows(_ cells: [RowBatchColumn], columns: [String], rowsPerChunk: Int) -> any RowBatch {
        PostgresRowBatch(database: database, columns: cells + [.integer], copyInto: table, names: columns + ["id"], rowsPerChunk: rowsPerChunk)
    }

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
                    SELECT setval(pg_get_serial_sequence('metric', 'id'), nextval(pg_get_serial_sequence('metric', 'id')) + \(Self.idsTaken - 1))
                    """) ?? 0
            }
            ids = (first - Self.idsTaken + 1)..<(first + 1)
        }
        return ids.popFirst()!
    }

    /// The hours the import counts (`OnlineHourSummary`), staged: copied into a temporary table
    /// without an index, and added to `metric_hour` by one statement when the rows are in
    /// (`addStagedHours`). Upserted a chunk at a time, an hour that the next source's rows opened
    /// again was written again: the 1 GB export's 765,336 hours were 1.7 million upserted rows, 6.35 s
    /// of PostgreSQL's time, and 2 s more in their temporary table's copies.
    func hourRows(_ cells: [RowBatchColumn], columns: String) throws -> any RowBatch {
        let names = columns.split(separator: ", ").map(String.init)
        let declared = zip(names, cells).map { name, cell in
            name + (cell == .integer ? " bigint" : cell == .real ? " double precision" : " text")
        }.joined(separator: ", ")
        try database.execute("CREATE TEMPORARY TABLE \(Self.stagedHours) (\(declared)) ON COMMIT DROP")
        return PostgresRowBatch(database: database, columns: cells, copyInto: Self.stagedHours, names: names, rowsPerChunk: 8192)
    }

    private static let stagedHours = "cloudsync_staged_hours"

    /// The hours staged of these types go: they are rebuilt from the rows.
    func forgetStagedHours(of types: Set<Int64>) throws {
        try database.execute("DELETE FROM \(Self.stagedHours) WHERE type_id IN (\(types.sorted().map(String.init).joined(separator: ", ")))")
    }

    /// The staged hours, each hour's parts added up, into a table that becomes the patient's
    /// partition of `metric_hour`, its key built by sort as it is attached. Inserted into the shared
    /// table (its key kept up to date row by row), the 765,336 hours cost 6.8 s of PostgreSQL's time.
    func addStagedHours(columns: String) throws {
        try OwnerPartitions.asTablesOwner(database) { _ in
            try OwnerPartitions.create(hourName, like: "metric_hour", in: database)
            try OwnerPartitions.readyToAttach(hourName, of: "metric_hour", in: database)
            try database.execute("""
                INSERT INTO \(hourTable)(owner, \(columns))
                SELECT \(OwnerPartitions.currentOwner), type_id, unit_id, hour, sum("count"), sum("sum"), min(minimum), max(maximum),
                       sum(merged_count), sum(merged_sum), min(merged_minimum), max(merged_maximum)
                FROM \(Self.stagedHours) GROUP BY type_id, unit_id, hour
                """)
            try database.execute("DROP TABLE \(Self.stagedHours)")
            try OwnerPartitions.secure(hourName, in: database)
            try attach(hourName, to: "metric_hour")
        }
    }

    /// What an undecided row turned out to be, when it was not new.
    struct Decided {
        enum Outcome { case writtenTwice, repeated }
        var type, unit, source: Int64
        var outcome: Outcome
    }

    /// The rows are all in: the undecided ones are decided, then the table becomes the patient's
    /// partition. What was decided otherwise than new, for the writer's counts.
    func settle() throws -> [Decided] {
        // Its statistics first: the join below is planned from them (without, a nested loop that read
        // the whole table for each undecided row was the plan).
        try OwnerPartitions.asTablesOwner(database) { _ in try database.execute("ANALYZE \(table)") }
        let decided = try decide()
        try OwnerPartitions.asTablesOwner(database) { _ in
            // As every partition's: the owner read from the connection.
            try database.execute("ALTER TABLE \(table) ALTER COLUMN owner SET DEFAULT \(OwnerPartitions.currentOwner)")
            try OwnerPartitions.secure(name, in: database)
            try attach(name, to: "metric")
        }
        return decided
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
    /// One join finds them all (the undecided rows hashed, the table read once); each row changed is
    /// then found by its place in the table (`ctid`), not by a read of the whole table a statement.
    /// The rest (about 1 in 700 of the rows the filter was wrong about) are new, by one statement.
    private func decide() throws -> [Decided] {
        let pairs = try database.prepare("""
            SELECT x.ctid::text, x.id, x.type_id, x.unit_id, x.source_id, x.created_at, m.ctid::text, m.id, m.created_at
            FROM \(table) x JOIN \(table) m ON m.type_id = x.type_id AND m.start_date = x.start_date AND m.end_date = x.end_date
                AND m.source_id = x.source_id AND m.value = x.value AND m.unit_id = x.unit_id AND m.category_id = x.category_id
                AND m.id < x.id
            WHERE x.is_repeat = \(Self.undecided)
            ORDER BY x.id, m.id
            """)
        struct Row { var place: String, id, created: Int64 }
        struct Undecided { var row: Row, type, unit, source: Int64; var before: [Row] }
        var found: [Undecided] = []
        while try pairs.step() {
            let id = pairs.int64(1)
            if found.last?.row.id != id {
                found.append(Undecided(row: Row(place: pairs.text(0) ?? "", id: id, created: pairs.int64(5)), type: pairs.int64(2),
                                       unit: pairs.int64(3), source: pairs.int64(4), before: []))
            }
            found[found.count - 1].before.append(Row(place: pairs.text(6) ?? "", id: pairs.int64(7), created: pairs.int64(8)))
        }
        pairs.reset()
        var removed: Set<Int64> = [], removedPlaces: [String] = [], flags: [String: Int64] = [:], dated: [String: Int64] = [:]
        var decided: [Decided] = []
        for undecided in found {
            let row = undecided.row
            let before = undecided.before.filter { !removed.contains($0.id) }.map { Row(place: $0.place, id: $0.id, created: dated[$0.place] ?? $0.created) }
            let outcome: Decided.Outcome
            if before.isEmpty {
                continue   // new after all (the rows alike before it were written twice)
            } else if row.created == StoreSchema.undated || before.contains(where: { $0.created == row.created }) {
                outcome = .writtenTwice
            } else if let undated = before.first(where: { $0.created == StoreSchema.undated }) {
                dated[undated.place] = row.created
                outcome = .writtenTwice
            } else {
                flags[row.place] = 1
                outcome = .repeated
            }
            if outcome == .writtenTwice {
                removed.insert(row.id)
                removedPlaces.append(row.place)
            }
            decided.append(Decided(type: undecided.type, unit: undecided.unit, source: undecided.source, outcome: outcome))
        }
        // A row dated may be an undecided one too: both in one statement.
        for (place, created) in dated {
            try database.prepare("UPDATE \(table) SET created_at = ?, is_repeat = coalesce(?, is_repeat) WHERE ctid = ?::tid")
                .run([.int(created), flags[place].map { .int($0) } ?? .null, .text(place)])
            flags[place] = nil
        }
        // An array of tids, each quoted: a tid is written "(page,item)".
        let places = { (places: [String]) in StoreValue.text("{" + places.map { "\"" + $0 + "\"" }.joined(separator: ",") + "}") }
        if !removedPlaces.isEmpty { try database.prepare("DELETE FROM \(table) WHERE ctid = ANY(?::tid[])").run([places(removedPlaces)]) }
        let repeats = flags.filter { $0.value == 1 }.map(\.key)
        if !repeats.isEmpty { try database.prepare("UPDATE \(table) SET is_repeat = 1 WHERE ctid = ANY(?::tid[])").run([places(repeats)]) }
        try database.execute("UPDATE \(table) SET is_repeat = 0 WHERE is_repeat = \(Self.undecided)")
        return decided
    }
}
