public import CloudSyncModel
import CSQLite3
import Foundation

/// The SQLite staging store: where years of history wait to be uploaded, queried and re-exported.
///
/// Writers (`import`, `upload`) hold an exclusive lock file for their whole session; readers
/// (`status`, `export`, `aggregate`) read alongside them (WAL). Commits are large transactions;
/// after a `kill -9` at any moment SQLite's journal brings the file back to its last commit.
public final class StagingStore: StoreAccess {
    /// `read` and `update` need an existing store; only `write` (import) creates one.
    public enum Access: Sendable { case read, update, write }

    /// What a store is opened with: the record kinds it keeps, and how an import and `aggregate`
    /// work (each with the value a user needs; tests set others to see several commits or summaries).
    public struct Configuration {
        /// The record kinds besides metrics (`CloudSyncKinds.RecordKinds.all`).
        public var kinds: [any StoredKind.Type]
        /// Metrics per import transaction.
        public var importCommitEvery = 50_000
        /// Samples a type needs to have an hour summary (see HourSummaryBuilder.isDense).
        public var hourSummaryDenseCount = HourSummaryBuilder.denseCount
        /// Whether `aggregate` may read the hour summary (the rows give the same numbers, slower).
        public var readsHourSummary = true

        public init(kinds: [any StoredKind.Type]) { self.kinds = kinds }
    }

    public let path: String
    let database: SQLiteDatabase
    public let configuration: Configuration
    private let lock: StoreLock?
    /// The upload ledger: targets, acknowledgements, runs, backfill, pending. What commands read is
    /// a query type each (`StatusQuery`, `AggregateQuery`, …); an import is `beginImport`.
    public private(set) lazy var ledger = UploadLedger(database: database, path: path, configuration: configuration)

    /// Opens a store for reading, upgrading its schema first when it is older (the first use after
    /// a new cloudsync): a short writer session that takes the lock, migrates and closes.
    public static func openForReading(path: String, configuration: Configuration) throws -> StagingStore {
        do {
            return try StagingStore(path: path, access: .read, configuration: configuration)
        } catch StoreError.olderSchema {
            _ = try StagingStore(path: path, access: .update, configuration: configuration)
            return try StagingStore(path: path, access: .read, configuration: configuration)
        }
    }

    /// Opens (for writing: creates) the store at `path`, migrating its schema when it is older.
    public init(path: String, access: Access, configuration: Configuration) throws {
        self.path = path
        self.configuration = configuration
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if isDirectory.boolValue { throw StoreError.folder(path) }
        if access != .write && !exists { throw StoreError.missing(path) }
        // A command that does not create stores never turns an empty file into one (a store emptied
        // by a mistake, `touch`): it says so and leaves the file as it is.
        if access != .write && exists && Self.isEmptyRegularFile(path) {
            throw StoreError.empty(path)
        }
        if access != .read {
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty {
                do {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                } catch {
                    throw StoreError.readOnly(path)
                }
            }
            if exists && !FileManager.default.isWritableFile(atPath: path) { throw StoreError.readOnly(path) }
            do {
                lock = try StoreLock(storePath: path)
            } catch StoreError.cannotOpen {
                throw StoreError.readOnly(path)
            }
        } else {
            lock = nil
        }
        do {
            database = try SQLiteDatabase(path: path, mode: access == .read ? .readOnly : .readWrite)
            try configure(access)
        } catch let error as SQLiteError {
            if error.isReadOnly { throw StoreError.readOnly(path) }
            if error.code == SQLITE_NOTADB { throw StoreError.notAStore(path, error.message) }
            throw StoreError.sqlite(error)
        }
    }

    private func configure(_ access: Access) throws {
        let version = Int(try database.scalarInt("PRAGMA user_version") ?? 0)
        try checkIsStore(version: version, access: access)
        if version > StoreSchema.currentVersion {
            throw StoreError.newerSchema(path, found: version, known: StoreSchema.currentVersion)
        }
        guard access != .read else {
            let outdatedKinds = version < StoreSchema.currentVersion ? [] : try KindTables.outdated(configuration.kinds, in: database)
            if version < StoreSchema.currentVersion || !outdatedKinds.isEmpty {
                throw StoreError.olderSchema(path, found: version)
            }
            return
        }
        // 16 KiB pages: fewer B-tree splits during bulk imports (only takes effect on a new file).
        try database.execute("PRAGMA page_size = 16384")
        // WAL: readers never block the writer; NORMAL: a commit survives any crash of the process.
        try database.execute("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA synchronous = NORMAL")
        // 16 MiB of page cache: an import's rows come in identity order (type by type, in time), so
        // the pages it inserts into are few. 32 MiB made the import's peak RSS 16 MiB larger.
        try database.execute("PRAGMA cache_size = -16384")
        try database.execute("PRAGMA temp_store = FILE")
        for step in version..<StoreSchema.currentVersion {
            try database.transaction {
                try database.execute(StoreSchema.migrations[step])
                try database.execute("PRAGMA user_version = \(step + 1)")
            }
        }
        try KindTables.upgrade(configuration.kinds, in: database)
        try database.transaction {
            // A run still marked running was stopped by a crash or a kill: the lock says no other
            // process is importing now.
            try database.execute("""
                UPDATE import_run SET outcome = 'interrupted', reason = 'the process stopped before the import ended'
                WHERE outcome = 'running'
                """)
            try database.execute("""
                UPDATE upload_run SET outcome = 'interrupted', error = 'the process stopped before the upload ended'
                WHERE outcome = 'running'
                """)
            for key in ["userId", "deviceId"] {
                try database.prepare("INSERT OR IGNORE INTO identity(key, value) VALUES (?, ?)")
                    .run([.text(key), .text(UUID().uuidString)])
            }
        }
    }

    /// Refuses an SQLite file that is not a cloudsync store (another program's database), and an
    /// empty one unless this command makes stores (import).
    private func checkIsStore(version: Int, access: Access) throws {
        let tables = try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table'") ?? 0
        if version == 0 {
            if tables == 0 {
                if access != .write { throw StoreError.empty(path) }
                return
            }
            throw StoreError.notAStore(path, "it is an SQLite database of another program (\(counted(Int(tables), "table")), none of cloudsync's); it is left as it is")
        }
        let ours = try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('metric', 'import_run', 'identity')") ?? 0
        if ours < 3 {
            throw StoreError.notAStore(path, "it is an SQLite database without cloudsync's tables; it is left as it is")
        }
    }

    /// The `userId` and `deviceId` made once, on the store's first use.
    public func identity() throws -> CloudCareIdentity { try StatusQuery(self).identity() }

    private static func isEmptyRegularFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG && status.st_size == 0
    }

    /// Refuses every write on this connection from now on (`PRAGMA query_only`): for servers that
    /// answer questions from a store another process imports into.
    public func makeQueryOnly() throws {
        try storeErrors { try database.execute("PRAGMA query_only = 1") }
    }

    /// `PRAGMA integrity_check`: "ok" for a sound file.
    /// Moves what the write-ahead log holds into the store's file and empties the log, so that the
    /// file alone is the whole store: a copy of `staging.sqlite` without its `-wal` is a complete
    /// backup. A command that wrote calls it before it ends, rather than trusting the connection's
    /// close to do it (a close that comes after the process has exited never does). Best effort: a
    /// log left behind is replayed by the next open, nothing is lost.
    public func checkpoint() {
        _ = try? database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    public func integrityCheck() throws -> String {
        try database.scalarText("PRAGMA integrity_check") ?? ""
    }

}

@available(*, unavailable)
extension StagingStore: Sendable {}
