/// The tables whose rows PostgreSQL keeps in a table of each patient's: the shared table is
/// partitioned by owner (`PARTITION BY LIST (owner)`), one partition a patient, made at the
/// patient's first write. The store's SQL still names the shared table, and row-level security
/// holds on it and on each partition.
///
/// Why: a patient's rows in a table of their own can be loaded as a bulk load (`COPY` into a table
/// without indexes, the indexes built by sort once the rows are in, the table attached when the
/// import commits), where the shared table keeps every index up to date row by row. Measured on the
/// 1 GB export's 2.4 million metrics (`Benchmarks/pg-bulk.sh`): 21.8–23.5 s of PostgreSQL's time
/// through the shared table against about 10.6 s loaded so (docs/performance.md, "Issue 35").
/// `metric`, the table of millions of rows, `metric_hour`, its hours (765,336 rows for the same
/// export: inserted into the shared table, 6.8 s of PostgreSQL's time), and `route_point`, the
/// routes' points (666,586 for the same export: inserted into the shared table through a temporary
/// one, its key and row-level security checked row by row, 3.3 s of PostgreSQL's time).
enum OwnerPartitions {
    static let tables = ["metric", "metric_hour", "route_point"]

    /// What `cloudsync_store.made_by` says of them. An older store is brought to them as it opens:
    /// one made before any lacks it (`PostgresStoreSchema.partitionByOwner`); one whose keys began
    /// with the owner says `layoutWithOwnerFirst` (`PostgresStoreSchema.ownerLastInKeys`, then the
    /// route points); one made before the route points were partitioned, `layoutBeforeRoutePoints`.
    static let layout = "metric, metric_hour and route_point by owner, the owner last in their keys"
    static let layoutBeforeRoutePoints = "metric and metric_hour by owner, the owner last in their keys"
    static let layoutWithOwnerFirst = "metric and metric_hour by owner"
    /// The tables partitioned by the two older layouts.
    static let tablesBeforeRoutePoints = ["metric", "metric_hour"]

    /// `owner`'s partition of `table`: named by a hash of the owner, so that the name is one
    /// PostgreSQL takes whatever the owner's, and found by one lookup of the catalog.
    /// (`owner`: the SQL that gives the owner's name, a parameter unless said.)
    static func nameSQL(of table: String, owner: String = "?::text") -> String { nameSQL(tableSQL: "'\(table)'", owner: owner) }

    /// The same, of the table that `tableSQL` names in SQL.
    static func nameSQL(tableSQL: String, owner: String) -> String { "\(tableSQL) || '_' || md5(\(owner))" }

    /// Makes `owner`'s partitions that are missing, each in a transaction of its own under the
    /// schema's lock, as the tables' owner (or a superuser): for a database written by statements of
    /// its own (the tests: `partitioned`, as a store made before some were). A store's writer makes
    /// its owner's before its transaction (`makeMissingOwn`); a bulk load makes them in the import's
    /// transaction (`makeOwn`).
    static func make(_ database: PostgresDatabase, owner: String, partitioned: [String] = tables) throws {
        for table in partitioned {
            // One round trip when it is there (every write opens a connection).
            guard let name = try missing(table, owner: owner, in: database) else { continue }
            try PostgresStoreSchema.inSchemaTransaction(database) {
                guard try missing(table, owner: owner, in: database) != nil else { return }
                try makeEmpty(name, of: table, owner: owner, in: database)
            }
        }
    }

    /// The names of the connection's owner's partitions that are missing, by table: one round trip
    /// (each import asks, a received batch of 1,000 metrics included).
    static func missingOwn(in database: PostgresDatabase) throws -> [String: String] {
        let rows = try database.prepare("""
            SELECT t, n FROM (VALUES \(tables.map { "('\($0)')" }.joined(separator: ", "))) AS tables(t),
                LATERAL (SELECT \(nameSQL(tableSQL: "t", owner: currentOwner)) AS n) name
            WHERE NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.relname = name.n AND c.relnamespace = current_schema()::regnamespace
                              AND c.relispartition)
            """)
        defer { rows.reset() }
        var missing: [String: String] = [:]
        while try rows.step() { missing[rows.text(0) ?? ""] = rows.text(1) }
        return missing
    }

    /// Makes the connection's owner's partitions that are missing, empty, in a transaction of its own
    /// under the schema's lock, as the tables' owner: the lock that attaching takes on the shared
    /// tables is held for milliseconds, not to the end of the patient's first write. The owner's turn
    /// is taken first, as by their writes: a bulk load of theirs makes tables of the same names in
    /// its transaction (without it, the two would race on the names, and the one that lost would fail).
    static func makeMissingOwn(in database: PostgresDatabase) throws {
        try PostgresStoreSchema.inSchemaTransaction(database, ownersTurn: true) {
            try asTablesOwner(database) { _ in
                for (table, name) in try missingOwn(in: database).sorted(by: { $0.key < $1.key }) {
                    try makeEmpty(name, of: table, owner: nil, in: database)
                }
            }
        }
    }

