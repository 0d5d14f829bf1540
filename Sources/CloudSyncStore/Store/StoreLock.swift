#if canImport(Glibc)
import Glibc
#endif

/// The writer's lock: an exclusive `flock` on `<store>.lock`, held for the life of the process's
/// write session. A second `cloudsync import` or `upload` on the same store fails at once with a
/// clear message instead of waiting on SQLite. The kernel drops the lock when the process dies,
/// even by `kill -9`, so a crash never leaves the store locked.
final class StoreLock {
    private let descriptor: Int32

    init(storePath: String) throws {
        let path = storePath + ".lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let why = String(cString: strerror(errno))
            throw StoreError.cannotOpen(storePath, "cannot create the lock file \(path): \(why)")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw StoreError.locked(storePath)
        }
        descriptor = fd
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
