import CloudSyncModel

/// Writes an import's records of every kind (the import session's `RecordSink`), each by its kind's
/// `StoredKind` conformance, once by the kind's key: importing the same export again adds nothing.
/// A record is written whole in the import's open transaction (a route with all its points), and
/// weighs its parts in the import's commit interval.
final class RecordWriter: LinkingRecordSink {
    /// An import's records of one kind: added, and already in the store.
    struct Imported: Sendable {
        var new = 0
        var already = 0
    }

    private let rows: KindRows
    private let runID: Int64
    private let transaction: ImportTransaction
    /// The kinds the store is configured with: it has their tables.
    private let kinds: Set<String>
    private(set) var imported: [String: Imported] = [:]
    /// As of the last commit.
    private var committed: [String: Imported] = [:]

    /// `bulk`: the import's bulk load, whose new partitions take the rows a kind adds as they are
    /// (route points), attached before the commit.
    init(database: any StoreDatabase, runID: Int64, kinds: [any StoredKind.Type], transaction: ImportTransaction, bulk: BulkLoad? = nil) {
        self.kinds = Set(kinds.map { $0.name })
        self.runID = runID
        self.transaction = transaction
        rows = KindRows(database: database, runID: runID, bulk: bulk)
        transaction.beforeCommit.append { [unowned self] in
            try saveCounts()
            try bulk?.attachAddedRows()
        }
        transaction.afterCommit.append { [unowned self] in committed = imported }
    }

    func write<Kind: RecordKind>(_ record: Kind.Record, as kind: Kind.Type) throws {
        // A kind without a table would be lost here: that is a mistake of this program, said loudly.
        guard kinds.contains(Kind.name), let stored = Kind.self as? any StoredKind.Type else { throw StoreError.unstorable(Kind.name) }
        let isNew = try insert(record, as: stored)
        if isNew { imported[Kind.name, default: Imported()].new += 1 } else { imported[Kind.name, default: Imported()].already += 1 }
        try transaction.wrote(1 + Kind.parts(of: record))
    }

    func alreadyHolds<Kind: RecordKind>(file path: String, as kind: Kind.Type) throws -> RecordCount? {
        guard kinds.contains(Kind.name), let stored = Kind.self as? any StoredKind.Type,
              let held = try stored.stored(file: path, in: rows) else { return nil }
        imported[Kind.name, default: Imported()].already += 1
        return held
    }

    private func insert<Stored: StoredKind>(_ record: Any, as kind: Stored.Type) throws -> Bool {
        try Stored.insert(record as! Stored.Record, into: rows)
    }

    /// On SQLite: a route's points are written beside the parse. On PostgreSQL they go into the bulk
    /// load's partition, which is not attached before the end: written linked, as they come after it.
    var writesBeforeLink: Bool { rows.database is SQLiteDatabase }

    func relink<Kind: RecordKind>(_ record: Kind.Record, as kind: Kind.Type) throws {
        guard kinds.contains(Kind.name), let stored = Kind.self as? any StoredKind.Type else { throw StoreError.unstorable(Kind.name) }
        try relink(record, as: stored)
    }

    private func relink<Stored: StoredKind>(_ record: Any, as kind: Stored.Type) throws {
        try Stored.relink(record as! Stored.Record, into: rows)
    }

    /// The session commits: nothing of its own to do when the input is read.
    func finish() throws {}

    func rolledBack() { imported = committed }

    /// The run's new records per kind, in the transaction that adds them.
    private func saveCounts() throws {
        let save = try rows.statement("""
            INSERT INTO import_run_kind(run_id, kind, new_count) VALUES (?, ?, ?)
            ON CONFLICT(\(rows.database.dialect.conflictTarget("run_id, kind"))) DO UPDATE SET new_count = excluded.new_count
            """)
        for (kind, counts) in imported { try save.run([.int(runID), .text(kind), .int(Int64(counts.new))]) }
    }
}
