public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A `cloudsync` child left running while the test acts on it: kills or signals it, watches a
/// server or a store fill. Its standard error goes to a file (a pipe nobody reads could fill and
/// stall it), read when it ends.
public final class BackgroundRun {
    public let process = Process()
    /// Where its standard error goes.
    public let stderrPath: String

    /// - Parameters:
    ///   - environment: added to this process's environment.
    ///   - stderrPath: a file for its standard error (default: a new one in a temporary folder).
    public init(_ arguments: [String], environment: [String: String] = [:], stderrPath: String? = nil) throws {
        self.stderrPath = try stderrPath ?? makeTemporaryDirectory("background").appendingPathComponent("stderr").path
        _ = FileManager.default.createFile(atPath: self.stderrPath, contents: nil)
        process.executableURL = CLI.binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: self.stderrPath))
        try process.run()
    }

    public var pid: pid_t { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    /// Sends `signal` (SIGKILL, SIGINT, SIGTERM) to it.
    public func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for it to end: its exit status and what it wrote on standard error.
    @discardableResult
    public func finish() -> (status: Int32, stderr: String) {
        process.waitUntilExit()
        return (process.terminationStatus, stderr)
    }

    /// What it wrote on standard error so far.
    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
}
