public import Foundation

/// A `cloudsync` run whose peak memory is measured by GNU time (`%M`, the child's own maximum
/// resident set). Not `wait4` from here: a child spawned by this large test process inherits the
/// parent's high-water mark in `ru_maxrss` when it execs, which made every figure 478 MiB.
public struct MeasuredRun {
    public var status: Int32
    public var stdoutBytes: Int
    public var stderr: String
    public var peakRSSMiB: Double
    /// Wall-clock time: it grows with whatever else the machine does.
    public var seconds: Double
    /// The run's own CPU time (user + system): what a bound on the work done checks, whatever the
    /// load beside it (a test that bounds wall-clock time fails on a busy machine).
    public var cpuSeconds: Double

    /// A peak-memory limit for a test: as given, or four times it when the suite runs under a
    /// sanitizer (scripts/sanitizers.sh says so), whose shadow memory counts in the figure.
    public static func limit(_ mebibytes: Double) -> Double {
        ProcessInfo.processInfo.environment["CLOUDSYNC_TEST_SANITIZER"] == nil ? mebibytes : 4 * mebibytes
    }

    public static func run(_ arguments: [String], in directory: URL? = nil) throws -> MeasuredRun {
        let scratch = try makeTemporaryDirectory()
        let timeFile = scratch.appendingPathComponent("time")
        let stdoutFile = scratch.appendingPathComponent("stdout")
        _ = FileManager.default.createFile(atPath: stdoutFile.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        process.arguments = ["-f", "%U %S %M", "-o", timeFile.path, CLI.binary.path] + arguments
        if let directory { process.currentDirectoryURL = directory }
        let output = try FileHandle(forWritingTo: stdoutFile)
        defer { try? output.close() }
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let started = Date()
        try process.run()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(started)
        // GNU time writes "Command exited with non-zero status N" before the figure when N != 0.
        let figures = try String(contentsOf: timeFile, encoding: .utf8).split(separator: "\n").last?
            .split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) } ?? []
        let kibibytes = figures.count == 3 ? figures[2] : .infinity
        let cpu = figures.count == 3 ? figures[0] + figures[1] : .infinity
        let size = (try FileManager.default.attributesOfItem(atPath: stdoutFile.path)[.size] as? Int) ?? 0
        return MeasuredRun(status: process.terminationStatus, stdoutBytes: size, stderr: String(decoding: stderr, as: UTF8.self),
                           peakRSSMiB: kibibytes / 1024, seconds: seconds, cpuSeconds: cpu)
    }
}