    /// Makes the connection's owner's partition `name` of `table`, in the caller's transaction (a
    /// writer's first), as the tables' owner. The lock its attaching takes on the shared table is
    /// held to the commit: another new patient's first write waits for it (patients already there
    /// do not). Only a bulk load makes them so; other writes make them before their transaction
    /// (`makeMissingOwn`).
    static func makeOwn(_ name: String, of table: String, in database: PostgresDatabase) throws {
        try asTablesOwner(database) { _ in try makeEmpty(name, of: table, owner: nil, in: database) }
    }

    /// An empty partition `name` of `table` for `owner` (nil: the connection's), secured and
    /// attached, in the caller's transaction.
    static func makeEmpty(_ name: String, of table: String, owner: String?, in database: PostgresDatabase) throws {
        try create(name, like: table, in: database)
        try secure(name, in: database)
        try attach(name, to: table, owner: owner, in: database)
        if table == "metric" { try numberIDs(PostgresStoreSchema.quoted(name), in: database) }
    }

    /// Runs `body` as the tables' owner, in the caller's transaction. A privileged server's
    /// connection acts as the patients' role (`PostgresStoreSchema.actAsPatient`): its own role is
    /// taken back for `body` (which is told the role it acted as, nil when none), and the patient's
    /// again after. Within the transaction, so that an error anywhere leaves the patient's role with
    /// the transaction's rollback.
    ///
    /// `opening` (a savepoint) runs first and `closing` (its release) last, when `body` did not
    /// throw. The role the connection acts as is known from its session (`PostgresDatabase
    /// .actingRole`), else asked; the opening, the role taken back, and then the role given back and
    /// the closing go with `body`'s first statement and with the one after `body`
    /// (`executeWithNext`): a straight copy (`PostgresRowBatch`) took five round trips, and takes two
    /// (its start, its rows), each of which wakes `serve` and PostgreSQL (see
    /// `PostgresDatabase.executeWithNext`).
    static func asTablesOwner<T>(_ database: PostgresDatabase, opening: String? = nil, closing: String? = nil,
                                 _ body: (_ acting: String?) throws -> T) throws -> T {
        precondition(database.isInTransaction, "the role is taken back within a transaction only")
        let outer = database.actingRole
        var opening = opening
        let acting: String?
        switch outer {
        case .own: acting = nil
        case .other(let role): acting = role
        case .unknown:
            let look = "SELECT CASE WHEN current_user = session_user THEN NULL ELSE current_user::text END"
            acting = try database.lastText(ofStatements: (opening.map { $0 + "; " } ?? "") + look)
            opening = nil
        }
        if let opening { try database.executeWithNext(opening) }
        guard let acting else {
            let result = try body(nil)
            if let closing { try database.executeWithNext(closing) }
            return result
        }
        try database.executeWithNext("RESET ROLE")
        database.actingRole = .own
        defer { database.actingRole = outer }
        do {
            let result = try body(acting)
            try database.executeWithNext("SET ROLE " + PostgresStoreSchema.quoted(acting))
            if let closing { try database.executeWithNext(closing) }
            return result
        } catch {
            try? database.execute("SET ROLE " + PostgresStoreSchema.quoted(acting))
            throw error
        }
    }

    /// The name of `owner`'s (nil: the connection's owner's) partition of `table` when there is none yet. Read from `pg_class` by
    /// the statement's snapshot: `to_regclass` reads the backend's catalog cache, which a transaction
    /// that waited for the schema's lock had not yet brought up to date (two first writes of a patient
    /// at once both made the table: "already exists").
    private static func missing(_ table: String, owner: String?, in database: PostgresDatabase) throws -> String? {
        try database.scalarText("""
            SELECT n FROM (SELECT \(nameSQL(of: table, owner: owner == nil ? currentOwner : "?::text")) AS n) name
            WHERE NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.relname = name.n AND c.relnamespace = current_schema()::regnamespace
                              AND c.relispartition)
            """, owner.map { [.text($0)] } ?? [])
    }

    /// The connection's owner, in SQL.
    static let currentOwner = "current_setting('cloudsync.owner')"

    /// A table to be `table`'s partition: its columns and defaults, without indexes (attaching it
    /// makes them, by sort of the rows it holds then).
    /// A table of the name that is no partition was left by a load that never attached it: replaced.
    static func create(_ name: String, like table: String, in database: PostgresDatabase) throws {
        try database.execute("DROP TABLE IF EXISTS \(PostgresStoreSchema.quoted(name))")
        try database.execute("CREATE TABLE \(PostgresStoreSchema.quoted(name)) (LIKE \(try OwnerViews.shared(table, in: database)) INCLUDING DEFAULTS)")
    }

