public import CloudSyncModel
import CSQLite3
import Foundation

/// The SQLite staging store: where years of history wait to be uploaded, queried and re-exported.
///
/// Many processes share one store: `serve --store` taking pushes, imports, uploads, `mcp`, `report`
/// and the readers, at the same time (docs/store.md, "Many processes, one store"). Readers read a
/// snapshot (WAL) and never wait; writers take SQLite's write lock for short transactions (an
/// import commits in chunks) and wait their turn for it (`StoreLocks`); at most one upload per
/// target at a time. After a `kill -9` at any moment SQLite's journal brings the file back to its
/// last commit.
public final class StagingStore: StoreAccess {
    /// `read` and `update` need an existing store; only `write` (import) creates one.
    public enum Access: Sendable { case read, update, write }

    /// What a store is opened with: the record kinds it keeps, and how an import and `aggregate`
    /// work (each with the value a user needs; tests set others to see several commits or summaries).
    /// `@unchecked`: its kinds are metatypes, which hold no state.
    public struct Configuration: @unchecked Sendable {
        /// The record kinds besides metrics (`CloudSyncKinds.RecordKinds.all`).
        public var kinds: [any StoredKind.Type]
        /// Metrics per import transaction.
        public var importCommitEvery = 50_000
        /// Samples a type needs to have an hour summary (see HourSummaryBuilder.isDense).
        public var hourSummaryDenseCount = HourSummaryBuilder.denseCount
        /// Whether `aggregate` may read the hour summary (the rows give the same numbers, slower).
        public var readsHourSummary = true
        /// How long a writer waits for its turn to write before it fails (SQLite's busy error): an
        /// import's chunk takes well under a second, so this is reached only when a writer is stuck.
        public var writeWait = 60.0
        /// Whether each commit moves the write-ahead log into the file once it is large (SQLite's
        /// automatic checkpoint, done by whichever connection commits). `serve --store` turns it off
        /// for pushes: a push that came right after an import's chunk copied that chunk's thousands
        /// of pages into the file while it held up its answer (5 s). It calls `checkpointUnlessImporting`.
        public var checkpointsOnCommit = true
        /// The page cache of a writer's connection, in KiB: 16 MiB for an import (the pages it inserts
        /// into are few: it goes type by type, in time; 32 MiB made the 1 GB import's peak RSS 16 MiB
        /// larger). `serve --db FILE` opens a patient's store for each write, several at once: 4 MiB
        /// each kept 4 uploaders' receiver under 128 MiB (148 MiB with 16).
        public var pageCacheKiB = 16 << 10
        /// Told when this process upgrades the store's schema (a command says it on stderr).
        public var onUpgrade: (@Sendable (_ path: String, _ from: Int, _ to: Int) -> Void)?

        public init(kinds: [any StoredKind.Type]) { self.kinds = kinds }
    }

    public let path: String
    let database: any StoreDatabase
    /// The store file's connection; nil for a patient's store in a clinic's PostgreSQL
    /// (`StagingStore+Postgres.swift`): what only a file has (pragmas, checkpoints, the waiting room).
    let sqlite: SQLiteDatabase?
    public let configuration: Configuration
    /// Writers only (readers create no file): see `StoreLocks`.
    let locks: StoreLocks?
    /// Whether the store's file is one no other process knows of: a new store's first import,
    /// written beside its path (`NewStoreLoad`).
    let writtenAlone: Bool
    /// The upload ledger: targets, acknowledgements, runs, backfill, pending. What commands read is
    /// a query type each (`StatusQuery`, `AggregateQuery`, …); an import is `beginImport`.
    public private(set) lazy var ledger = UploadLedger(database: database, path: path, configuration: configuration)

    /// Opens a store for reading. A reader never creates or upgrades a store: a store of an older
    /// schema is refused with what upgrades it (`StoreError.olderSchema`).
    public static func openForReading(path: String, configuration: Configuration) throws -> StagingStore {
        try StagingStore(path: path, access: .read, configuration: configuration)
    }

    /// Opens (for writing: creates) the store at `path`, migrating its schema when it is older.
    public convenience init(path: String, access: Access, configuration: Configuration) throws {
        try self.init(path: path, access: access, configuration: configuration, writtenAlone: nil)
    }

