import CloudSyncModel

/// The store's reading side: what `status`, `export`, `aggregate`, `mcp` and `report` ask. Each
/// query reads through the store's connection; none writes (the one exception is the `sql` tool's
/// `daily` rows, written into the connection's own temporary schema, never the file).
public final class StoreQueries: StoreAccess {
    let database: SQLiteDatabase
    public let path: String
    public let configuration: StagingStore.Configuration
    /// What is pending counts acknowledgements: `status` asks the ledger.
    let ledger: UploadLedger

    init(database: SQLiteDatabase, path: String, configuration: StagingStore.Configuration, ledger: UploadLedger) {
        self.database = database
        self.path = path
        self.configuration = configuration
        self.ledger = ledger
    }
}

@available(*, unavailable)
extension StoreQueries: Sendable {}
