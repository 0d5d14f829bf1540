import CloudSyncStore
import CloudSyncTesting
import Foundation

extension ServeProcess {
    /// One value from the receiver's SQLite file.
    func count(_ sql: String) throws -> Int {
        Int(try SQLiteDatabase(path: database, mode: .readOnly).scalarInt(sql) ?? 0)
    }

    /// `user`'s store beside the receiver's SQLite file (`serve --db FILE` keeps one per patient).
    func storePath(of user: String = "default") -> String {
        URL(fileURLWithPath: database).deletingPathExtension().path + "-patients/" + user + ".sqlite"
    }

    /// One value from `user`'s store; 0 while they have none (or its first write is making it).
    func storeCount(_ sql: String = "SELECT count(*) FROM metric", user: String = "default") throws -> Int {
        let path = storePath(of: user)
        guard FileManager.default.fileExists(atPath: path) else { return 0 }
        let database = try SQLiteDatabase(path: path, mode: .readOnly)
        guard try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'metric'") == 1 else { return 0 }
        return Int(try database.scalarInt(sql) ?? 0)
    }
}
