#if canImport(Glibc)
import Glibc
#endif
// On Linux the Clang module that owns <sys/stat.h> in this build is one of Foundation's or
// Dispatch's; the import-visibility check (MemberImportVisibility) wants it named.
#if canImport(CDispatch)
import CDispatch
#endif
#if canImport(CoreFoundation)
import CoreFoundation
#endif

/// What a file descriptor refers to.
package enum FileKind {
    case regular, directory, other

    package init(descriptor: Int32) {
        var info = stat()
        self.init(mode: fstat(descriptor, &info) == 0 ? info.st_mode : nil)
    }

    /// What `path` refers to, without opening it (opening a FIFO would wait for a writer).
    package init(path: String) {
        var info = stat()
        self.init(mode: stat(path, &info) == 0 ? info.st_mode : nil)
    }

    private init(mode: mode_t?) {
        switch (mode ?? 0) & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        default: self = .other
        }
    }

    /// The size of the file at `path` (following links), nil when it cannot be read.
    package static func size(path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// The size of a regular file, without moving its offset.
    package static func size(of descriptor: Int32) -> Int64? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }
}
