import CSQLite3
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A new store's file, made whole beside its path (`.NAME.new-PID`) and linked into place, so that
/// a process killed while making it leaves no empty or half-made file at the path: a reader refuses
/// an empty file (`StoreError.empty`), and the kill test found one there when an import was killed
/// between the file's creation and its schema's commit. What a killed maker leaves beside the path
/// is removed by the next store made there.
enum NewStoreFile {
    /// Makes the store at `path`, which is not there. On a file system without hard links the path
    /// is left to be made in place, as before.
    static func make(at path: String, kinds: [any StoredKind.Type]) throws {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return }
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let prefix = "." + url.lastPathComponent + ".new-"
        removeAbandoned(in: directory, prefix: prefix)
        let beside = directory + "/" + prefix + String(getpid())
        removeFiles(of: beside)
        defer { removeFiles(of: beside) }
        try makeSchema(at: beside, kinds: kinds)
        try syncToDisk(beside)
        // A link, not a rename: a store another process made at the path meanwhile is kept.
        _ = link(beside, path)
    }

    /// The schema, written straight into the file (no journal: a file no one else knows of is
    /// thrown away when anything fails), then the file marked for the write-ahead log the store
    /// works with. Written through the log, the schema came to twice its size on disk until its
    /// checkpoint, which a full disk made fail unseen at the close: the file alone was half a store.
    /// Not synced on each of its transactions (the kinds' tables are one each: 14 `fdatasync`s,
    /// 15–40 ms before the 100 MB import's threads started), but once, whole, before its link.
    private static func makeSchema(at path: String, kinds: [any StoredKind.Type]) throws {
        let database = try SQLiteDatabase(path: path, mode: .readWrite)
        try database.execute("PRAGMA page_size = 16384")
        try database.execute("PRAGMA journal_mode = OFF")
        try database.execute("PRAGMA synchronous = OFF")
        try database.transaction { try StoreSchema.migrate(database, from: 0) }
        try KindTables.upgrade(kinds, in: database)
        try database.turnOnWAL()
        guard try database.scalarText("PRAGMA journal_mode") == "wal" else {
            throw SQLiteError(code: SQLITE_ERROR, extendedCode: SQLITE_ERROR, message: "the new store could not be put in WAL mode", sql: nil, path: path)
        }
    }

    /// The made file on the disk before its name is: a crash of the machine after the link must not
    /// leave a store path whose pages were never written. (The directory's entry is synced by
    /// SQLite when the store's log is made beside it.)
    private static func syncToDisk(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw syncError(path) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw syncError(path) }
    }

    private static func syncError(_ path: String) -> SQLiteError {
        SQLiteError(code: SQLITE_IOERR, extendedCode: SQLITE_IOERR | (4 << 8),
                    message: "the new store could not be written to the disk: " + String(cString: strerror(errno)), sql: nil, path: path)
    }

    /// What makers that are no longer running left in `directory` (their process id ends the name).
    private static func removeAbandoned(in directory: String, prefix: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(prefix) {
            let digits = name.dropFirst(prefix.count).prefix(while: \.isNumber)
            guard let pid = pid_t(digits), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            unlink(directory + "/" + name)
        }
    }

    private static func removeFiles(of path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }
}
