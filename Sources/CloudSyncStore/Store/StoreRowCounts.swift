extension StagingStore {
    /// How many rows each of the store's tables holds (every table: the rows, the names they use,
    /// the ledgers), for what an erase of the store says it removed.
    public func rowCounts() throws -> [String: Int] {
        try storeErrors {
            let tables = try database.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            var names: [String] = []
            while try tables.step() { if let name = tables.text(0) { names.append(name) } }
            var counts: [String: Int] = [:]
            for name in names {
                let quoted = "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
                counts[name] = Int(try database.scalarInt("SELECT count(*) FROM \(quoted)") ?? 0)
            }
            return counts
        }
    }
}