    /// Makes the new table `name`, still empty, what attaching it as the connection's owner's
    /// partition of `table` would otherwise check and build by reading every row it holds then:
    /// - a check that every row is the owner's, so that the attach need not read them to know it;
    /// - the shared table's partial indexes, which hold few of a patient's rows (the samples summed
    ///   by the phone, the pushed ones, the undated ones), kept up to date row by row.
    /// Over the 1 GB export's 2.4 million metrics (psql), the attach took 2.45 s against 3.74 s
    /// (the three partial indexes 0.28–0.33 s each, the check's read the rest); the copy's time did
    /// not move beyond the machine's noise. The check goes once the table is attached (`attached`).
    static func readyToAttach(_ name: String, of table: String, in database: PostgresDatabase) throws {
        let made = try database.texts("""
            SELECT format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (owner = %L)', ?::text, ?::text, \(currentOwner))
            UNION ALL
            SELECT format('CREATE %sINDEX ON %I (%s) WHERE %s', CASE WHEN i.indisunique THEN 'UNIQUE ' ELSE '' END, ?::text,
                          (SELECT string_agg(pg_get_indexdef(i.indexrelid, k, true), ', ' ORDER BY k) FROM generate_series(1, i.indnatts) k),
                          pg_get_expr(i.indpred, i.indrelid, true))
            FROM pg_index i WHERE i.indrelid = \(OwnerViews.sharedSQL())::regclass AND i.indpred IS NOT NULL
            """, [.text(name), .text(ownerCheck), .text(name), .text(table)])
        for statement in made { try database.execute(statement) }
    }

    /// The check `readyToAttach` made, dropped from the attached partition: it holds its owner's
    /// rows by the partition's own bound, as every other partition does.
    static func attached(_ name: String, in database: PostgresDatabase) throws {
        try database.execute("ALTER TABLE \(PostgresStoreSchema.quoted(name)) DROP CONSTRAINT IF EXISTS \(ownerCheck)")
    }

    private static let ownerCheck = "cloudsync_owner_only"

    /// The same row-level security as every store table's, once the table holds what it is made with.
    static func secure(_ name: String, in database: PostgresDatabase) throws {
        for statement in PostgresStoreSchema.ownersOnly(name) { try database.execute(statement) }
    }

    /// Attaches `name` as `owner`'s partition of `table`, building the shared table's indexes on it
    /// that it lacks. The lock it takes on the shared table (SHARE UPDATE EXCLUSIVE) lets every
    /// other patient's reads and writes go on.
    static func attach(_ name: String, to table: String, owner: String?, in database: PostgresDatabase) throws {
        let attach = try database.scalarText("""
            SELECT format('ALTER TABLE %s ATTACH PARTITION %I FOR VALUES IN (%L)', \(OwnerViews.sharedSQL()), ?::text,
                          \(owner == nil ? currentOwner : "?::text"))
            """, [.text(table), .text(name)] + (owner.map { [.text($0)] } ?? []))
        try database.execute(attach ?? "")
    }

    /// Removes `owner`'s partitions, once their rows are erased: the database keeps no table named
    /// for them. All of them or none, in a transaction of its own that holds the patient's turn (a
    /// write's: `beginWriting`), so that a push that came after the erase is either committed and
    /// counted here (then nothing is dropped) or waits and finds no partition (and makes them
    /// again). Best effort, by a connection that may (the tables' owner or a superuser): dropping a
    /// partition waits for every statement on the shared table, and an erase that waited for a
    /// long report to end would say it failed when its rows are gone. Partitions left are harmless,
    /// and used again if the patient comes back. (`database`: a connection opened for the owner, as
    /// the server's own role.)
    static func drop(_ database: PostgresDatabase) {
        do {
            try database.beginWriting()
            // Every other statement on the shared tables waits behind a drop that waits: not long.
            try database.execute("SET LOCAL lock_timeout = '2s'")
            var names: [String] = []
            for table in tables {
                guard let name = try database.scalarText("SELECT to_regclass(\(nameSQL(of: table, owner: currentOwner)))::text") else { continue }
                let quoted = PostgresStoreSchema.quoted(name)
                // Locked before it is counted: no row can come between the count and the drop.
                try database.execute("LOCK TABLE \(quoted) IN ACCESS EXCLUSIVE MODE")
                guard try database.scalarInt("SELECT count(*) FROM \(quoted)") == 0 else { return database.rollBack() }
                names.append(quoted)
            }
            for name in names { try database.execute("DROP TABLE \(name)") }
            try database.execute("COMMIT")
        } catch {
            database.rollBack()
        }
    }
}

