import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Files of health data (stores, the receiver's database, the steps files) are made readable by
/// their owner alone, whatever the umask: 0600, and 0700 for a folder made to hold one. SQLite gives
/// a database's WAL and shared-memory files the mode of the database file, so making the database
/// file first is enough for all three.
package enum PrivateFile {
    /// Makes `path` as an empty file of mode 0600 unless something is there already (whose mode is
    /// left as its owner chose). Paths SQLite reads as something other than a file are left alone.
    package static func create(_ path: String) {
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 { close(fd) }
    }

    /// Empties `path`, making it with mode 0600 if it is not there.
    package static func truncate(_ path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        close(fd)
    }

    /// Makes the folder `path` and its missing parents with mode 0700.
    package static func createDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }
}