    /// `writtenAlone`: the file beside `path` that a new store's first import fills before it is
    /// linked at `path` (`NewStoreLoad`): written without the write-ahead log, synced once when it
    /// is linked, and without the locks other processes share (none can see it).
    init(path: String, access: Access, configuration: Configuration, writtenAlone file: String?) throws {
        self.path = path
        self.configuration = configuration
        writtenAlone = file != nil
        if let file {
            locks = nil
            do {
                let sqlite = try SQLiteDatabase(path: file, mode: .readWrite, shownAs: path)
                database = sqlite
                self.sqlite = sqlite
                try configure(access, sqlite)
            } catch let error as SQLiteError {
                throw StoreError.sqlite(error)
            }
            return
        }
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
                    try PrivateFile.createDirectory(directory)
                } catch {
                    throw StoreError.readOnly(path)
                }
            }
            if exists && !FileManager.default.isWritableFile(atPath: path) { throw StoreError.readOnly(path) }
            do {
                locks = try StoreLocks(storePath: path)
            } catch StoreError.cannotOpen {
                throw StoreError.readOnly(path)
            }
        } else {
            locks = nil
        }
        do {
            if access == .write && !exists { try NewStoreFile.make(at: path, kinds: configuration.kinds) }
            let sqlite = try SQLiteDatabase(path: path, mode: access == .read ? .readOnly : .readWrite)
            database = sqlite
            self.sqlite = sqlite
            sqlite.waitingRoom = locks
            sqlite.waitForLocks(upTo: configuration.writeWait)
            try configure(access, sqlite)
        } catch let error as SQLiteError {
            if error.isReadOnly { throw StoreError.readOnly(path) }
            if error.code == SQLITE_NOTADB { throw StoreError.notAStore(path, error.message) }
            throw StoreError.sqlite(error)
        }
    }

    /// Opens a patient's store in a clinic's PostgreSQL: `owner`'s rows of the tables every
    /// patient shares (`PostgresStoreSchema`), made on first use.
    init(postgres database: PostgresDatabase, owner: String, access: Access, configuration: Configuration) throws {
        path = database.path + " (" + owner + ")"
        self.database = database
        sqlite = nil
        locks = nil
        writtenAlone = false
        self.configuration = configuration
        try storeErrors {
            // A writer waits this long for the patient's other writers (`beginWriting`'s lock), as
            // SQLite's busy timeout does for a file.
            try database.execute("SET lock_timeout = '\(Int(configuration.writeWait * 1000))ms'")
            try PostgresStoreSchema.prepare(database, kinds: configuration.kinds, access: access, name: path)
            try PostgresStoreSchema.actAsPatient(database)
            try OwnerViews.make(database)
            if access != .read {
                try makeIdentity()
            } else if try database.scalarInt("SELECT count(*) FROM identity") == 0 {
                // Made by the patient's first write: before it, they have no store here.
                throw StoreError.missing(path)
            }
        }
    }

    private func configure(_ access: Access, _ database: SQLiteDatabase) throws {
        let version = try checkIsStore(access: access)
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
        if writtenAlone {
            // Nobody reads it and a crash throws it away (`NewStoreLoad`): no log to write every
            // page twice, no syncs (10 pairs: the 100 MB import 0.790 -> 0.675 s; 1 GB: 1.82x -> 1.67x the floor);
            // the rollback journal in memory, so that a chunk that fails (a full disk) is undone.
            try database.execute("PRAGMA journal_mode = MEMORY")
            try database.execute("PRAGMA synchronous = OFF")
        } else {
            // WAL: readers never block the writer; NORMAL: a commit survives any crash of the process.
            try database.turnOnWAL()
            try database.execute("PRAGMA synchronous = NORMAL")
        }
        // The page cache (16 MiB unless configured): an import's rows come in identity order (type by type, in time), so
        // the pages it inserts into are few. 32 MiB made the import's peak RSS 16 MiB larger.
        try database.execute("PRAGMA cache_size = -\(configuration.pageCacheKiB)")
        try database.execute("PRAGMA temp_store = FILE")
        if !configuration.checkpointsOnCommit { try database.execute("PRAGMA wal_autocheckpoint = 0") }
        if version < StoreSchema.currentVersion { try upgrade() }
        try KindTables.upgrade(configuration.kinds, in: database)
        if locks?.holdAlive() ?? false {
            // A run still marked running while no other writing process is alive was stopped by a
            // crash or a kill (with another one alive, it may be its run: left as it is).
            try database.transaction {
                try database.execute("""
                    UPDATE import_run SET outcome = 'interrupted', reason = 'the process stopped before the import ended'
                    WHERE outcome = 'running'
                    """)
                try database.execute("""
                    UPDATE upload_run SET outcome = 'interrupted', error = 'the process stopped before the upload ended'
                    WHERE outcome = 'running'
                    """)
            }
        }
        try makeIdentity()
    }

    /// The `userId` and `deviceId` CloudCare's envelopes carry, made once, on the store's first use.
    private func makeIdentity() throws {
        try database.transaction {
            for key in ["userId", "deviceId"] {
                try database.prepare("INSERT INTO identity(key, value) VALUES (?, ?) ON CONFLICT DO NOTHING")
                    .run([.text(key), .text(UUID().uuidString)])
            }
        }
    }

    /// Brings the schema up to this cloudsync's in one transaction, which holds the write lock
    /// throughout (other writers wait; readers go on reading the old schema until it commits), and
    /// says so. The version is read again inside it: another process may have upgraded meanwhile.
    private func upgrade() throws {
        try database.transaction {
            let found = Int(try database.scalarInt("PRAGMA user_version") ?? 0)
            guard found < StoreSchema.currentVersion else { return }
            if found > 0 { configuration.onUpgrade?(path, found, StoreSchema.currentVersion) }
            try StoreSchema.migrate(database, from: found)
        }
    }

    /// Refuses an SQLite file that is not a cloudsync store (another program's database), and an
    /// empty one unless this command makes stores (import); else the file's schema version. The
    /// version and the tables are read by one statement, as of one moment: a process making the
    /// store beside this one commits its tables and its version together, and read one after the
    /// other they could be its tables without its version ("an SQLite database of another program").
    private func checkIsStore(access: Access) throws -> Int {
        let found = try database.prepare("""
            SELECT (SELECT user_version FROM pragma_user_version),
                   (SELECT count(*) FROM sqlite_master WHERE type = 'table'),
                   (SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('metric', 'import_run', 'identity'))
            """)
        // An aggregate without GROUP BY answers one row, always.
        guard try found.step() else { throw StoreError.notAStore(path, "its schema could not be read; it is left as it is") }
        let (version, tables, ours) = (Int(found.int64(0)), found.int64(1), found.int64(2))
        found.reset()
        if version == 0 {
            if tables == 0 {
                if access != .write { throw StoreError.empty(path) }
                return version
            }
            throw StoreError.notAStore(path, "it is an SQLite database of another program (\(counted(Int(tables), "table")), none of cloudsync's); it is left as it is")
        }
        if ours < 3 {
            throw StoreError.notAStore(path, "it is an SQLite database without cloudsync's tables; it is left as it is")
        }
        return version
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
        // PostgreSQL's readers hold no write lock and see committed rows: nothing to refuse there
        // that row-level security does not.
        try storeErrors { try sqlite?.execute("PRAGMA query_only = 1") }
    }

    /// `PRAGMA integrity_check`: "ok" for a sound file.
    /// Moves what the write-ahead log holds into the store's file and empties the log, so that the
    /// file alone is the whole store: a copy of `staging.sqlite` without its `-wal` is a complete
    /// backup. A command that wrote calls it before it ends, rather than trusting the connection's
    /// close to do it (a close that comes after the process has exited never does). Best effort: a
    /// log left behind is replayed by the next open, nothing is lost.
    public func checkpoint() {
        // TRUNCATE waits for every reader to reach the latest snapshot and holds other writers off
        // meanwhile: with a reader that stays (`mcp`, `serve`) it would wait its whole busy timeout.
        // A short wait, then it is left to the next writer.
        guard let sqlite else { return }
        sqlite.waitForLocks(upTo: 0.2)
        _ = try? sqlite.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        sqlite.waitForLocks(upTo: configuration.writeWait)
    }

    /// For a connection that does not checkpoint on commit (`checkpointsOnCommit`): moves the log
    /// into the file without waiting for anyone (PASSIVE), unless an export's import runs: then its
    /// commits do it (a push copying the import's chunks into the file took up to 5 s).
    public func checkpointUnlessImporting() {
        guard let locks, !locks.someoneImports else { return }
        _ = try? sqlite?.execute("PRAGMA wal_checkpoint(PASSIVE)")
    }

    public func integrityCheck() throws -> String {
        guard let sqlite else { return "ok" }   // PostgreSQL checks its own pages
        return try sqlite.scalarText("PRAGMA integrity_check") ?? ""
    }

}

@available(*, unavailable)
extension StagingStore: Sendable {}
