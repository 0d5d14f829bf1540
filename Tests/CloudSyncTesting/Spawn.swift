import Foundation

// Running a helper program to completion, shared by the PostgreSQL cluster, the Debian root and the
// package test. posix_spawn, not Process: Process.waitUntilExit hung here once on a child that had
// exited, and a long child's output goes to a file, so no pipe can fill and block it.

/// Runs `command` (an absolute path and its arguments) with stdin from /dev/null and stdout and
/// stderr into `output`, and returns its exit status.
public func spawnAndWait(_ command: [String], output: String) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    let arguments = command.map { strdup($0) } + [nil]
    defer { arguments.forEach { free($0) } }
    var pid = pid_t()
    let spawned = posix_spawn(&pid, command[0], &actions, nil, arguments, environ)
    guard spawned == 0 else { throw ClusterError("cannot run \(command[0]): \(String(cString: strerror(spawned)))") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
        guard errno == EINTR else { throw ClusterError("waiting for \(command[0]): \(String(cString: strerror(errno)))") }
    }
    // WIFEXITED / WEXITSTATUS, which Swift does not import.
    return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
}

/// The failure of a helper the tests start (a server, a tool, a Debian root).
public struct ClusterError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
