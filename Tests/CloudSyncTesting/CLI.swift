public import Foundation

/// The `cloudsync` binary, run as a user runs it: exit codes, stdout holds only data, stderr the rest.
public struct CLIResult {
    public var status: Int32
    public var stdout: Data
    public var stderr: String
    public var lines: [String] { String(decoding: stdout, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
}

public enum CLI {
    public static let repository = Paths.repository
    public static let sample = repository.appendingPathComponent("samples/export.zip").path

    public static var binary: URL {
        let candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
                          repository.appendingPathComponent(".build/debug")]
        return candidates.map { $0.appendingPathComponent("cloudsync") }.first { FileManager.default.isExecutableFile(atPath: $0.path) }!
    }

    /// Runs cloudsync (or another `tool`) with `arguments`; `stdin` is a file to read from, or bytes
    /// written through a pipe; `directory` its working directory.
    public static func run(_ arguments: [String], stdinFile: String? = nil, stdinBytes: Data? = nil,
                    environment: [String: String] = [:], tool: String? = nil, directory: URL? = nil) throws -> CLIResult {
        let process = Process()
        process.executableURL = tool.map { URL(fileURLWithPath: $0) } ?? binary
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        if let stdinFile { process.standardInput = FileHandle(forReadingAtPath: stdinFile) } else if stdinBytes != nil { process.standardInput = input }
        try process.run()
        if let stdinBytes {
            input.fileHandleForWriting.write(stdinBytes)
            try input.fileHandleForWriting.close()
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLIResult(status: process.terminationStatus, stdout: stdout, stderr: String(decoding: stderr, as: UTF8.self))
    }
}

