extension StagingStore {
    /// How many rows each of the store's tables holds (every table: the rows, the names they use,
    /// the ledgers), for what an erase of the store says it removed.
    public func rowCounts() throws -> [String: Int] {
        try storeErrors {
            let names = try tableNames()
            var counts: [String: Int] = [:]
            for name in names {
                let quoted = "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
                counts[name] = Int(try database.scalarInt("SELECT count(*) FROM \(quoted)") ?? 0)
            }
            return counts
        }
    }

    /// The store's tables: on PostgreSQL those `PostgresStoreSchema` made (the database holds the
    /// receiver's too, which are not a patient's store).
    func tableNames() throws -> [String] {
        if database.dialect == .postgres { return try PostgresStoreSchema.tableNames(kinds: configuration.kinds) }
        let tables = try database.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        var names: [String] = []
        while try tables.step() { if let name = tables.text(0) { names.append(name) } }
        return names
    }

    /// Removes every row of this patient's store in a clinic's PostgreSQL, in one transaction (other
    /// patients' rows are not seen: row-level security); what it removed, by table. A store file
    /// is removed as a file instead.
    public func eraseOwnersRows() throws -> [String: Int] {
        precondition(isPostgres, "a store file is erased by removing it")
        return try storeErrors {
            try database.transaction {
                var counts: [String: Int] = [:]
                for name in try tableNames() {
                    try database.execute("DELETE FROM " + PostgresStoreSchema.quoted(name))
                    if database.changes > 0 { counts[name] = database.changes }
                }
                return counts
            }
        }
    }
}
