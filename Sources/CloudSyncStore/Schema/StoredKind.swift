public import CloudSyncModel

/// How a kind of record is kept in the store: its tables, how a record goes in (once: importing the
/// same export again adds nothing), how records come back out, and how many there are. The kinds
/// themselves are in `CloudSyncKinds`; the store is configured with them (`StagingStore.Configuration`).
public protocol StoredKind: RecordKind {
    /// The kind's tables: each entry moves them one version up; `kind_schema` keeps the version.
    /// (The first version of the kinds older than this protocol is what schema 3–5 made: written
    /// `IF NOT EXISTS`.)
    static var tableVersions: [String] { get }
    /// Inserts `record` unless the store has it (the kind's key); true when it was new.
    static func insert(_ record: Record, into rows: KindRows) throws -> Bool
    /// The stored records whose date `filter` keeps, in import order.
    static func forEach(in rows: KindRows, filter: MetricFilter, _ body: (Record) throws -> Void) throws
    /// How many are stored (and their parts).
    static func count(in rows: KindRows) throws -> RecordCount
    /// A kind kept as the JSON line `convert` writes: its table, the column `--since`/`--until` apply
    /// to, and whether a row without that date is given. Its JSON Lines are then written as stored.
    static var storedLines: StoredLines? { get }
    /// The counts of the record stored from the archive file `path` (a GPX file's route), or nil
    /// when none is (or the kind does not key its records by file): a file whose record is stored
    /// is not read again.
    static func stored(file path: String, in rows: KindRows) throws -> RecordCount?
    /// Gives a record inserted before its link (`LinkingRecordSink`) the link found since.
    static func relink(_ record: Record, into rows: KindRows) throws
}

extension StoredKind {
    public static var storedLines: StoredLines? { nil }
    public static func stored(file path: String, in rows: KindRows) throws -> RecordCount? { nil }
    public static func relink(_ record: Record, into rows: KindRows) throws {}
}

/// Where a kind keeps its records as JSON lines (a `line` column).
public struct StoredLines: Sendable {
    public var table: String
    public var dateColumn: String
    public var keepsUndated: Bool
    /// The column of each record's parts (points, frequencies), summed in its count; nil: none.
    public var partsColumn: String?

    public init(table: String, dateColumn: String, keepsUndated: Bool = false, partsColumn: String? = nil) {
        self.table = table
        self.dateColumn = dateColumn
        self.keepsUndated = keepsUndated
        self.partsColumn = partsColumn
    }
}

/// A kind's access to the store: the connection, statements prepared once per run, and the import
/// run a row belongs to.
public final class KindRows {
    package let database: any StoreDatabase
    /// The import run inserting rows (nil when reading).
    public let runID: Int64?
    private var statements: [String: any StoreStatement] = [:]
    private var batches: [String: any RowBatch] = [:]
    /// The import's bulk load, when it is one: the tables it makes new partitions of take their rows straight.
    private let bulk: BulkLoad?

    init(database: any StoreDatabase, runID: Int64? = nil, bulk: BulkLoad? = nil) {
        self.database = database
        self.runID = runID
        self.bulk = bulk
    }

    /// `sql` prepared once for the life of these rows, reset for each use.
    package func statement(_ sql: String) throws -> any StoreStatement {
        if let prepared = statements[sql] {
            prepared.reset()
            return prepared
        }
        let prepared = try database.prepare(sql)
        statements[sql] = prepared
        return prepared
    }

    /// Rows for `sql` (an `INSERT … SELECT … FROM {rows}` of `columns`) written a chunk at a time,
    /// kept for the life of these rows: for a kind of many small rows.
    package func rowBatch(_ columns: [RowBatchColumn], _ sql: String) throws -> any RowBatch {
        if let batch = batches[sql] { return batch }
        let batch = try database.rowBatch(columns, sql: sql)
        batches[sql] = batch
        return batch
    }

    /// Rows of `table` (its columns `names`, declared `columns`) added as they are, with no conflict
    /// to look for, written a chunk at a time and kept for the life of these rows. A bulk load's new
    /// partition of the table takes them straight (`BulkLoad.addedRows`).
    package func addedRows(_ columns: [RowBatchColumn], into table: String, names: [String]) throws -> any RowBatch {
        let key = "added " + table
        if let batch = batches[key] { return batch }
        let batch = try bulk?.addedRows(columns, into: table, names: names) ?? database.rowBatch(columns, sql: """
            INSERT INTO \(table)(\(names.joined(separator: ", "))) SELECT \(names.indices.map { "c\($0)" }.joined(separator: ", ")) FROM {rows}
            """)
        batches[key] = batch
        return batch
    }

    /// The stored JSON lines whose date `filter` keeps, in import order, each as the row's bytes.
    public func forEachLine(_ stored: StoredLines, filter: MetricFilter, _ body: (ByteText) throws -> Void) throws {
        let select = try statement("SELECT \(stored.dateColumn), line FROM \(stored.table) ORDER BY id")
        while try select.step() {
            if select.isNull(0) ? !stored.keepsUndated : !filter.acceptsDate(select.int64(0)) { continue }
            try body(select.bytes(1))
        }
    }

