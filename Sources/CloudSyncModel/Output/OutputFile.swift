/// Where output bytes go: standard output or a file, written with `write(2)` in large blocks.
///
/// Callers append whole records to `buffer` and call `flushIfFull()` between records, so the
/// destination only ever receives complete lines: if the run stops on damaged input, stdout ends
/// with the last complete metric, never half of one.
///
/// A file is written beside its destination under a temporary name (`.NAME.cloudsync-PID-N`) and
/// renamed into place by `finish()` only when complete: a run that fails, is interrupted or is
/// killed never leaves half a file where the user's previous output was. `abandon()` keeps what
/// was written as `NAME.partial` (the records before damaged input are worth having) and says so.
public final class OutputFile {
    /// What messages call the output: the path, or "standard output".
    public let name: String
    @exclusivity(unchecked) public var buffer = ByteBuffer(capacity: flushThreshold + (64 << 10))
    private var descriptor: Int32
    private let ownsDescriptor: Bool
    /// For a file: the destination and the temporary file written until `finish()`.
    private let destination: String?
    private let temporary: String?
    private var state = State.open
    @exclusivity(unchecked) public private(set) var bytesWritten = 0

    private enum State { case open, finished, abandoned, discarded }

    package static let flushThreshold = 1 << 20

    public static func standardOutput() -> OutputFile {
        OutputFile(name: "standard output", descriptor: STDOUT_FILENO, owns: false)
    }

    /// Starts writing `path`: nothing at `path` changes until `finish()`. A symbolic link is
    /// followed: its target is replaced, the link stays.
    /// - Parameter durable: `finish()` waits until the bytes are on the disk (`fsync`) before the
    ///   rename. The files of an `OutputFolder` (thousands of batches) skip it.
    public static func create(_ path: String, durable: Bool = true) throws -> OutputFile {
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            return try create(target, named: path, durable: durable)
        }
        return try create(path, named: path, durable: durable)
    }

    private static func create(_ path: String, named name: String, durable: Bool) throws -> OutputFile {
        // A device or a pipe (`-o /dev/null`, a FIFO) is written as it is: a temporary file renamed
        // over it would replace the device with a file.
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG, info.st_mode & S_IFMT != S_IFDIR {
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw ConversionError.output(name, String(cString: strerror(errno))) }
            return OutputFile(name: name, descriptor: fd, owns: true)
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ConversionError.output(name, "it is a folder; give the name of a file to write")
        }
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        var folderIsDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &folderIsDirectory) else {
            throw ConversionError.output(name, "the folder \(folder) does not exist")
        }
        guard folderIsDirectory.boolValue else { throw ConversionError.output(name, "\(folder) is not a folder") }
        let temporary = folder + "/." + url.lastPathComponent + ".cloudsync-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw ConversionError.output(name, Self.reason(errno, folder: folder)) }
        let file = OutputFile(name: name, descriptor: fd, owns: true, destination: path, temporary: temporary)
        file.durable = durable
        return file
    }

    package init(name: String, descriptor: Int32, owns: Bool, destination: String? = nil, temporary: String? = nil) {
        self.name = name
        self.descriptor = descriptor
        ownsDescriptor = owns
        self.destination = destination
        self.temporary = temporary
    }

    private var durable = true

    deinit {
        if ownsDescriptor && descriptor >= 0 { close(descriptor) }
        // Never finished (an error on the way): the destination keeps what it had.
        if state == .open, let temporary { unlink(temporary) }
    }

    public func flushIfFull() throws {
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    public func flush() throws {
        try buffer.withBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ConversionError.output(name, String(cString: strerror(errno)))
                }
                offset += n
            }
            bytesWritten += bytes.count
        }
        buffer.removeAll()
    }

    /// Writes what is buffered and, for a file, puts it in place of the destination (after it is on
    /// the disk: a crash right after the rename must not leave an empty file there).
    public func finish() throws {
        try flush()
        guard let destination, let temporary, state == .open else { return }
        if durable, fsync(descriptor) != 0 { throw ConversionError.output(name, String(cString: strerror(errno))) }
        close(descriptor)
        descriptor = -1
        guard rename(temporary, destination) == 0 else {
            let why = String(cString: strerror(errno))
            unlink(temporary)
            state = .discarded
            throw ConversionError.output(name, why)
        }
        state = .finished
    }

    /// The run stopped early: for standard output, writes the complete lines buffered; for a file,
    /// keeps what was written as `NAME.partial`, and leaves the destination as it was. Best effort:
    /// it never throws (the run's own error is the one to report).
    public func abandon() {
        try? flush()
        guard let destination, let temporary, state == .open else { return }
        close(descriptor)
        descriptor = -1
        if bytesWritten > 0, rename(temporary, destination + ".partial") == 0 {
            state = .abandoned
        } else {
            unlink(temporary)
            state = .discarded
        }
    }

    /// After `abandon()`: where the records written before the stop are, said to the user.
    public var abandonedPlace: String? {
        switch state {
        case .abandoned: return "\(name).partial (\(name) is left as it was)"
        case .open where destination == nil: return name
        default: return nil
        }
    }

    /// The tool's own words for a file that cannot be created.
    static func reason(_ code: Int32, folder: String) -> String {
        switch code {
        case EACCES, EPERM: return "permission denied (the folder \(folder) is not writable)"
        case ENOSPC: return "the disk is full"
        case EROFS: return "the folder \(folder) is on a read-only file system"
        default: return String(cString: strerror(code))
        }
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
