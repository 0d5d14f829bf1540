import CloudSyncTesting
import Foundation
import Testing

/// Another Swift package depends on this one by URL and version, as a user's would, builds it and
/// reads an export with it. SwiftPM refuses a dependency by version whose library targets use
/// `unsafeFlags`, so this fails if one comes back. The package is this repository's committed
/// HEAD, cloned and tagged in a temporary folder (the URL is that clone's, with `file://`).
@Suite(.enabled(if: DependentPackage.canRun, "no git checkout or no swift on PATH: the dependent-package build is skipped"))
struct DependentPackageTests {
    @Test(.timeLimit(.minutes(15)))
    func aPackageDependingOnTheLibraryByVersionBuildsAndReadsAnExport() throws {
        let dir = try makeTemporaryDirectory()
        let clone = dir.appendingPathComponent("cloudsync.git").path
        try DependentPackage.run("/usr/bin/env", ["git", "clone", "--quiet", "--bare", Paths.repository.path, clone])
        try DependentPackage.run("/usr/bin/env", ["git", "-C", clone, "tag", "9.9.9"])
        let app = dir.appendingPathComponent("reader")
        try FileManager.default.createDirectory(at: app.appendingPathComponent("Sources/reader"), withIntermediateDirectories: true)
        try Data("""
            // swift-tools-version:6.1
            import PackageDescription
            let package = Package(
                name: "reader",
                dependencies: [.package(url: "file://\(clone)", from: "9.9.9")],
                targets: [.executableTarget(name: "reader", dependencies: [.product(name: "CloudSyncExport", package: "cloudsync")])]
            )
            """.utf8).write(to: app.appendingPathComponent("Package.swift"))
        try Data("""
            import CloudSyncExport
            import CloudSyncModel

            var workouts = 0, records = 0
            try ExportReader.read(CommandLine.arguments[1]) { element in
                if case .workout = element { workouts += 1 }
                if case .record = element { records += 1 }
            }
            print("records \\(records) workouts \\(workouts)")
            """.utf8).write(to: app.appendingPathComponent("Sources/reader/main.swift"))
        let output = try DependentPackage.run("/usr/bin/env", ["swift", "run", "--package-path", app.path, "reader", Paths.sampleZip])
        #expect(output.contains("records 22 workouts 2"), "\(output)")   // the sample's top-level Records (2 more are inside a Correlation)
    }
}

enum DependentPackage {
    static var canRun: Bool {
        FileManager.default.fileExists(atPath: Paths.repository.appendingPathComponent(".git").path)
            && (try? run("/usr/bin/env", ["swift", "--version"])) != nil
    }

    /// Runs a command; its stdout and stderr, or an error with them when it fails.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else { throw Failure(command: ([tool] + arguments).joined(separator: " "), output: text) }
        return text
    }

    struct Failure: Error, CustomStringConvertible {
        let command: String
        let output: String
        var description: String { "\(command) failed:\n\(output.suffix(3000))" }
    }
}
