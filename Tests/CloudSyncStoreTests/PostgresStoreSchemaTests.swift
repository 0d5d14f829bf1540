import CloudSyncKinds
import CloudSyncModel
@testable import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// The store's schema on PostgreSQL, derived from SQLite's (`PostgresStoreSchema`): made on a real
/// PostgreSQL as a role of its own, it has every table of a new SQLite store with the same columns
/// and an owner, every table under forced row-level security, and the store's own statements (a
/// name, a metric with its identity) written as two patients keep each patient's rows apart.
@Suite(.enabled(if: PostgresCluster.isAvailable, "PostgreSQL is not installed (Debian: postgresql)"))
struct PostgresStoreSchemaTests {
    @Test func theStoresTablesOnPostgreSQL() throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let address = try cluster.addOwnedDatabase("clinic", role: "clinic", password: "clinic-password")
        let kinds = StagingStore.Configuration.standard.kinds
        let schema = try PostgresDatabase(address: address, owner: nil)
        for statement in try PostgresStoreSchema.statements(kinds: kinds) { try schema.execute(statement) }

        // The same tables and columns as a new SQLite store, and the owner.
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try StagingStore(path: dir.appendingPathComponent("reference.sqlite").path, access: .write, configuration: .standard)
        let tables = try store.database.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        var sqliteColumns: [String] = []
        var tableNames: [String] = []
        while try tables.step() {
            let table = tables.text(0)!
            tableNames.append(table)
            let columns = try store.database.prepare("SELECT name FROM pragma_table_info(?) ORDER BY name")
            try columns.bind([.text(table)])
            var names = ["owner"]
            while try columns.step() { names.append(columns.text(0)!) }
            sqliteColumns.append("\(table): \(names.sorted().joined(separator: ","))")
        }
        let postgresColumns = try cluster.psql("""
            SELECT table_name || ': ' || string_agg(column_name::text, ',' ORDER BY column_name::text COLLATE "C")
            FROM information_schema.columns WHERE table_schema = 'public' AND table_name IN (SELECT tablename FROM pg_tables WHERE schemaname = 'public')
            GROUP BY table_name ORDER BY table_name COLLATE "C"
            """, database: "clinic").split(separator: "\n").map(String.init)
        #expect(postgresColumns == sqliteColumns.map { line in
            let parts = line.split(separator: ":", maxSplits: 1)
            return parts[0] + ": " + parts[1].trimmingCharacters(in: .whitespaces).split(separator: ",").sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.joined(separator: ",")
        })
        #expect(tableNames.contains("metric") && tableNames.contains("route_point") && tableNames.count >= 30, "\(tableNames)")
        // Every table under forced row-level security.
        #expect(try cluster.psql("""
            SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'public' AND c.relkind = 'r' AND NOT (c.relrowsecurity AND c.relforcerowsecurity)
            """, database: "clinic") == "0")

        // The store's statements, unchanged, as two patients.
        for owner in ["alice", "bob"] {
            let database = try PostgresDatabase(address: address, owner: owner)
            try OwnerPartitions.make(database, owner: owner)
            let name = try database.prepare("INSERT INTO metric_type(name) VALUES (?) ON CONFLICT DO NOTHING")
            try name.run([.text("HKQuantityTypeIdentifierHeartRate")])
            try name.run([.text("HKQuantityTypeIdentifierHeartRate")])
            let type = try #require(try database.scalarInt("SELECT id FROM metric_type WHERE name = ?", [.text("HKQuantityTypeIdentifierHeartRate")]))
            try database.execute("INSERT INTO import_run(id, input, started_at, outcome) VALUES (\(type), 'test', 0, 'ok')")
            let insert = try database.prepare("""
                INSERT INTO metric(type_id, start_date, end_date, source_id, value, unit_id, category_id, device_id,
                                   source_version_id, extra, import_id, created_at, is_repeat, summary, superseded, origin)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16) ON CONFLICT DO NOTHING
                """)
            for _ in 0..<2 {
                try insert.run([.int(type), .int(1_700_000_000), .int(1_700_000_000), .int(1), .double(61), .int(1), .int(0), .int(1),
                                .null, .null, .int(type), .int(1_700_000_100), .int(0), .int(0), .int(0), .int(0)])
            }
            #expect(try database.scalarInt("SELECT count(*) FROM counted_metric") == 1)
            #expect(try database.scalarInt("SELECT count(*) FROM metric_type") == 1)
        }
        #expect(try cluster.psql("SELECT owner, count(*) FROM metric GROUP BY owner ORDER BY owner", database: "clinic") == "alice|1\nbob|1")

        // The import's name tables, the same code on PostgreSQL: a name's id once per patient.
        let carol = try PostgresDatabase(address: address, owner: "carol")
        let units = try NameTable(carol, table: "unit")
        let first = try units.id(ByteText(literal: "count/min"))
        #expect(try units.id(ByteText(literal: "count"))  != first)
        #expect(try NameTable(carol, table: "unit").id(ByteText(literal: "count/min")) == first)
        let dave = try PostgresDatabase(address: address, owner: "dave")   // kept: a statement does not keep its connection
        #expect(try NameTable(dave, table: "unit").id(ByteText(literal: "count/min")) != first)
        #expect(try cluster.psql("SELECT owner || ':' || name FROM unit ORDER BY id", database: "clinic") == "carol:count/min\ncarol:count\ndave:count/min")
    }

    /// A database `clinic` whose store tables `statements` made, as `madeBy` says (an older
    /// cloudsync's): its address, and a connection for no owner.
    static func storeOfAnOlderCloudSync(in cluster: PostgresCluster, statements: [String], madeBy: String) throws -> (String, PostgresDatabase) {
        let address = try cluster.addOwnedDatabase("clinic", role: "clinic", password: "clinic-password")
        let schema = try PostgresDatabase(address: address, owner: nil)
        for statement in statements { try schema.execute(statement) }
        try schema.execute("CREATE TABLE cloudsync_store (made_by text NOT NULL)")
        try schema.prepare("INSERT INTO cloudsync_store(made_by) VALUES (?)").run([.text(madeBy)])
        return (address, schema)
    }

    /// A store whose partitioned tables' keys began with the owner has them made again with the owner
    /// last as it opens: on the shared tables and on each patient's partition, the rows as they were,
    /// a sample written again still refused by the identity index. Its route points, and those of a
    /// store made with the owner last but before they were partitioned (`ownerFirst` false), are
    /// partitioned too, a partition a patient, the rows as they were.
    @Test(arguments: [true, false])
    func aStoreWhoseKeysBeganWithTheOwnerHasThemEndWithIt(ownerFirst: Bool) throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let kinds = StagingStore.Configuration.standard.kinds
        let (address, schema) = try Self.storeOfAnOlderCloudSync(
            in: cluster, statements: PostgresStoreSchema.statements(kinds: kinds, partitioned: OwnerPartitions.tablesBeforeRoutePoints, ownerLast: !ownerFirst),
            madeBy: ownerFirst ? PostgresStoreSchema.madeWithOwnerFirst(by: kinds) : PostgresStoreSchema.madeBeforeRoutePoints(by: kinds))
        let insert = """
            INSERT INTO metric(type_id, start_date, end_date, source_id, value, unit_id, device_id, import_id) VALUES (1, ?, ?, 1, ?, 1, 1, 1)
            ON CONFLICT DO NOTHING
            """
        for (owner, rows) in [("alice", 3), ("bob", 2)] {
            try OwnerPartitions.make(schema, owner: owner, partitioned: OwnerPartitions.tablesBeforeRoutePoints)
            let database = try PostgresDatabase(address: address, owner: owner)
            for row in 0..<rows { try database.prepare(insert).run([.int(1_700_000_000 + Int64(row) * 60), .int(1_700_000_060 + Int64(row) * 60), .double(1)]) }
            for seq in 0..<rows {
                try database.prepare("INSERT INTO route_point(route_id, seq, latitude, longitude) VALUES (1, ?, 51.5, ?)").run([.int(Int64(seq)), .double(Double(rows))])
            }
        }
        let points = "SELECT owner || ' ' || route_id || ' ' || seq || ' ' || longitude FROM route_point ORDER BY 1"
        let pointsBefore = try cluster.psql(points, database: "clinic")
        #expect(pointsBefore.split(separator: "\n").count == 5)
        // Every index of the shared tables and of their partitions, its columns.
        let indexes = """
            SELECT c.relname || ' ' || regexp_replace(pg_get_indexdef(i.indexrelid), '^.* USING btree ', '') FROM pg_index i
            JOIN pg_class c ON c.oid = i.indrelid
            WHERE c.relname IN ('metric', 'metric_hour') OR c.relispartition AND c.relname NOT LIKE 'route_point%' ORDER BY 1
            """
        let before = try cluster.psql(indexes, database: "clinic").split(separator: "\n").map(String.init)
        #expect(before.count == 3 * (4 + 1))   // metric's key, identity and two partial (not `metric_undated`); metric_hour's key
        if ownerFirst { #expect(before.allSatisfy { $0.contains("(owner, ") }, "\(before)") }
        let rows = "SELECT owner || ' ' || id || ' ' || start_date FROM metric ORDER BY owner, id"
        let rowsBefore = try cluster.psql(rows, database: "clinic")
        // Made then, with the index PostgreSQL's store does without now (dropped as it opens).
        try schema.execute("CREATE INDEX metric_undated ON metric(type_id) WHERE created_at = -62167219201")
        #expect(try cluster.psql(Self.undatedIndexes, database: "clinic") == "3")

        let alice = try StagingStore.open(postgres: address, owner: "alice", access: .write, configuration: .standard)
        #expect(try cluster.psql(Self.undatedIndexes, database: "clinic") == "0")
        #expect(try cluster.psql("SELECT made_by FROM cloudsync_store", database: "clinic") == PostgresStoreSchema.made(by: kinds))
        let after = try cluster.psql(indexes, database: "clinic").split(separator: "\n").map(String.init)
        #expect(after.count == before.count)
        #expect(after.allSatisfy { $0.hasSuffix(", owner)") || $0.contains(", owner) WHERE ") }, "\(after)")
        #expect(try cluster.psql(rows, database: "clinic") == rowsBefore)
        #expect(try cluster.psql(points, database: "clinic") == pointsBefore)
        #expect(try cluster.psql("SELECT relkind FROM pg_class WHERE relname = 'route_point' AND relnamespace = 'public'::regnamespace", database: "clinic") == "p")
        #expect(try cluster.psql("SELECT count(*) FROM pg_inherits WHERE inhparent = 'route_point'::regclass", database: "clinic") == "2")
        #expect(try cluster.psql("SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'route_point'::regclass", database: "clinic")
            .hasSuffix("(route_id, seq, owner)"))
        // The identity index still refuses a sample written again.
        try alice.database.prepare(insert).run([.int(1_700_000_000), .int(1_700_000_060), .double(1)])
        #expect(alice.database.changes == 0)
        #expect(try alice.database.scalarInt("SELECT count(*) FROM counted_metric") == 3)
    }

    /// A store made before the metric table was partitioned by owner is brought to the partitions as
    /// it opens: each patient's rows in a partition of their own with their ids, the ids' numbering
    /// taken on, the counts as before. An erased patient's partition is dropped; the other's stays.
    @Test func aStoreMadeBeforeOwnerPartitionsIsBroughtToThem() throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let kinds = StagingStore.Configuration.standard.kinds
        let (address, _) = try Self.storeOfAnOlderCloudSync(in: cluster, statements: PostgresStoreSchema.statements(kinds: kinds, partitioned: []),
                                                            madeBy: PostgresStoreSchema.madeBeforePartitions(by: kinds))
        #expect(try cluster.psql("SELECT relkind FROM pg_class WHERE relname = 'metric' AND relnamespace = 'public'::regnamespace", database: "clinic") == "r")
        for (owner, rows) in [("alice", 3), ("bob", 2)] {
            let database = try PostgresDatabase(address: address, owner: owner)
            try database.execute("""
                INSERT INTO import_run(id, input, started_at, outcome) VALUES (1, 'export.zip', 0, 'ok');
                INSERT INTO metric_type(id, name) VALUES (1, 'HKQuantityTypeIdentifierStepCount');
                """)
            for row in 0..<rows {
                try database.prepare("""
                    INSERT INTO metric(type_id, start_date, end_date, source_id, value, unit_id, device_id, import_id) VALUES (1, ?, ?, 1, ?, 1, 1, 1)
                    """).run([.int(1_700_000_000 + Int64(row) * 60), .int(1_700_000_060 + Int64(row) * 60), .double(Double(row + 1))])
            }
        }
        let rows = "SELECT owner || ' ' || id || ' ' || start_date || ' ' || value FROM metric ORDER BY owner, id"
        let before = try cluster.psql(rows, database: "clinic")
        #expect(before.split(separator: "\n").count == 5)

        let alice = try StagingStore.open(postgres: address, owner: "alice", access: .write, configuration: .standard)
        #expect(try cluster.psql(rows, database: "clinic") == before)
        #expect(try cluster.psql("SELECT relkind FROM pg_class WHERE relname = 'metric' AND relnamespace = 'public'::regnamespace", database: "clinic") == "p")
        #expect(try cluster.psql("SELECT count(*) FROM pg_inherits WHERE inhparent = 'metric'::regclass", database: "clinic") == "2")
        #expect(try cluster.psql("SELECT count(*) FROM pg_inherits WHERE inhparent = 'route_point'::regclass", database: "clinic") == "2")
        #expect(try cluster.psql("SELECT made_by FROM cloudsync_store", database: "clinic") == PostgresStoreSchema.made(by: kinds))
        #expect(try alice.database.scalarInt("SELECT count(*) FROM counted_metric") == 3)
        // The next row is numbered after every row before (alice's and bob's: one numbering).
        try alice.database.execute("""
            INSERT INTO metric(type_id, start_date, end_date, source_id, value, unit_id, device_id, import_id) VALUES (1, 1700001000, 1700001060, 1, 9, 1, 1, 1)
            """)
        #expect(try alice.database.scalarInt("SELECT max(id) FROM metric") == 6)
        #expect(try alice.database.scalarInt("SELECT count(*) FROM counted_metric") == 4)

        #expect(try alice.eraseOwnersRows()["metric"] == 4)
        StagingStore.dropPartitions(postgres: address, owner: "alice")
        #expect(try cluster.psql("SELECT count(*) FROM pg_inherits WHERE inhparent = 'metric'::regclass", database: "clinic") == "1")
        #expect(try cluster.psql(rows, database: "clinic") == before.split(separator: "\n").filter { $0.hasPrefix("bob") }.joined(separator: "\n"))
    }

    /// The indexes of `metric_undated`'s condition: the shared table's and its partitions'.
    static let undatedIndexes = "SELECT count(*) FROM pg_indexes WHERE indexdef LIKE '%WHERE (created_at = ''-62167219201''::bigint)'"

    /// A store of this layout made while PostgreSQL's store still had `metric_undated` (each received
    /// row paid for it) loses it as it opens, on the shared table and on each patient's partition;
    /// the rows, and what the index told (the types with undated rows), are as they were.
    @Test func aStoreMadeWithTheUndatedIndexLosesItAsItOpens() throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let kinds = StagingStore.Configuration.standard.kinds
        let (address, schema) = try Self.storeOfAnOlderCloudSync(in: cluster, statements: PostgresStoreSchema.statements(kinds: kinds),
                                                                 madeBy: PostgresStoreSchema.madeWithLeftOut(by: kinds))
        try schema.execute("CREATE INDEX metric_undated ON metric(type_id) WHERE created_at = -62167219201")
        for (owner, created) in [("alice", Int64(-62_167_219_201)), ("bob", Int64(1_700_000_100))] {
            try OwnerPartitions.make(schema, owner: owner)
            let database = try PostgresDatabase(address: address, owner: owner)
            try database.prepare("""
                INSERT INTO metric(type_id, start_date, end_date, source_id, value, unit_id, device_id, import_id, created_at)
                VALUES (1, 1700000000, 1700000060, 1, 1, 1, 1, 1, ?)
                """).run([.int(created)])
        }
        #expect(try cluster.psql(Self.undatedIndexes, database: "clinic") == "3")   // the shared table's and each partition's
        let rows = "SELECT owner || ' ' || id || ' ' || created_at FROM metric ORDER BY owner, id"
        let before = try cluster.psql(rows, database: "clinic")

        let alice = try StagingStore.open(postgres: address, owner: "alice", access: .write, configuration: .standard)
        #expect(try cluster.psql(Self.undatedIndexes, database: "clinic") == "0")
        #expect(try cluster.psql("SELECT made_by FROM cloudsync_store", database: "clinic") == PostgresStoreSchema.made(by: kinds))
        #expect(try cluster.psql(rows, database: "clinic") == before)
        #expect(try alice.database.scalarInt("SELECT count(*) FROM metric WHERE created_at = -62167219201") == 1)
        // Opened again: nothing more to do.
        _ = try StagingStore.open(postgres: address, owner: "bob", access: .write, configuration: .standard)
        #expect(try cluster.psql("SELECT made_by FROM cloudsync_store", database: "clinic") == PostgresStoreSchema.made(by: kinds))
    }

    /// Flags changed by the same statements on both engines: the two triggers (SQLite's and
    /// PostgreSQL's words of the same rule) leave the same counts, ranges and dirty hours.
    @Test func theCountingTriggerMovesTheSameCountsOnBothEngines() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try StagingStore(path: dir.appendingPathComponent("counts.sqlite").path, access: .write, configuration: .standard)
        let fromSQLite = try Self.changeFlags(store.database)
        let (cluster, address) = try Self.clinic()
        defer { cluster.remove() }
        let fromPostgres = try Self.changeFlags(try PostgresDatabase(address: address, owner: "alice"))
        #expect(fromPostgres == fromSQLite)
        // Superseding the last row leaves its range to be read again (range_stale), as docs/store.md says.
        #expect(fromSQLite == ["summary 1|1|1|0|2|1|100|400|1", "hours 1|100|400"], "\(fromSQLite)")
    }

    /// Three counted rows of one type, unit and source; then a row superseded and brought back, one
    /// made a repeat, the last superseded, the first made a repeat. What `metric_summary` and `metric_hour_state` say after.
    static func changeFlags(_ database: some StoreDatabase) throws -> [String] {
        try database.execute("INSERT INTO import_run(id, input, started_at, outcome) VALUES (1, 'test', 0, 'ok')")
        try database.execute("""
            INSERT INTO metric_summary(type_id, unit_id, source_id, count, repeats, superseded, first_start, last_end)
                VALUES (1, 1, 1, 3, 0, 0, 100, 400)
            """)
        try database.execute("INSERT INTO metric_hour_state(type_id, longest, summarised) VALUES (1, 100, 1)")
        let insert = try database.prepare("""
            INSERT INTO metric(id, type_id, start_date, end_date, source_id, value, unit_id, device_id, import_id, created_at)
            VALUES (?, 1, ?, ?, 1, ?, 1, 1, 1, 0)
            """)
        for (id, start) in [(1, 100), (2, 200), (3, 300)] {
            try insert.run([.int(Int64(id)), .int(Int64(start)), .int(Int64(start + 100)), .double(Double(id))])
        }
        let flag = try database.prepare("UPDATE metric SET superseded = ?2 WHERE id = ?1")
        try flag.run([.int(1), .int(1)])
        try database.prepare("UPDATE metric SET is_repeat = 1 WHERE id = ?").run([.int(2)])
        try flag.run([.int(1), .int(0)])
        try flag.run([.int(3), .int(3)])
        try database.prepare("UPDATE metric SET is_repeat = 1 WHERE id = ?").run([.int(1)])
        let summary = try database.prepare("""
            SELECT type_id, unit_id, source_id, count, repeats, superseded, first_start, last_end, range_stale FROM metric_summary
            """)
        var lines: [String] = []
        while try summary.step() { lines.append("summary " + (0..<9).map { summary.text(Int32($0)) ?? "NULL" }.joined(separator: "|")) }
        summary.reset()
        let hours = try database.prepare("SELECT type_id, dirty_from, dirty_to FROM metric_hour_state")
        while try hours.step() { lines.append("hours " + (0..<3).map { hours.text(Int32($0)) ?? "NULL" }.joined(separator: "|")) }
        hours.reset()
        return lines
    }

    /// A cluster with the store's schema in the database `clinic`, owned by a role that row-level
    /// security applies to; the address to connect to it as that role.
    static func clinic() throws -> (PostgresCluster, String) {
        let cluster = try PostgresCluster()
        let address = try cluster.addOwnedDatabase("clinic", role: "clinic", password: "clinic-password")
        let schema = try PostgresDatabase(address: address, owner: nil)
        for statement in try PostgresStoreSchema.statements(kinds: StagingStore.Configuration.standard.kinds) { try schema.execute(statement) }
        // The patients' own partitions of the metric table, as a store's first write makes them.
        for owner in ["alice", "bob"] { try OwnerPartitions.make(schema, owner: owner) }
        return (cluster, address)
    }

    /// The rule that decides whether a pushed row counts (`SupersedeRule`), the same code on both
    /// engines, gives the same answers: before the export's date superseded by it (1); a pushed
    /// bucket with a counted sample of its type inside it (2); otherwise counted (0); and the export's
    /// date applied to the pushed rows before it.
    @Test func theSupersedeRuleOnBothEngines() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try StagingStore(path: dir.appendingPathComponent("rule.sqlite").path, access: .write, configuration: .standard)
        let fromSQLite = try Self.judgePushes(store.database)
        #expect(fromSQLite == ["1", "2", "0", "0", "superseded 1"], "\(fromSQLite)")
        let (cluster, address) = try Self.clinic()
        defer { cluster.remove() }
        let alice = try PostgresDatabase(address: address, owner: "alice")
        #expect(try Self.judgePushes(alice) == fromSQLite)
    }

    static func judgePushes(_ database: some StoreDatabase) throws -> [String] {
        let exportDate: Int64 = 1_730_643_300   // 2024-11-03 09:15:00 -0500
        try database.execute("""
            INSERT INTO import_run(id, input, started_at, outcome, export_date) VALUES (1, 'export.zip', 0, 'ok', '2024-11-03 09:15:00 -0500');
            INSERT INTO metric_type(id, name) VALUES (1, 'HKQuantityTypeIdentifierStepCount');
            """)
        let row = try database.prepare("""
            INSERT INTO metric(type_id, start_date, end_date, source_id, value, unit_id, device_id, import_id, summary, origin)
            VALUES (1, ?, ?, 1, ?, 1, 1, 1, ?, ?)
            """)
        // A counted sample a day after the export; a pushed row an hour before it.
        try row.run([.int(exportDate + 86_400), .int(exportDate + 86_460), .double(120), .int(0), .int(0)])
        try row.run([.int(exportDate - 3600), .int(exportDate - 3540), .double(30), .int(0), .int(1)])
        let rule = try SupersedeRule(database: database)
        var answers: [String] = []
        let type = Array("HKQuantityTypeIdentifierStepCount".utf8), source = Array("iPhone".utf8)
        for (start, end, summary) in [(exportDate - 7200, exportDate - 7100, false), (exportDate + 86_000, exportDate + 87_000, true),
                                      (exportDate + 90_000, exportDate + 91_000, true), (exportDate + 95_000, exportDate + 95_060, false)] {
            var metric = MappedMetric()
            metric.startDate = start
            metric.endDate = end
            metric.isSummary = summary
            try type.withUnsafeBufferPointer { type in
                try source.withUnsafeBufferPointer { source in
                    metric.type = type
                    metric.sourceApp = source
                    answers.append(String(try rule.state(ofPushed: metric, type: 1, source: 1, category: 0) { _ in }))
                }
            }
        }
        try SupersedeRule.applyExportDate(in: database)
        answers.append("superseded \(try database.scalarInt("SELECT count(*) FROM metric WHERE superseded = 1") ?? -1)")
        return answers
    }

    /// The counts an import adds at each commit (`SummaryCounts`), written twice on both engines:
    /// the sums, ranges and dirty hours merge the same way.
    @Test func theSummaryCountsOnBothEngines() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try StagingStore(path: dir.appendingPathComponent("summary.sqlite").path, access: .write, configuration: .standard)
        let fromSQLite = try Self.countTwice(store.database)
        #expect(fromSQLite == ["summary 1|1|1|2|1|0|100|900", "summary 1|1|2|0|0|1|NULL|NULL", "hours 1|300|100|1000"], "\(fromSQLite)")
        let (cluster, address) = try Self.clinic()
        defer { cluster.remove() }
        #expect(try Self.countTwice(try PostgresDatabase(address: address, owner: "alice")) == fromSQLite)
    }

    static func countTwice(_ database: some StoreDatabase) throws -> [String] {
        let statements = try SummaryCounts.Statements(database)
        var counts = SummaryCounts()
        counts.add(type: 1, unit: 1, source: 1, .counted, start: 500, end: 600)
        counts.add(type: 1, unit: 1, source: 1, .repeated, start: 100, end: 400)
        counts.add(type: 1, unit: 1, source: 2, .superseded, start: 700, end: 1000)
        try counts.write(using: statements)
        counts.add(type: 1, unit: 1, source: 1, .counted, start: 800, end: 900)
        try counts.write(using: statements)
        var lines: [String] = []
        let summary = try database.prepare("""
            SELECT type_id, unit_id, source_id, count, repeats, superseded, first_start, last_end FROM metric_summary ORDER BY source_id
            """)
        while try summary.step() { lines.append("summary " + (0..<8).map { summary.text(Int32($0)) ?? "NULL" }.joined(separator: "|")) }
        summary.reset()
        let hours = try database.prepare("SELECT type_id, longest, dirty_from, dirty_to FROM metric_hour_state")
        while try hours.step() { lines.append("hours " + (0..<4).map { hours.text(Int32($0)) ?? "NULL" }.joined(separator: "|")) }
        hours.reset()
        return lines
    }

    /// One patient's writers take turns on PostgreSQL as on their SQLite file (the owner's advisory
    /// lock), on any connection of any server; another patient's writer does not wait for them.
    @Test func aPatientsWritersTakeTurns() throws {
        let (cluster, address) = try Self.clinic()
        defer { cluster.remove() }
        let first = try PostgresDatabase(address: address, owner: "alice")
        try first.beginWriting()
        let bob = try PostgresDatabase(address: address, owner: "bob")
        let started = ContinuousClock.now
        try bob.transaction { try bob.execute("INSERT INTO unit(name) VALUES ('count')") }
        #expect(started.duration(to: .now) < .seconds(1), "bob waited for alice")
        final class Waited: @unchecked Sendable { var seconds = 0.0; var error: (any Error)? }
        let waited = Waited(), done = DispatchSemaphore(value: 0)
        Thread {
            do {
                let second = try PostgresDatabase(address: address, owner: "alice")
                let asked = ContinuousClock.now
                try second.transaction { try second.execute("INSERT INTO unit(name) VALUES ('count/min')") }
                let elapsed = asked.duration(to: .now).components
                waited.seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            } catch {
                waited.error = error
            }
            done.signal()
        }.start()
        Thread.sleep(forTimeInterval: 0.5)
        try first.execute("INSERT INTO unit(name) VALUES ('kcal')")
        try first.execute("COMMIT")
        done.wait()
        #expect(waited.error == nil, "\(String(describing: waited.error))")
        #expect(waited.seconds >= 0.4, "alice's second writer did not wait for her first: \(waited.seconds) s")
        #expect(try cluster.psql("SELECT owner || ':' || name FROM unit ORDER BY id", database: "clinic") == "bob:count\nalice:kcal\nalice:count/min")
    }
}
