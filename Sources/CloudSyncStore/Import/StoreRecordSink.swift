import CloudSyncExport
import CloudSyncModel

/// Writes records of every kind into the store (the `RecordSink` of `cloudsync import`), each by its
/// kind's `StoredKind` conformance, idempotently by the kind's key. Inside a transaction already
/// open (the metrics' one, for records read from export.xml) it only inserts; otherwise it opens its
/// own and commits every `commitEvery` records, so that a killed import keeps what it committed, a
/// record always whole (a route with all its points).
final class StoreRecordSink: RecordSink {
    /// An import's records of one kind: added, and already in the store.
    struct Imported: Sendable {
        var new = 0
        var already = 0
    }

    private let database: SQLiteDatabase
    private let rows: KindRows
    private let runID: Int64
    private let commitEvery: Int
    /// The kinds the store is configured with: it has their tables.
    private let kinds: Set<String>
    private var ownsTransaction = false
    private var sinceCommit = 0
    private(set) var imported: [String: Imported] = [:]

    init(database: SQLiteDatabase, runID: Int64, kinds: [any StoredKind.Type], commitEvery: Int = 200) {
        self.database = database
        self.kinds = Set(kinds.map { $0.name })
        self.runID = runID
        self.commitEvery = commitEvery
        rows = KindRows(database: database, runID: runID)
    }

    func write<Kind: RecordKind>(_ record: Kind.Record, as kind: Kind.Type) throws {
        // A kind without a table would be lost here: that is a mistake of this program, said loudly.
        guard kinds.contains(Kind.name), let stored = Kind.self as? any StoredKind.Type else { throw StoreError.unstorable(Kind.name) }
        try beginIfNeeded()
        let isNew = try insert(record, as: stored)
        if isNew { imported[Kind.name, default: Imported()].new += 1 } else { imported[Kind.name, default: Imported()].already += 1 }
        try commitIfDue()
    }

    private func insert<Stored: StoredKind>(_ record: Any, as kind: Stored.Type) throws -> Bool {
        try Stored.insert(record as! Stored.Record, into: rows)
    }

    func finish() throws {
        if ownsTransaction { try commit() }
    }

    private func beginIfNeeded() throws {
        guard !database.isInTransaction else { return }
        try database.execute("BEGIN IMMEDIATE")
        ownsTransaction = true
    }

    private func commitIfDue() throws {
        sinceCommit += 1
        if ownsTransaction && sinceCommit >= commitEvery { try commit() }
    }

    private func commit() throws {
        try saveCounts()
        try database.execute("COMMIT")
        ownsTransaction = false
        sinceCommit = 0
    }

    /// The run's new records per kind, in the transaction that adds them.
    func saveCounts() throws {
        let save = try rows.statement("INSERT OR REPLACE INTO import_run_kind(run_id, kind, new_count) VALUES (?, ?, ?)")
        for (kind, counts) in imported { try save.run([.int(runID), .text(kind), .int(Int64(counts.new))]) }
    }
}
