import CloudSyncStore
import CloudSyncTesting

extension ServeProcess {
    /// One value from the receiver's SQLite file.
    func count(_ sql: String) throws -> Int {
        Int(try SQLiteDatabase(path: database, mode: .readOnly).scalarInt(sql) ?? 0)
    }
}
