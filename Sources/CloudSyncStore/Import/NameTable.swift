import CloudSyncModel

/// Ids of the small name tables (types, sources, units, devices), cached in memory. Remembers the
/// last names by their bytes: export.xml groups records by type and source, so most lookups are one
/// `memcmp` and no `String`. On either engine: a new name's id comes back from its insert
/// (`RETURNING`), as both SQLite and PostgreSQL give it.
///
/// The first name not yet cached reads the whole table (tens to hundreds of rows): a received batch
/// is an import of its own, and looking each of its names up was a round trip each on PostgreSQL
/// (8,500 of a 166,056-metric upload's 25,000 statements, 51 a batch of 1,000). A name still not
/// found is looked up alone before it is inserted: another writer may have added it between two
/// commits of a long import. Tables made together (`NameTable.group`) are read together, in one
/// statement.
final class NameTable {
    let table: String
    private let database: any StoreDatabase
    private let select: any StoreStatement
    private let insert: any StoreStatement
    /// By the name's bytes, as the table's unique index tells names apart: as `String`s, NFC "José"
    /// and NFD "José" are one key, and both may be stored.
    // Unchecked: a table belongs to one writer, on one thread at a time, and the dynamic checks of
    // these two and `recent` were 90 M of the mapping thread's 3,363 M instructions on the 100 MB
    // import (callgrind: 1.19 million lookups, each a `swift_beginAccess` per access).
    @exclusivity(unchecked) private var ids: [NameKey: Int64] = [:]
    @exclusivity(unchecked) private var tableRead = false
    /// The names last looked up, the latest first. A received batch (CloudCare, in its uploader's
    /// order) interleaves a few types and sources: in the 100 MB store's upload, 142,440 of 166,056
    /// metrics changed a name from the metric before, and with the last name alone remembered, the
    /// dictionary's hashing was 2.4% of `serve`'s CPU (perf).
    @exclusivity(unchecked) private var recent: [(bytes: [UInt8], id: Int64)] = []
    private static let recentKept = 8
    /// The tables read with this one (this one among them).
    private weak var group: Group?

    init(_ database: some StoreDatabase, table: String) throws {
        self.table = table
        self.database = database
        select = try database.prepare("SELECT id FROM \(table) WHERE name = ?")
        insert = try database.prepare("INSERT INTO \(table)(name) VALUES (?) RETURNING id")
    }

    /// Tables whose first read reads them all, in one statement. Why: a received batch is an import
    /// of its own, and its six name tables were six round trips of about 33 a batch on PostgreSQL.
    final class Group {
        private let database: any StoreDatabase
        private(set) var tables: [NameTable] = []

        init(_ database: some StoreDatabase, tables names: [String]) throws {
            self.database = database
            tables = try names.map { try NameTable(database, table: $0) }
            for table in tables { table.group = self }
        }

        /// The statement that reads the tables at `indices` of a group of `tables`.
        static func reading(_ indices: some Sequence<Int>, of tables: [String]) -> String {
            indices.map { "SELECT \($0), id, name FROM \(tables[$0])" }.joined(separator: " UNION ALL ")
        }

        /// Reads every table of the group not read yet.
        fileprivate func read() throws {
            let unread = tables.indices.filter { !tables[$0].tableRead }
            let rows = try database.prepare(Self.reading(unread, of: tables.map(\.table)))
            while try rows.step() { tables[Int(rows.int64(0))].ids[NameKey(bytes: Array(rows.bytes(2)))] = rows.int64(1) }
            for index in unread { tables[index].tableRead = true }
        }
    }

    func id(_ name: ByteText) throws -> Int64 {
        for index in recent.indices where recent[index].bytes.withUnsafeBufferPointer({ $0.equals(name) }) {
            if index > 0 { recent.swapAt(0, index) }
            return recent[0].id
        }
        let key = NameKey(bytes: Array(name))
        if ids[key] == nil, !tableRead {
            if let group {
                try group.read()
            } else {
                let rows = try database.prepare("SELECT id, name FROM \(table)")
                while try rows.step() { ids[NameKey(bytes: Array(rows.bytes(1)))] = rows.int64(0) }
                tableRead = true
            }
        }
        let id: Int64
        if let known = ids[key] {
            id = known
        } else {
            try select.bind(1, bytes: name)
            if try select.step() {
                id = select.int64(0)
            } else {
                try insert.bind(1, bytes: name)
                try insert.step()
                id = insert.int64(0)
                insert.reset()
            }
            select.reset()
            ids[key] = id
        }
        recent.insert((key.bytes, id), at: 0)
        if recent.count > Self.recentKept { recent.removeLast() }
        return id
    }
}

/// A name's bytes as a dictionary key, hashed in one call: `[UInt8]`'s own hashing feeds the hasher
/// a byte at a time.
private struct NameKey: Hashable {
    let bytes: [UInt8]

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
