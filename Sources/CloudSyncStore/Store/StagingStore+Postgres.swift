extension StagingStore {
    /// `owner`'s store in a clinic's PostgreSQL at `address` (libpq's URI,
    /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DB`): the same store as a file, its rows in tables
    /// every patient shares, each row carrying its owner, and a connection that sees only that
    /// owner's (row-level security; docs/architecture.md, "One store, two engines"). The tables are
    /// made by the first writer; a reader of a database without them is told there is no store.
    public static func open(postgres address: String, owner: String, access: Access, configuration: Configuration) throws -> StagingStore {
        let database: PostgresDatabase
        do {
            database = try PostgresDatabase(address: StoreAddress.libpqAddress(address), owner: owner)
        } catch let error as PostgresError {
            throw StoreError.postgres(error)
        }
        return try StagingStore(postgres: database, owner: owner, access: access, configuration: configuration)
    }

    /// Makes the store's tables in the database at `address` if it has none yet, or checks that a
    /// cloudsync with these kinds made them (a server does it as it starts).
    public static func prepare(postgres address: String, configuration: Configuration) throws {
        do {
            let database = try PostgresDatabase(address: StoreAddress.libpqAddress(address), owner: nil)
            try PostgresStoreSchema.prepare(database, kinds: configuration.kinds, access: .write, name: database.path, grants: true)
        } catch let error as PostgresError {
            throw StoreError.postgres(error)
        }
    }

    /// Removes `owner`'s partitions once their rows are erased (`eraseOwnersRows`), by a connection
    /// of the server's own role: best effort (`OwnerPartitions.drop`).
    package static func dropPartitions(postgres address: String, owner: String) {
        guard let database = try? PostgresDatabase(address: StoreAddress.libpqAddress(address), owner: owner) else { return }
        OwnerPartitions.drop(database)
    }

    /// Whether the store is a patient's in PostgreSQL (not a file).
    public var isPostgres: Bool { sqlite == nil }

    /// Whether the store's connection is still open (`PostgresDatabase.isOpen`): a connection kept
    /// open between writes may have been closed by the server since.
    package func answers() -> Bool { (database as? PostgresDatabase)?.isOpen() ?? false }

    /// Whether a transaction is open on the store's connection (or a statement still runs on it).
    package var isInTransaction: Bool { database.isInTransaction }
}
