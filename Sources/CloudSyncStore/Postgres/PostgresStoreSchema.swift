import CloudSyncModel
import Foundation

/// The store's tables on PostgreSQL, derived from SQLite's: a new SQLite store is made in memory by
/// the store's own migrations (and the kinds' tables), and each of its tables, indexes and views is
/// written again in PostgreSQL's words. The schema is thus defined once, in `StoreSchema` and the
/// kinds, and cannot drift between the engines (docs/architecture.md, "One store, two engines").
///
/// On the way every table gains what a clinic's server needs:
/// - `owner text NOT NULL DEFAULT current_setting('cloudsync.owner')`, first in every key, unique
///   constraint and index (a patient's rows together; a distributed PostgreSQL shards by it), last
///   in those of a table partitioned by owner (`OwnerPartitions`: a partition holds one owner's rows);
/// - row-level security, forced on the table's owner too, with one policy: a row is seen and written
///   only by a connection opened for its owner (`PostgresDatabase(address:owner:)`).
///
/// Types: INTEGER → bigint, REAL → double precision, TEXT → text, BLOB → bytea. A row's own id
/// (`id INTEGER PRIMARY KEY`) becomes an identity column (one numbering for every owner; a patient's
/// first export loaded in bulk takes a block of it, which another patient's row taken in the same
/// instant may share: no conflict, the key is the owner and the id), keyed with its owner like any other key,
/// `(owner, …)`, so `ON CONFLICT` names the owner first on PostgreSQL (`SQLDialect.conflictTarget`). Foreign keys are
/// left out, as SQLite leaves them unchecked (`PRAGMA foreign_keys` is off): each check would cost
/// PostgreSQL a lookup per row. Views read with the caller's rights (`security_invoker`), so that the
/// policies apply through them. The trigger that keeps the counts in step is the one thing written
/// twice, beside SQLite's (`CountedRows.postgresTrigger`), and compared by a test.
package enum PostgresStoreSchema {
    /// What made a database's store tables: the store's schema version and each kind's. A database
    /// made by another cloudsync is refused rather than written into with other tables in mind.
    static func made(by kinds: [any StoredKind.Type]) -> String {
        "store \(StoreSchema.currentVersion); \(OwnerPartitions.layout); \(withoutLeftOut); " + kindVersions(kinds)
    }

    /// What `made_by` says of a store made without `leftOut`'s indexes.
    static let withoutLeftOut = "without metric_undated"

    /// What made a database's tables, in this layout, when PostgreSQL's store still had `leftOut`'s
    /// indexes: they are dropped as it opens (`dropLeftOut`).
    static func madeWithLeftOut(by kinds: [any StoredKind.Type]) -> String {
        "store \(StoreSchema.currentVersion); \(OwnerPartitions.layout); " + kindVersions(kinds)
    }

    /// What made a database's tables before the metric table was partitioned by owner: such a store
    /// is brought to the partitions as it opens (`partitionByOwner`).
    static func madeBeforePartitions(by kinds: [any StoredKind.Type]) -> String {
        "store \(StoreSchema.currentVersion); " + kindVersions(kinds)
    }

    /// What made a database's tables when the partitioned tables' keys began with the owner: such a
    /// store's keys and indexes are made again as it opens (`ownerLastInKeys`).
    static func madeWithOwnerFirst(by kinds: [any StoredKind.Type]) -> String {
        "store \(StoreSchema.currentVersion); \(OwnerPartitions.layoutWithOwnerFirst); " + kindVersions(kinds)
    }

    /// What made a database's tables before the route points were partitioned by owner: such a
    /// store's `route_point` is partitioned as it opens (`partitionByOwner`).
    static func madeBeforeRoutePoints(by kinds: [any StoredKind.Type]) -> String {
        "store \(StoreSchema.currentVersion); \(OwnerPartitions.layoutBeforeRoutePoints); " + kindVersions(kinds)
    }

    /// How a store made by an older cloudsync is brought to this one's layout, by what made it.
    private static func upgrades(kinds: [any StoredKind.Type]) -> [String: (PostgresDatabase) throws -> Void] {
        let routePoints = ["route_point"]
        let layouts: [String: (PostgresDatabase) throws -> Void] = [
            madeBeforePartitions(by: kinds): { try partitionByOwner($0, kinds: kinds) },
            madeWithOwnerFirst(by: kinds): {
                try ownerLastInKeys($0, kinds: kinds)
                try partitionByOwner($0, kinds: kinds, tables: routePoints)
            },
            madeBeforeRoutePoints(by: kinds): { try partitionByOwner($0, kinds: kinds, tables: routePoints) },
            madeWithLeftOut(by: kinds): { _ in },
        ]
        // Every store made before `withoutLeftOut` may hold the indexes: dropped after its layout's steps.
        return layouts.mapValues { layout in { database in
            try layout(database)
            try dropLeftOut(database)
        } }
    }

    private static func kindVersions(_ kinds: [any StoredKind.Type]) -> String {
        kinds.map { "\($0.name) \($0.tableVersions.count)" }.sorted().joined(separator: ", ")
    }

    /// Makes the store's tables on first use, in one transaction that holds a lock of its own (two
    /// servers starting at once make them once), and says what made them in `cloudsync_store`. A
    /// reader never makes them; tables another cloudsync made are refused (`name`: the store, as
    /// messages say it).
    /// `grants`: give `patientRole` its rights again even if the tables were there (a server's start).
    package static func prepare(_ database: PostgresDatabase, kinds: [any StoredKind.Type], access: StagingStore.Access,
                                name: String, grants: Bool = false) throws {
        let wanted = made(by: kinds)
        func found() throws -> String? {
            guard try database.hasTable("cloudsync_store") else { return nil }
            return try database.scalarText("SELECT made_by FROM cloudsync_store")
        }
        let upgrades = upgrades(kinds: kinds)
        if let made = try found(), upgrades[made] != nil {
            try inSchemaTransaction(database) {
                // Another version's, made meanwhile: refused below.
                guard let made = try found(), let upgrade = upgrades[made] else { return }
                try upgrade(database)
                try database.prepare("UPDATE cloudsync_store SET made_by = ?").run([.text(wanted)])
            }
        }
        if let made = try found() {
            guard made == wanted else {
                throw StoreError.notAStore(name, "its tables were made by another version of cloudsync (\(made); this one makes \(wanted))")
            }
            if grants, try isPrivileged(database) { try inSchemaTransaction(database) { try grantPatientRole(database, kinds: kinds) } }
            return
        }
        if access == .read { throw StoreError.missing(name) }
        try inSchemaTransaction(database) {
            guard try found() == nil else { return }
            for statement in try statements(kinds: kinds) { try database.execute(statement) }
            try database.execute("CREATE TABLE cloudsync_store (made_by text NOT NULL)")
            try database.prepare("INSERT INTO cloudsync_store(made_by) VALUES (?)").run([.text(wanted)])
            if try isPrivileged(database) { try grantPatientRole(database, kinds: kinds) }
        }
    }

    /// Runs `body` in a transaction that holds the schema's own lock (not a patient's: the connection
    /// may be for none): two servers starting at once make the tables and the grants one after the other.
    /// `ownersTurn`: the connection's owner's write lock first (`beginWriting`), as their writes take it.
    static func inSchemaTransaction(_ database: PostgresDatabase, ownersTurn: Bool = false, _ body: () throws -> Void) throws {
        if ownersTurn { try database.beginWriting() } else { try database.execute("BEGIN") }
        do {
            try database.execute("SELECT pg_advisory_xact_lock(hashtextextended('cloudsync.store-schema', 0))")
            try body()
            try database.execute("COMMIT")
        } catch {
            database.rollBack()
            throw error
        }
    }

    /// The role a patient's connection acts as when the server's own role is one row-level security
    /// does not hold (a superuser, or a role with BYPASSRLS: PostgreSQL lets them read every row
    /// whatever the policy says). Measured: `serve --db` as the cluster's superuser stored a second
    /// patient's push as "already there" (the first patient's rows), and each lookup read every
    /// patient's index entries. It may log in as nobody; it can only read and write the store's rows.
    static let patientRole = "cloudsync_patient"

    /// Whether the connection's role is one row-level security does not hold.
    static func isPrivileged(_ database: PostgresDatabase) throws -> Bool {
        try database.scalarInt("SELECT CASE WHEN rolsuper OR rolbypassrls THEN 1 ELSE 0 END FROM pg_roles WHERE rolname = current_user") == 1
    }

    /// Makes `patientRole` if there is none, and gives it the rights the store's statements need: the
    /// rows of every store table and view, the ids' sequences. In the caller's transaction.
    static func grantPatientRole(_ database: PostgresDatabase, kinds: [any StoredKind.Type]) throws {
        try database.execute("""
            DO $$ BEGIN
                IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '\(patientRole)') THEN CREATE ROLE \(patientRole) NOLOGIN; END IF;
            END $$
            """)
        let reference = try reference(kinds: kinds)
        for table in try names(of: "table", in: reference) {
            try database.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON \(quoted(table)) TO \(patientRole)")
        }
        for view in try names(of: "view", in: reference) { try database.execute("GRANT SELECT ON \(quoted(view)) TO \(patientRole)") }
        try database.execute("GRANT SELECT ON cloudsync_store TO \(patientRole)")
        try database.execute("GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO \(patientRole)")
    }

    /// A patient's connection of a privileged role acts as `patientRole` from now on, so that
    /// row-level security holds it; another role is held already.
    /// The role is then known for the session (`PostgresDatabase.actingRole`) when no transaction is
    /// open (one's rollback would give it back); another role's is left to be asked (a login role
    /// may have a default `role` of its own).
    static func actAsPatient(_ database: PostgresDatabase) throws {
        guard try isPrivileged(database) else { return }
        try database.execute("SET ROLE \(patientRole)")
        if !database.isInTransaction { database.actingRole = .other(patientRole) }
    }

    /// A new SQLite store's schema, in memory: what PostgreSQL's is derived from.
    static func reference(kinds: [any StoredKind.Type]) throws -> SQLiteDatabase {
        let reference = try SQLiteDatabase(path: ":memory:")
        for migration in StoreSchema.migrations { try reference.execute(migration) }
        try KindTables.upgrade(kinds, in: reference)
        return reference
    }

    /// The store's tables (each carrying an owner).
    package static func tableNames(kinds: [any StoredKind.Type]) throws -> [String] {
        try names(of: "table", in: reference(kinds: kinds))
    }

    /// The statements, in order, that make the tables of a store configured with `kinds`
    /// (`partitioned`: the tables partitioned by owner, fewer as a store made before some were;
    /// `ownerLast` false: as one whose partitioned tables' keys began with the owner; both for the
    /// tests of their upgrades).
    package static func statements(kinds: [any StoredKind.Type], partitioned: [String] = OwnerPartitions.tables,
                                   ownerLast: Bool = true) throws -> [String] {
        let reference = try reference(kinds: kinds)
        var statements: [String] = []
        let tables = try names(of: "table", in: reference)
        for table in tables { statements += try Self.table(table, in: reference, partitioned: partitioned, ownerLast: ownerLast) }
        return try statements + viewsAndTrigger(in: reference)
    }

    /// The store's views, and the trigger that keeps the counts in step (made after the tables).
    static func viewsAndTrigger(in reference: SQLiteDatabase) throws -> [String] {
        var statements: [String] = []
        for (name, sql) in try objects(of: "view", in: reference) {
            guard let select = sql.range(of: " AS ", options: .caseInsensitive) else { continue }
            statements.append("CREATE VIEW \(name) WITH (security_invoker = true) AS " + sql[select.upperBound...])
        }
        return statements + CountedRows.postgresTrigger
    }

    /// A table, its unique constraints and indexes, and its row-level security (`keysOnly`: its key,
    /// unique constraints and indexes alone, added to the table as it is).
    ///
    /// The owner is first in every key and index, but last in a partitioned table's: its partitions
    /// hold one owner's rows each, and a key that begins with a text equal in every row makes every
    /// comparison of the sort that builds it slower. A new patient's export loaded in bulk builds
    /// them as its table is attached: over the 1 GB export's 2.4 million metrics, the identity index
    /// took 4.2–4.4 s with the owner first, 2.5–2.9 s with it last (PostgreSQL sorts by an integer
    /// first column with code of its own), the key 1.2 s and 1.0 s.
    static func table(_ table: String, in reference: SQLiteDatabase, partitioned: [String] = OwnerPartitions.tables, ownerLast: Bool = true,
                      keysOnly: Bool = false) throws -> [String] {
        let byOwner = partitioned.contains(table)
        let keyed = { (columns: [String]) in
            (byOwner && ownerLast ? columns + ["owner"] : ["owner"] + columns).joined(separator: ", ")
        }
        struct Column { var name: String, type: String, notNull: Bool, defaultValue: String?, primaryKey: Int }
        var columns: [Column] = []
        let info = try reference.prepare("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?) ORDER BY cid")
        try info.bind([.text(table)])
        while try info.step() {
            columns.append(Column(name: info.text(0) ?? "", type: (info.text(1) ?? "").uppercased(), notNull: info.int64(2) != 0,
                                  defaultValue: info.text(3), primaryKey: Int(info.int64(4))))
        }
        let keyColumns = columns.filter { $0.primaryKey > 0 }.sorted { $0.primaryKey < $1.primaryKey }.map(\.name)
        // A row's own id (`id INTEGER PRIMARY KEY`) is numbered by the database: an identity, unique
        // across owners. Another integer key (`type_id`, `run_id`: another table's id) is given by
        // the store, and keyed with the owner like every other key.
        let rowid = keyColumns == ["id"] && columns.first { $0.name == "id" }?.type == "INTEGER"
        var lines = ["owner text NOT NULL DEFAULT current_setting('cloudsync.owner')"]
        for column in columns {
            // Text compares by its bytes, as SQLite's does: the same order on both engines whatever
            // the database's locale.
            var line = "\(quoted(column.name)) \(type(column.type))" + (type(column.type) == "text" ? " COLLATE \"C\"" : "")
            if rowid && column.name == keyColumns[0] {
                line += " GENERATED BY DEFAULT AS IDENTITY"
            } else {
                if column.notNull { line += " NOT NULL" }
                if let value = column.defaultValue { line += " DEFAULT \(value)" }
            }
            lines.append(line)
        }
        // A row's id is the key with its owner: a patient's rows by id (`max(id)`, the rows after an
        // id) without reading every patient's (a new patient's `max(id)` read them all: a clinic's
        // benchmark spent 975 s of PostgreSQL's CPU so). The identity numbers ids across owners.
        var keys: [String] = []
        if !keyColumns.isEmpty { keys.append("PRIMARY KEY (\(keyed(keyColumns.map(quoted))))") }
        var statements: [String] = []
        var indexes: [String] = []
        let list = try reference.prepare("SELECT name, \"unique\", origin FROM pragma_index_list(?) ORDER BY name")
        try list.bind([.text(table)])
        var found: [(name: String, unique: Bool, origin: String)] = []
        while try list.step() { found.append((list.text(0) ?? "", list.int64(1) != 0, list.text(2) ?? "")) }
        for index in found where index.origin != "pk" && !leftOut.contains(index.name) {
            let indexed = try indexColumns(index.name, in: reference)
            if index.origin == "u" {
                keys.append("UNIQUE (\(keyed(indexed)))")
            } else {
                let sql = try reference.scalarText("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?", [.text(index.name)]) ?? ""
                // A partial index keeps its condition, which both engines read alike.
                let partial = sql.range(of: " WHERE ", options: .caseInsensitive).map { " WHERE " + sql[$0.upperBound...] } ?? ""
                indexes.append("CREATE \(index.unique ? "UNIQUE " : "")INDEX \(index.name) ON \(quoted(table))(\(keyed(indexed)))" + partial)
            }
        }
        if keysOnly { return keys.map { "ALTER TABLE \(quoted(table)) ADD \($0)" } + indexes }
        lines += keys
        statements.append("CREATE TABLE \(quoted(table)) (\n    \(lines.joined(separator: ",\n    "))\n)" + (byOwner ? " PARTITION BY LIST (owner)" : ""))
        statements += indexes
        return statements + ownersOnly(table)
    }

    /// SQLite's indexes that PostgreSQL's store does without.
    ///
    /// `metric_undated` (the rows without a creation date, by type) tells an import which types have
    /// such rows, once, when its first dated sample asks (`UndatedTypes`). But every received row is
    /// undated (a push, a CloudCare batch): on a clinic's server it held every row, and inserting into
    /// it cost 8,100 of the 43,400 instructions PostgreSQL spends on a received metric's insert
    /// (callgrind of a single-user backend: 20,000 of the 100 MB store's rows through a patient's
    /// view, 35,300 without it; the key 7,800, the identity 12,200). Without it, the question is a
    /// scan of the patient's partition, once per export imported into a store that holds rows.
    /// A store made before loses it as it opens (`dropLeftOut`).
    static let leftOut: Set<String> = ["metric_undated"]

    /// Drops `leftOut`'s indexes (of a partitioned table: its partitions' too), where a store made
    /// before has them: each received row paid for it (see `leftOut`). Named in the store's schema,
    /// not found through the search path (another schema's store may have one of the same name).
    static func dropLeftOut(_ database: PostgresDatabase) throws {
        for index in leftOut.sorted() { try database.execute("DROP INDEX IF EXISTS \(try OwnerViews.shared(index, in: database))") }
    }

    /// Row-level security on `table`: forced on the table's owner too, one policy.
    static func ownersOnly(_ table: String) -> [String] {
        [
            "ALTER TABLE \(quoted(table)) ENABLE ROW LEVEL SECURITY",
            "ALTER TABLE \(quoted(table)) FORCE ROW LEVEL SECURITY",
            """
            CREATE POLICY \(table)_owner ON \(quoted(table)) USING (owner = current_setting('cloudsync.owner'))
                WITH CHECK (owner = current_setting('cloudsync.owner'))
            """,
        ]
    }

    private static func indexColumns(_ index: String, in reference: SQLiteDatabase) throws -> [String] {
        try reference.texts("SELECT name FROM pragma_index_info(?) ORDER BY seqno", [.text(index)]).map(quoted)
    }

    static func names(of type: String, in reference: SQLiteDatabase) throws -> [String] {
        try objects(of: type, in: reference).map(\.name)
    }

    private static func objects(of type: String, in reference: SQLiteDatabase) throws -> [(name: String, sql: String)] {
        let list = try reference.prepare("SELECT name, sql FROM sqlite_schema WHERE type = ? AND name NOT LIKE 'sqlite_%' ORDER BY name")
        try list.bind([.text(type)])
        var found: [(String, String)] = []
        while try list.step() { found.append((list.text(0) ?? "", list.text(1) ?? "")) }
        return found
    }

    private static func type(_ sqlite: String) -> String {
        switch sqlite {
        case "INTEGER": "bigint"
        case "REAL": "double precision"
        case "BLOB": "bytea"
        default: "text"
        }
    }

    /// A name as PostgreSQL reads it whatever it is (`count`, `key`, `time` are words of SQL).
    static func quoted(_ name: String) -> String { "\"" + name + "\"" }
}
