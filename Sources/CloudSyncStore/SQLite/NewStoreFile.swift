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
///
/// A new store's first import may fill the file beside before it is linked (`NewStoreLoad`): the
/// same three steps, with the import between the schema and the link.
enum NewStoreFile {
    /// Makes the store at `path`, which is not there. On a file system without hard links the path
    /// is left to be made in place, as before.
    static func make(at path: String, kinds: [any StoredKind.Type]) throws {
        guard let beside = try makeBeside(path, kinds: kinds) else { return }
        defer { removeFiles(of: beside) }
        // Another process made a store at the path meanwhile: it is the store.
        _ = try linkIntoPlace(beside, at: path)
    }

    /// The file beside `path` with the store's schema, not yet in the write-ahead log's mode (a
    /// file no one else knows of needs none); nil when `path` is not a file's or the file system
    /// makes no hard links (the store is then made in place).
    static func makeBeside(_ path: String, kinds: [any StoredKind.Type]) throws -> String? {
        guard isFilePath(path) else { return nil }
        removeAbandoned(beside: path)
        let (directory, prefix) = besidePrefix(path)
        let beside = directory + "/" + prefix + String(getpid())
        removeFiles(of: beside)
        do {
            try makeSchema(at: beside, kinds: kinds)
        } catch {
            removeFiles(of: beside)
            throw error
        }
        let probe = beside + "-link"
        guard link(beside, probe) == 0 else {
            removeFiles(of: beside)
            return nil
        }
        unlink(probe)
        return beside
    }

    /// Marks `beside` for the write-ahead log the store works with, puts it on the disk and links
    /// it at `path`: false when a store was made there meanwhile (by another process; it is kept).
    /// Linked, its name beside goes at once, before the directory is synced (one sync puts both on
    /// the disk): removed after that sync, a kill during it (milliseconds on a busy disk: the kill
    /// test's last point, under a loaded fresh clone) left a second name of the store beside it.
    /// Not linked, `beside` is left for the caller to remove. No connection may have it open for writing.
    static func linkIntoPlace(_ beside: String, at path: String) throws -> Bool {
        try markForTheLog(beside)
        try syncToDisk(beside)
        // A link, not a rename: a store another process made at the path meanwhile is kept.
        guard link(beside, path) == 0 else {
            if errno == EEXIST { return false }
            throw ioError(beside, "the new store could not be linked at \(path)")
        }
        unlink(beside)
        // The name on the disk too: an import that said it made the store has it after a power cut.
        syncDirectory(of: path)
        return true
    }

    /// The file beside a path and what SQLite made beside it.
    static func removeFiles(of beside: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(beside + suffix) }
    }

    /// The schema, written straight into the file (no journal: a file no one else knows of is
    /// thrown away when anything fails). Written through the log, the schema came to twice its size
    /// on disk until its checkpoint, which a full disk made fail unseen at the close: the file alone
    /// was half a store. Not synced on each of its transactions (the kinds' tables are one each: 14
    /// `fdatasync`s, 15–40 ms before the 100 MB import's threads started), but once, whole, before
    /// its link.
    private static func makeSchema(at path: String, kinds: [any StoredKind.Type]) throws {
        let database = try SQLiteDatabase(path: path, mode: .readWrite)
        try database.execute("PRAGMA page_size = 16384")
        try database.execute("PRAGMA journal_mode = OFF")
        try database.execute("PRAGMA synchronous = OFF")
        try database.transaction { try StoreSchema.migrate(database, from: 0) }
        try KindTables.upgrade(kinds, in: database)
    }

    /// The write-ahead log's mode, which the file keeps, set by a connection of its own once every
    /// other is closed; checked, since SQLite answers the mode it is in when it cannot change it.
    private static func markForTheLog(_ path: String) throws {
        let database = try SQLiteDatabase(path: path, mode: .readWrite)
        try database.execute("PRAGMA synchronous = OFF")
        try database.turnOnWAL()
        guard try database.scalarText("PRAGMA journal_mode") == "wal" else {
            throw SQLiteError(code: SQLITE_ERROR, extendedCode: SQLITE_ERROR, message: "the new store could not be put in WAL mode", sql: nil, path: path)
        }
    }

    /// The made file on the disk before its name is: a crash of the machine after the link must not
    /// leave a store path whose pages were never written.
    private static func syncToDisk(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ioError(path, "the new store could not be written to the disk") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw ioError(path, "the new store could not be written to the disk") }
    }

    private static func syncDirectory(of path: String) {
        let descriptor = open(URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    private static func ioError(_ path: String, _ what: String) -> SQLiteError {
        let code = errno == ENOSPC ? SQLITE_FULL : SQLITE_IOERR
        return SQLiteError(code: code, extendedCode: code, message: what + ": " + String(cString: strerror(errno)), sql: nil, path: path)
    }

    /// Whether `path` names a file (not SQLite's memory database or a URI), which has names beside it.
    private static func isFilePath(_ path: String) -> Bool {
        !path.isEmpty && path != ":memory:" && !path.hasPrefix("file:")
    }

    /// The directory of `path` and how the names beside it begin (a maker's process id ends them).
    private static func besidePrefix(_ path: String) -> (directory: String, prefix: String) {
        let url = URL(fileURLWithPath: path)
        return (url.deletingLastPathComponent().path, "." + url.lastPathComponent + ".new-")
    }

    /// What makers of a store at `path` that are no longer running left beside it (their process
    /// id ends the name): a half-made file, or, when the maker was killed after its link, the log
    /// and shared memory a reader of the file beside made for it. Called by every import of an export
    /// file (`makeBeside`, or `NewStoreLoad.begin` when a store is there), not only one that makes the store: the store a killed maker
    /// linked is there, so the next import does not make one (the kill test's last point found
    /// `-wal` and `-shm` left so, in CI).
    static func removeAbandoned(beside path: String) {
        guard isFilePath(path) else { return }
        let (directory, prefix) = besidePrefix(path)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(prefix) {
            let digits = name.dropFirst(prefix.count).prefix(while: \.isNumber)
            guard let pid = pid_t(digits), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            unlink(directory + "/" + name)
        }
    }
}
