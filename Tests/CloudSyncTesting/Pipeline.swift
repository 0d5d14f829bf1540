import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A shell writer piped into cloudsync, both in one new process group, as a terminal runs a pipeline.
public final class Pipeline {
    private let writer: pid_t
    private let reader: pid_t
    private let stderr: Pipe

    public init(writer command: String, reader arguments: [String]) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw POSIXError(.EMFILE) }
        stderr = Pipe()
        writer = try Self.spawn(["/bin/sh", "-c", command], group: 0, stdin: nil, stdout: fds[1], stderr: nil, closing: fds[0])
        reader = try Self.spawn([CLI.binary.path] + arguments, group: writer, stdin: fds[0], stdout: nil,
                                stderr: stderr.fileHandleForWriting.fileDescriptor, closing: fds[1])
        close(fds[0])
        close(fds[1])
        try stderr.fileHandleForWriting.close()
    }

    /// SIGINT to the whole group; the reader's exit status and standard error.
    public func interrupt() -> (Int32, String) {
        kill(-writer, SIGINT)
        let text = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        var status: Int32 = 0
        waitpid(reader, &status, 0)
        kill(-writer, SIGKILL)
        var ignored: Int32 = 0
        waitpid(writer, &ignored, 0)
        return (status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f), text)
    }

    private static func spawn(_ command: [String], group: pid_t, stdin: Int32?, stdout: Int32?, stderr: Int32?, closing: Int32) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addclose(&actions, closing)
        if let stdin { posix_spawn_file_actions_adddup2(&actions, stdin, 0) } else { posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) }
        if let stdout { posix_spawn_file_actions_adddup2(&actions, stdout, 1) } else { posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0) }
        if let stderr { posix_spawn_file_actions_adddup2(&actions, stderr, 2) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, group)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        let arguments = command.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, command[0], &actions, &attributes, arguments, environ)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        return pid
    }
}
