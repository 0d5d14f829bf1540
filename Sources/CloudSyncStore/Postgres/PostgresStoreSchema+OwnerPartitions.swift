extension PostgresStoreSchema {
    /// Brings a store made before `OwnerPartitions` to them, in the caller's transaction (under the
    /// schema's lock): each of `tables` is made again as the partitioned one, each owner's rows moved
    /// into their partition with their ids, and the ids' numbering taken on. The views and the
    /// counting trigger, which read the tables, are made again with them. Every owner with a row in
    /// them, or a partition of another table, gets a partition of each: a patient with rows finds
    /// their partitions there (`BulkLoad.begin` asks only a patient without).
    static func partitionByOwner(_ database: PostgresDatabase, kinds: [any StoredKind.Type],
                                 tables: [String] = OwnerPartitions.tables) throws {
        let reference = try reference(kinds: kinds)
        for view in try names(of: "view", in: reference) { try database.execute("DROP VIEW IF EXISTS \(quoted(view)) CASCADE") }
        try database.execute("DROP FUNCTION IF EXISTS metric_counting() CASCADE")
        let old = { (table: String) in quoted(table + "_before_partitions") }
        var lastIDs: [String: Int64] = [:]
        for table in tables {
            try database.execute("ALTER TABLE \(quoted(table)) RENAME TO \(old(table))")
            try database.execute("DROP POLICY IF EXISTS \(table)_owner ON \(old(table))")
            try database.execute("ALTER TABLE \(old(table)) NO FORCE ROW LEVEL SECURITY")
            try database.execute("ALTER TABLE \(old(table)) DISABLE ROW LEVEL SECURITY")
            // Its key's, constraints' and indexes' names, and its identity's sequence, are the new table's.
            try dropKeysAndIndexes(of: table + "_before_partitions", in: database)
            if try texts("SELECT name FROM pragma_table_info(?) WHERE name = 'id'", table, in: reference).count == 1 {
                // Where the numbering stood (past the last row's id when rows were erased): it never goes back.
                lastIDs[table] = try database.scalarInt("""
                    SELECT greatest((SELECT max(id) FROM \(old(table))),
                                    pg_sequence_last_value(pg_get_serial_sequence(?, 'id')::regclass))
                    """, [.text(table + "_before_partitions")])
                try database.execute("ALTER TABLE \(old(table)) ALTER COLUMN id DROP IDENTITY IF EXISTS")
            }
        }
        // Every owner of a row of any of them gets a partition of each (one with metrics and no
        // hours yet will have hours).
        var owners = Set(try texts(tables.map { "SELECT owner FROM \(old($0))" }.joined(separator: " UNION "), in: database))
        for table in OwnerPartitions.tables where !tables.contains(table) {
            for partition in try texts("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = ?::regclass",
                                       table, in: database) {
                owners.formUnion(try texts("SELECT owner FROM \(quoted(partition)) LIMIT 1", in: database))
            }
        }
        for table in tables {
            for statement in try Self.table(table, in: reference) { try database.execute(statement) }
            let columns = try (["owner"] + texts("SELECT name FROM pragma_table_info(?) ORDER BY cid", table, in: reference))
                .map(quoted).joined(separator: ", ")
            for owner in owners.sorted() {
                let partition = try database.scalarText("SELECT \(OwnerPartitions.nameSQL(of: table))", [.text(owner)]) ?? ""
                try OwnerPartitions.makeEmpty(partition, of: table, owner: owner, in: database)
            }
            // Every owner's rows in one pass, each to its partition (one statement an owner read the
            // whole table each time). Not held by the owner's policy meanwhile: the connection is one
            // owner's, the rows everyone's.
            try database.execute("ALTER TABLE \(quoted(table)) NO FORCE ROW LEVEL SECURITY")
            try database.execute("INSERT INTO \(quoted(table))(\(columns)) SELECT \(columns) FROM \(old(table))")
            try database.execute("ALTER TABLE \(quoted(table)) FORCE ROW LEVEL SECURITY")
            if let lastID = lastIDs[table] {
                _ = try database.scalarInt("SELECT setval(pg_get_serial_sequence(?, 'id'), ?)", [.text(table), .int(lastID)])
            }
            try database.execute("DROP TABLE \(old(table))")
        }
        for statement in try viewsAndTrigger(in: reference) { try database.execute(statement) }
        if try isPrivileged(database) { try grantPatientRole(database, kinds: kinds) }
    }

    /// Makes the partitioned tables' keys, unique constraints and indexes again with the owner last
    /// (`table`), in the caller's transaction (under the schema's lock). Dropped from the shared
    /// table, they go from every partition; made on it, they are built on each.
    static func ownerLastInKeys(_ database: PostgresDatabase, kinds: [any StoredKind.Type]) throws {
        let reference = try reference(kinds: kinds)
        for table in OwnerPartitions.tablesBeforeRoutePoints {
            try dropKeysAndIndexes(of: table, in: database)
            for statement in try Self.table(table, in: reference, keysOnly: true) { try database.execute(statement) }
        }
    }

    /// Drops `table`'s key, unique constraints and indexes (of a partitioned table: its partitions' too).
    private static func dropKeysAndIndexes(of table: String, in database: PostgresDatabase) throws {
        for constraint in try texts("SELECT conname FROM pg_constraint WHERE conrelid = ?::regclass AND contype IN ('p', 'u')",
                                    table, in: database) {
            try database.execute("ALTER TABLE \(quoted(table)) DROP CONSTRAINT \(quoted(constraint))")
        }
        for index in try texts("SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = ?::regclass",
                               table, in: database) {
            try database.execute("DROP INDEX \(quoted(index))")
        }
    }

    /// The first column of each row `sql` answers, as text (`argument`: its one parameter).
    private static func texts(_ sql: String, _ argument: String? = nil, in database: some StoreDatabase) throws -> [String] {
        try database.texts(sql, argument.map { [.text($0)] } ?? [])
    }
}