    /// The records of a kind kept as JSON lines whose date `filter` keeps, in import order, each read
    /// back by `decode` (a line it cannot read is left out).
    public func forEachRecord<Record>(_ stored: StoredLines, filter: MetricFilter, decode: (String) -> Record?,
                                      _ body: (Record) throws -> Void) throws {
        let select = try statement("SELECT \(stored.dateColumn), line FROM \(stored.table) ORDER BY id")
        while try select.step() {
            if select.isNull(0) ? !stored.keepsUndated : !filter.acceptsDate(select.int64(0)) { continue }
            guard let record = decode(select.text(1) ?? "") else { continue }
            try body(record)
        }
    }

    /// How many records a kind kept as JSON lines holds, and their parts.
    public func count(_ stored: StoredLines) throws -> RecordCount {
        let count = try statement("SELECT count(*), \(stored.partsColumn.map { "coalesce(sum(\($0)), 0)" } ?? "0") FROM \(stored.table)")
        _ = try count.step()
        return RecordCount(records: Int(count.int64(0)), parts: Int(count.int64(1)))
    }

    /// Keeps a record's JSON line (`line` ends with its newline, which is not kept) under `key`,
    /// unless the key is there (importing the same input again adds nothing): into a table of
    /// `key`, the date column, the parts column if any, `line` and `import_id`. True when it was new.
    public func insertLine(_ line: borrowing ByteBuffer, key: String, date: Int64, parts: Int = 0, into stored: StoredLines) throws -> Bool {
        let columns = ["key", stored.dateColumn] + (stored.partsColumn.map { [$0] } ?? []) + ["line", "import_id"]
        let insert = try statement("""
            INSERT INTO \(stored.table)(\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))
            ON CONFLICT DO NOTHING
            """)
        var index: Int32 = 1
        func next() -> Int32 { defer { index += 1 }; return index }
        try insert.bind(next(), key)
        try insert.bind(next(), date)
        if stored.partsColumn != nil { try insert.bind(next(), Int64(parts)) }
        try line.withBytes { try insert.bind(next(), bytes: $0.slice(0..<($0.count - 1))) }
        try insert.bind(next(), runID)
        try insert.step()
        return database.changes > 0
    }

    /// Whether a table exists (a kind's tables are made by the first import that writes it).
    public func hasTable(_ name: String) throws -> Bool {
        try database.hasTable(name)
    }
}

/// The tables of the configured kinds, at their current versions (`kind_schema`).
enum KindTables {
    /// The kinds whose tables are older than this cloudsync's.
    static func outdated(_ kinds: [any StoredKind.Type], in database: any StoreDatabase) throws -> [any StoredKind.Type] {
        try kinds.filter { try version(of: $0.name, in: database) < $0.tableVersions.count }
    }

    /// Brings every kind's tables to its current version, in a transaction that records each step.
    /// The version is read again inside it, which holds the write lock: another process may have
    /// brought the kind forward meanwhile. Read before it only, two processes making a store at once
    /// (two `serve`s taking a new patient's first push) both ran ECG's `ALTER TABLE … ADD COLUMN`,
    /// and the second failed on "duplicate column name" (4 of 360 imports, six at a time into a new store).
    static func upgrade(_ kinds: [any StoredKind.Type], in database: any StoreDatabase) throws {
        for kind in kinds where try version(of: kind.name, in: database) < kind.tableVersions.count {
            try database.transaction {
                // Another process may have brought it to the end meanwhile: `a..<b` traps when a > b.
                let current = try version(of: kind.name, in: database)
                guard current < kind.tableVersions.count else { return }
                for step in current..<kind.tableVersions.count {
                    try database.execute(kind.tableVersions[step])
                    try database.prepare("""
                        INSERT INTO kind_schema(kind, version) VALUES (?, ?)
                        ON CONFLICT(\(database.dialect.conflictTarget("kind"))) DO UPDATE SET version = excluded.version
                        """)
                        .run([.text(kind.name), .int(Int64(step + 1))])
                }
            }
        }
    }

    private static func version(of kind: String, in database: any StoreDatabase) throws -> Int {
        Int(try database.scalarInt("SELECT version FROM kind_schema WHERE kind = ?", [.text(kind)]) ?? 0)
    }
}

/// A blob of little-endian 64-bit words (ECG samples, beat pairs), as kinds store series.
public enum StoredWords {
    /// `count` words, the `i`th given by `word(i)`, little-endian, handed to `body` as bytes.
    /// Written straight into one buffer: `map(\.littleEndian)` of a mapped array went through a
    /// key path per word, and a beat series built a two-word array per beat.
    public static func encoded<R>(count: Int, word: (Int) -> UInt64, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(of: UInt64.self, capacity: Swift.max(count, 1)) { buffer in
            for i in 0..<count { buffer[i] = word(i).littleEndian }
            return try body(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count * 8))
        }
    }

    public static func decoded(_ bytes: UnsafeRawBufferPointer) -> [UInt64] {
        (0..<bytes.count / 8).map { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self)) }
    }
}
