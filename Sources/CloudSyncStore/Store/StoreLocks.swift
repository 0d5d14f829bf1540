#if canImport(Glibc)
import Glibc
#endif

/// What SQLite's own locking does not give the processes that share a store, as byte-range locks
/// on one file, `<store>.lock` (open file description locks: the kernel drops them when the
/// process dies, even by `kill -9`, so a crash never leaves the store locked):
///
/// - byte 0, **alive**: every writing process holds it shared for its life. A process that finds no
///   other (it can take it exclusive) knows that an import or upload still marked running was
///   stopped by a crash, not running in another process.
/// - byte 1, **waiting room**: a writer holds it shared while it waits for SQLite's write lock; an
///   import lets the waiting in between two chunks (it takes it exclusive, which it gets once every
///   waiter is in), so that a push waits for one chunk, never for the whole import: SQLite's busy
///   handler alone lets the writer that just committed take the lock again first.
/// - byte 2, **importing**: an export's import holds it shared while it runs (checkpoints are its).
/// - byte 3 + target id, **upload to a target**: at most one upload per target and server at a time.
///
/// Readers take none of them and never create the file.
final class StoreLocks {
    private let descriptor: Int32
    let path: String

    private static let alive: Int64 = 0, waitingRoom: Int64 = 1, importing: Int64 = 2, uploads: Int64 = 3
    // Linux's open file description locks (fcntl.h, _GNU_SOURCE): not in Swift's Glibc module.
    private static let getLock: Int32 = 36, setLock: Int32 = 37, setLockWaiting: Int32 = 38

    init(storePath: String) throws {
        path = storePath + ".lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let why = String(cString: strerror(errno))
            throw StoreError.cannotOpen(storePath, "cannot create the lock file \(path): \(why)")
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Holds `alive` shared for the life of this object; returns whether no other writing process
    /// was alive when it came.
    func holdAlive() -> Bool {
        let alone = lock(Self.alive, exclusive: true, wait: false)
        _ = lock(Self.alive, exclusive: false, wait: true)
        return alone
    }

    /// An export's import holds `importing` shared while it runs, so that a push's connection
    /// leaves the write-ahead log's checkpoints to it (see `StagingStore.checkpointUnlessImporting`).
    func holdImporting() { _ = lock(Self.importing, exclusive: false, wait: true) }
    func releaseImporting() { unlock(Self.importing) }

    /// Whether an export's import runs now, on another connection of this or another process.
    var someoneImports: Bool {
        var range = flock()
        range.l_type = Int16(F_WRLCK)
        range.l_whence = Int16(SEEK_SET)
        range.l_start = off_t(Self.importing)
        range.l_len = 1
        guard fcntl(descriptor, Self.getLock, &range) == 0 else { return true }
        return range.l_type != Int16(F_UNLCK)
    }

    /// Runs `begin` (which waits for SQLite's write lock) in the waiting room.
    func waitingForTheWriteLock<T>(_ begin: () throws -> T) rethrows -> T {
        _ = lock(Self.waitingRoom, exclusive: false, wait: true)
        defer { unlock(Self.waitingRoom) }
        return try begin()
    }

    /// Between two chunks of an import: returns once every writer that was waiting has had its turn
    /// (took SQLite's write lock, or gave up).
    func letTheWaitingIn() {
        _ = lock(Self.waitingRoom, exclusive: true, wait: true)
        unlock(Self.waitingRoom)
    }

    /// Takes the upload lock of a target, or returns false when another upload holds it.
    func takeUpload(targetID: Int64) -> Bool { lock(Self.uploads + targetID, exclusive: true, wait: false) }

    func releaseUpload(targetID: Int64) { unlock(Self.uploads + targetID) }

    private func lock(_ byte: Int64, exclusive: Bool, wait: Bool) -> Bool {
        var range = flock()
        range.l_type = Int16(exclusive ? F_WRLCK : F_RDLCK)
        range.l_whence = Int16(SEEK_SET)
        range.l_start = off_t(byte)
        range.l_len = 1
        while true {
            if fcntl(descriptor, wait ? Self.setLockWaiting : Self.setLock, &range) == 0 { return true }
            if errno != EINTR { return false }
        }
    }

    private func unlock(_ byte: Int64) {
        var range = flock()
        range.l_type = Int16(F_UNLCK)
        range.l_whence = Int16(SEEK_SET)
        range.l_start = off_t(byte)
        range.l_len = 1
        _ = fcntl(descriptor, Self.setLock, &range)
    }
}

extension StoreDatabase {
    /// Where the store's writers wait for SQLite's write lock (`StoreLocks`); on PostgreSQL, none:
    /// the owner's advisory lock queues them (`PostgresDatabase.beginWriting`).
    var writersRoom: StoreLocks? { (self as? SQLiteDatabase)?.waitingRoom }
}