/// The connection's owner's partitions of `metric` and `metric_hour`, quoted, that a writer may
/// `COPY` the rows it knows new straight into (`OwnerPartitions.straightCopyTargets`).
struct StraightPartitions {
    var metric: String
    var hour: String
}

extension OwnerPartitions {
    /// The connection's owner's metric and hour partitions, quoted, when a writer may `COPY` the rows
    /// it knows new straight into them rather than through a temporary table and `INSERT … SELECT`
    /// into the shared table (`PostgresRowBatch(straightInto:…)`); nil when it may not.
    ///
    /// Why: on the 100 MB store's 166,056 received metrics, 1,000 a transaction, PostgreSQL spent
    /// 2.0–2.1 s copying them straight into the indexed partition against 4.4–4.9 s through a
    /// temporary table and the insert (docs/performance.md, "Issue 34", tenth session).
    ///
    /// It may when the server's own role, which the copy runs as (`asTablesOwner`), is one that
    /// row-level security never holds (a superuser, a `BYPASSRLS` role: then each patient's
    /// connection acts as `cloudsync_patient`): PostgreSQL refuses `COPY FROM` into a table whose
    /// policy applies. A server deployed as the tables' owner (docs/serve.md) is held by the
    /// partitions' forced policy and keeps the statement's way: lifting the policy for its owner
    /// would let that role read a patient's partition naming anyone (`ClinicOneTruthTests`).
    /// What the policy checked on the copy still holds by the partition's bound: a row whose owner is
    /// not the partition's is refused by the partition itself, and each row's owner is the column's
    /// default, the connection's, whose name also named the partition. The partition's `id` takes
    /// the shared table's numbering as its default (up to PostgreSQL 16 a partition has no identity
    /// of its own): set once a partition (`numberIDs`: as it is made, or here in a transaction of its
    /// own for one made before or by a bulk load). Any failure here leaves the connection to the
    /// statement's way (`BulkLoad.makeMissingPartitions`): the copy is a saving, never a condition.
    ///
    /// The hours' partition takes the hours the writer knows new the same way (`OnlineHourSummary`):
    /// 0.4–0.5 s of PostgreSQL's CPU for the same upload's 44,281 hours against 1.1–1.2 s through a
    /// temporary table and the upsert (docs/performance.md, "Issue 34", eleventh session).
    static func straightCopyTargets(in database: PostgresDatabase) throws -> StraightPartitions? {
        let found = try database.prepare("""
            SELECT format('%I', c.relname), CASE WHEN a.atthasdef OR a.attidentity <> '' THEN 1 ELSE 0 END, format('%I', h.relname)
            FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'id', pg_class h, pg_roles r
            WHERE c.relname = \(nameSQL(of: "metric", owner: currentOwner)) AND c.relnamespace = current_schema()::regnamespace
              AND c.relispartition AND h.relname = \(nameSQL(of: "metric_hour", owner: currentOwner))
              AND h.relnamespace = current_schema()::regnamespace AND h.relispartition
              AND r.rolname = session_user AND (r.rolsuper OR r.rolbypassrls)
            """)
        defer { found.reset() }
        guard try found.step(), let name = found.text(0), let hours = found.text(2) else { return nil }
        let partitions = StraightPartitions(metric: name, hour: hours)
        guard found.int64(1) == 0 else { return partitions }
        // The partition is locked whole to be altered: a patient's long read of it would hold the
        // write back, and every statement on it would wait behind the write. Not had at once, the
        // write takes the statement's way this time.
        try PostgresStoreSchema.inSchemaTransaction(database, ownersTurn: true) {
            try database.execute("SET LOCAL lock_timeout = '100ms'")
            try asTablesOwner(database) { _ in try numberIDs(name, in: database) }
        }
        return partitions
    }

    /// Gives the metric partition `name` (quoted) the shared table's numbering as its ids' default,
    /// in the caller's transaction, as the tables' owner: a row copied straight into it is numbered
    /// as one inserted through the shared table (made so by `makeEmpty`; an older partition by
    /// `straightCopyTargets`). Nothing when its `id` has a default already, or an identity
    /// (PostgreSQL 17 gives an attached partition the shared table's, which takes no default).
    private static func numberIDs(_ name: String, in database: PostgresDatabase) throws {
        for numbering in try database.texts("""
            SELECT format('ALTER TABLE %s ALTER COLUMN id SET DEFAULT nextval(%L::regclass)', ?::text,
                          pg_get_serial_sequence(\(OwnerViews.sharedSQL("'metric'")), 'id'))
            FROM pg_attribute a WHERE a.attrelid = ?::text::regclass AND a.attname = 'id' AND NOT a.atthasdef AND a.attidentity = ''
            """, [.text(name), .text(name)]) {
            try database.execute(numbering)
        }
    }
}
