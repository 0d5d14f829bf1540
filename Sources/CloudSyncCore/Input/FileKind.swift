#if canImport(Glibc)
import Glibc
#endif
#if canImport(CoreFoundation)
// On Linux the Clang module that owns <sys/stat.h> in this build is CoreFoundation's; the
// import-visibility check (MemberImportVisibility) wants it named.
import CoreFoundation
#endif

/// What a file descriptor refers to.
enum FileKind {
    case regular, directory, other

    init(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { self = .other; return }
        switch info.st_mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        default: self = .other
        }
    }

    /// The size of a regular file, without moving its offset.
    static func size(of descriptor: Int32) -> Int64? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }
}
