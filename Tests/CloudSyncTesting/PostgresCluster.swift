public import Foundation

/// A PostgreSQL cluster of the test's own: `initdb` into a temporary folder, started with `pg_ctl`
/// on a Unix socket in that folder (no TCP port to collide on) and stopped by `stop()`. As root,
/// the server runs as the `postgres` user, which PostgreSQL requires. nil (the test says it
/// skipped) when Debian's `postgresql` is not installed.
public final class PostgresCluster: @unchecked Sendable {
    public let directory: URL
    public let port = 5432
    private let binaries: URL
    private let runAs: String?
    public let user = "cloudsync"

    /// `postgres://cloudsync@localhost/DATABASE?host=SOCKETDIR`, the address `serve --db` takes.
    public func url(database: String = "postgres") -> String {
        "postgres://\(user)@localhost/\(database)?host=\(directory.path)"
    }

    public static var binaryDirectory: URL? {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return versions.compactMap(Int.init).sorted().last.map { root.appendingPathComponent("\($0)/bin") }
            .flatMap { FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("initdb").path) ? $0 : nil }
    }

    public static var isAvailable: Bool { binaryDirectory != nil }

    public init() throws {
        guard let binaries = Self.binaryDirectory else { throw ClusterError("PostgreSQL is not installed (Debian: postgresql)") }
        self.binaries = binaries
        runAs = getuid() == 0 ? "postgres" : nil
        directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("cloudsync-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if let runAs { try run("/bin/chown", ["-R", runAs, directory.path], asServer: false) }
        try run(binaries.appendingPathComponent("initdb").path,
                ["-D", directory.appendingPathComponent("data").path, "-U", user, "--auth=trust", "-E", "UTF8", "--no-sync"])
        try start()
    }

    /// Starts the server (again, after `stop`).
    public func start() throws {
        try run(binaries.appendingPathComponent("pg_ctl").path,
                ["-D", directory.appendingPathComponent("data").path, "-l", directory.appendingPathComponent("log").path, "-w",
                 "-o", "-k \(directory.path) -c listen_addresses='' -p \(port) -c fsync=off -c max_connections=200", "start"])
    }

    /// `pg_ctl stop -m fast`: the server goes away at once, as when it fails.
    public func stop() throws {
        try run(binaries.appendingPathComponent("pg_ctl").path, ["-D", directory.appendingPathComponent("data").path, "-m", "fast", "-w", "stop"])
    }

    /// A role that signs in with a password (SCRAM), unlike the cluster's own user (trusted):
    /// its line goes first in pg_hba.conf, and the server reloads it.
    public func addRole(_ name: String, password: String) throws {
        try psql("CREATE ROLE \(name) LOGIN PASSWORD '\(password)'")
        let hba = directory.appendingPathComponent("data/pg_hba.conf")
        let rules = try String(contentsOf: hba, encoding: .utf8)
        try Data("local all \(name) scram-sha-256\n\(rules)".utf8).write(to: hba)   // as root: the file keeps its owner
        try run(binaries.appendingPathComponent("pg_ctl").path, ["-D", directory.appendingPathComponent("data").path, "reload"])
        // The reload is a signal: done once the role is asked for its password.
        let deadline = Date().addingTimeInterval(10)
        while (try? run(binaries.appendingPathComponent("psql").path,
                        ["-X", "-w", "-h", directory.path, "-p", "\(port)", "-U", name, "-d", "postgres", "-c", "SELECT 1"],
                        asServer: false)) != nil {
            guard Date() < deadline else { throw ClusterError("pg_hba.conf was not reloaded: \(name) still signs in without a password") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// A database owned by a role of its own that signs in with a password, as docs/serve.md deploys
    /// `serve` (not the cluster's superuser, whom row-level security exempts): its address.
    public func addOwnedDatabase(_ name: String, role: String, password: String) throws -> String {
        try addRole(role, password: password)
        try psql("CREATE DATABASE \(name) OWNER \(role)")
        return "postgres://\(role):\(password)@localhost/\(name)?host=\(directory.path)"
    }

    /// Runs SQL with `psql` (to look at what the tests stored).
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        try run(binaries.appendingPathComponent("psql").path,
                ["-X", "-q", "-A", "-t", "-h", directory.path, "-p", "\(port)", "-U", user, "-d", database, "-c", sql], asServer: false)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `pg_dump --data-only` of a database: every row of every table, as text (to look for what
    /// should be gone).
    public func dumpData(database: String) throws -> String {
        try run(binaries.appendingPathComponent("pg_dump").path,
                ["--data-only", "--no-owner", "-h", directory.path, "-p", "\(port)", "-U", user, "-d", database], asServer: false)
    }

    /// Stops the server and removes the folder.
    public func remove() {
        try? stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs a tool (as the server's user for the server's tools) and waits for it. posix_spawn and
    /// waitpid, not Foundation's Process: its waitUntilExit never returned for `runuser … pg_ctl
    /// start` from an async test (the child stayed a zombie, unreaped).
    @discardableResult
    private func run(_ tool: String, _ arguments: [String], asServer: Bool = true) throws -> String {
        let command = (asServer ? runAs : nil).map { ["/usr/sbin/runuser", "-u", $0, "--", tool] + arguments } ?? [tool] + arguments
        // Output to a file, not a pipe: the server pg_ctl starts would keep a pipe open.
        let outputFile = directory.appendingPathComponent("tool-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: outputFile) }
        let status = try spawnAndWait(command, output: outputFile.path)
        let text = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw ClusterError("\((tool as NSString).lastPathComponent) \(arguments.joined(separator: " ")) failed: \(text)")
        }
        return text
    }
}
