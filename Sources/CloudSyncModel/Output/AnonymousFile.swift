#if canImport(Glibc)
public import Glibc
#elseif canImport(Darwin)
public import Darwin
#endif

/// A temporary file with no name, for what a run keeps aside on disk (the archive's files read
/// before export.xml, the merged types' rows, a sort's runs): made in `$TMPDIR` (else /tmp), mode
/// 0600, and unlinked at once, so that it is gone when it is closed or the process ends, however it
/// ends. `tmpfile()` did the same in /tmp only: a user whose /tmp is small (a tmpfs, memory) could
/// not send it to a larger disk.
public enum AnonymousFile {
    /// The folder the files are made in.
    public static var folder: String {
        if let value = getenv("TMPDIR"), value.pointee != 0 { return String(cString: value) }
        return "/tmp"
    }

    /// How an error names where the file was: "a temporary file in FOLDER".
    public static var place: String { "a temporary file in \(folder)" }

    /// A new file open for reading and writing (not passed to a child process), or nil with `errno` set.
    public static func open() -> UnsafeMutablePointer<FILE>? {
        var template = Array("\(folder)/cloudsync-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return nil }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        // A name that cannot be removed would be left behind: refused, as a file that cannot be made.
        guard template.withUnsafeBufferPointer({ unlink($0.baseAddress!) }) == 0,
              let file = fdopen(descriptor, "w+") else {
            let saved = errno
            close(descriptor)
            errno = saved
            return nil
        }
        return file
    }
}
