import CloudSyncExport
import CloudSyncModel

/// Writes converted metrics into the store (the `MetricSink` of `cloudsync import`).
///
/// `INSERT OR IGNORE` against the identity index decides new versus duplicate. Commits every
/// `commitEvery` metrics, each commit also saving the run's counts, so a killed import keeps what
/// it committed and the next import only adds what is missing.
final class StoreImportSink: MetricSink, ConversionObserver {
    private let database: SQLiteDatabase
    private let runID: Int64
    private let insert: SQLiteStatement
    private let progress: SQLiteStatement
    private let types, sources, units, devices, versions: NameTable
    private var metadata = ByteBuffer(capacity: 4096)
    private let commitEvery: Int
    private var sinceCommit = 0
    private(set) var newCount = 0
    private(set) var duplicateCount = 0
    private(set) var me: [String: String]?

    init(database: SQLiteDatabase, runID: Int64, commitEvery: Int = 50_000) throws {
        self.database = database
        self.runID = runID
        self.commitEvery = commitEvery
        insert = try database.prepare("""
            INSERT OR IGNORE INTO metric(type_id, start_date, end_date, source_id, value, unit_id, device_id,
                                         source_version_id, extra, import_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        progress = try database.prepare("UPDATE import_run SET new_count = ?, duplicate_count = ? WHERE id = ?")
        types = try NameTable(database, table: "metric_type")
        sources = try NameTable(database, table: "source")
        units = try NameTable(database, table: "unit")
        devices = try NameTable(database, table: "device")
        versions = try NameTable(database, table: "source_version")
    }

    /// Starts the first transaction.
    func begin() throws { try database.execute("BEGIN IMMEDIATE") }

    func write(_ metric: MappedMetric) throws {
        // The mapper always puts `device` first and `sourceVersion` (when present) second.
        var rest = metric.metadata.dropFirst()
        if let version = rest.first, version.key.equals("sourceVersion") {
            insert.bind(8, try versions.id(version.value))
            rest = rest.dropFirst()
        } else {
            insert.bindNull(8)
        }
        if rest.isEmpty {
            insert.bindNull(9)
        } else {
            metadata.removeAll()
            MetricJSON.appendMembers(rest, to: &metadata)
            metadata.withBytes { insert.bind(9, bytes: $0) }
        }
        insert.bind(1, try types.id(metric.type))
        insert.bind(2, metric.startDate)
        insert.bind(3, metric.endDate)
        insert.bind(4, try sources.id(metric.sourceApp))
        insert.bind(5, metric.value)
        insert.bind(6, try units.id(metric.unit))
        insert.bind(7, try devices.id(metric.device))
        insert.bind(10, runID)
        try insert.step()
        insert.reset()
        if database.changes > 0 { newCount += 1 } else { duplicateCount += 1 }
        sinceCommit += 1
        if sinceCommit >= commitEvery {
            try commit()
            try begin()
        }
    }

    private func commit() throws {
        try progress.run([.int(Int64(newCount)), .int(Int64(duplicateCount)), .int(runID)])
        try database.execute("COMMIT")
        sinceCommit = 0
    }

    func finish() throws { try commit() }

    /// The input was damaged or the run was stopped: keep every metric written so far.
    func abandon() throws { try commit() }

    // MARK: ConversionObserver: the export facts

    func metric(_ metric: MappedMetric) {}
    func invalid(_ tree: ElementTree, _ reason: InvalidRecordReason) {}
    func element(_ tree: ElementTree) {
        if tree.name(tree.root) == .me {
            me = Dictionary(tree.attributes(of: tree.root).map { ($0.name.string, $0.value.string) }, uniquingKeysWith: { a, _ in a })
        }
    }
}
