import CloudSyncModel

/// Ids of the small name tables (types, sources, units, devices), cached in memory. Remembers the
/// last name by its bytes: export.xml groups records by type and source, so most lookups are one
/// `memcmp` and no `String`. On either engine: a new name's id comes back from its insert
/// (`RETURNING`), as both SQLite and PostgreSQL give it.
final class NameTable {
    private let select: any StoreStatement
    private let insert: any StoreStatement
    private var ids: [String: Int64] = [:]
    private var lastBytes: [UInt8] = []
    private var lastID: Int64 = -1

    init(_ database: some StoreDatabase, table: String) throws {
        select = try database.prepare("SELECT id FROM \(table) WHERE name = ?")
        insert = try database.prepare("INSERT INTO \(table)(name) VALUES (?) RETURNING id")
    }

    func id(_ name: ByteText) throws -> Int64 {
        if lastID >= 0, lastBytes.withUnsafeBufferPointer({ $0.equals(name) }) { return lastID }
        let key = name.string
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
        lastBytes = Array(name)
        lastID = id
        return id
    }
}
