import CloudSyncTesting
import Foundation
import Testing

/// `serve --db postgres://…` with a database it cannot use: within seconds, not after the pool's
/// minute of silent retries, it says why in PostgreSQL's own words (or what happened before
/// PostgreSQL could say anything), with the exit status of its kind.
@Suite(.enabled(if: PostgresCluster.isAvailable, "PostgreSQL is not installed (Debian: postgresql)"))
struct ServeDatabaseStartTests {
    @Test func aDatabaseThatCannotBeUsedIsSaidWithinSecondsInPostgreSQLsWords() throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        try cluster.addRole("ana", password: "right-password")
        let socket = cluster.directory.path
        let unused = try freeLoopbackPort()
        let cases: [(db: String, status: Int32, words: String)] = [
            ("postgres://nosuchrole@localhost/nosuchdb?host=\(socket)", 77,
             #"role "nosuchrole" does not exist (create it: createuser nosuchrole"#),
            ("postgres://cloudsync@localhost/nosuchdb?host=\(socket)", 73,
             #"database "nosuchdb" does not exist (create it: createdb -O cloudsync nosuchdb)"#),
            ("postgres://ana:wrong-password@localhost/postgres?host=\(socket)", 77,
             #"password authentication failed for user "ana""#),
            ("postgres://ana@localhost/postgres?host=\(socket)", 77,
             "wants a password for ana, and the address gives none"),
            ("postgres://cloudsync@127.0.0.1:\(unused)/postgres", 69,
             "nothing listens at 127.0.0.1:\(unused) (connection refused)"),
            ("postgres://cloudsync@localhost/postgres?host=\(socket)/missing", 69,
             "there is no PostgreSQL socket at \(socket)/missing/.s.PGSQL.5432"),
        ]
        for (db, status, words) in cases {
            let result = try ServeProcess.runToEnd(["--port", "0", "--db", db])
            #expect(result.status == status, "\(db): \(result.stderr)")
            #expect(result.stderr.contains("cannot use the database") && result.stderr.contains(words), "\(db): \(result.stderr)")
            // The status is its own: runToEnd stops a serve still running after 10 s (status 124).
            #expect(!result.stderr.contains("ConnectionPoolError") && !result.stderr.contains("wrong-password"), "\(result.stderr)")
        }
        // A schema from a newer cloudsync is refused, naming its version.
        try cluster.psql("CREATE DATABASE newer")
        try cluster.psql("""
            CREATE TABLE cloudsync_migration (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                                              backend_pid INTEGER NOT NULL);
            INSERT INTO cloudsync_migration(version, backend_pid) VALUES (99, 0)
            """, database: "newer")
        let newer = try ServeProcess.runToEnd(["--port", "0", "--db", cluster.url(database: "newer")])
        #expect(newer.status == 73 && newer.stderr.contains("the database's schema is version 99, newer than this cloudsync knows"),
                "\(newer.stderr)")
        // The right password gets past the door; a role that may not create tables is told so.
        let denied = try ServeProcess.runToEnd(["--port", "0", "--db", "postgres://ana:right-password@localhost/postgres?host=\(socket)"])
        #expect(denied.status == 77 && denied.stderr.contains("permission denied for schema public"), "\(denied.stderr)")
    }
}

/// The steps API on PostgreSQL: each sample's line is a row of the patient's, like every other
/// row. (The lines once went to a file named after the database's address, and every POST /steps
/// answered 500 with an empty body.)
@Suite(.enabled(if: PostgresCluster.isAvailable, "PostgreSQL is not installed (Debian: postgresql)"))
struct ServeStepsOnPostgresTests {
    @Test func stepsAreStoredInPostgreSQLOncePerUUID() throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let serve = try ServeProcess([], directory: directory, database: cluster.url())
        defer { _ = serve.stop() }
        let sample: [String: Any] = ["uuid": "8C2D5F6E-0000-4000-8000-000000000001", "count": 412,
                                     "startDate": "2025-05-11T16:27:22.000Z", "endDate": "2025-05-11T16:37:22.000Z"]
        let first = try serve.request("POST", "/steps", json: ["samples": [sample]])
        #expect(first.status == 200 && first.object["saved"] as? Int == 1, "\(first) \(serve.log)")
        // The client's retry after a lost answer: stored once.
        #expect(try serve.request("POST", "/steps", json: ["samples": [sample, sample]]).object["saved"] as? Int == 0)
        #expect(try serve.request("GET", "/steps").object["storedCount"] as? Int == 1)
        // A row of the patient's store: the step count of its dates.
        let row = try cluster.psql("SELECT start_date || ' ' || end_date || ' ' || value FROM metric WHERE owner = 'default'")
        #expect(row == "1746980842 1746981442 412", "\(row)")
        // The steps are health data, counted with the rest: the mock's reset does not delete them.
        #expect(try serve.request("DELETE", "/steps").status == 405)
        #expect(try serve.request("GET", "/steps").object["storedCount"] as? Int == 1)
        // Nothing was written beside the database's address.
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!files.contains { $0.contains("steps") || $0.contains("postgres") }, "\(files)")

        let refused = try CLI.run(["serve", "--port", "0", "--db", cluster.url(), "--steps-file", directory.appendingPathComponent("s.jsonl").path])
        #expect(refused.status == 64 && refused.stderr.contains("--steps-file names the steps files an older cloudsync wrote"), "\(refused.stderr)")
    }

    /// What an older serve kept in its own tables (a CloudCare metric, a steps line) is moved into
    /// the patient's store at the next start, once, and the old rows go; a row that cannot be read
    /// as a sample stays where it is.
    @Test func whatAnOlderServeKeptIsMovedIntoThePatientsStore() throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try ServeProcess([], directory: directory, database: cluster.url()).stop()   // the tables, as an older serve made them
        try cluster.psql("""
            INSERT INTO cloudcare_metric VALUES ('default', 'd', 'HKQuantityTypeIdentifierHeartRate', '2024-01-01T00:00:00Z',
                '2024-01-01T00:00:00Z', 'Watch', 61, 'bpm', '{"device":"Apple Watch"}', 'u', 0);
            INSERT INTO steps_sample VALUES ('default', '8C2D5F6E-0000-4000-8000-000000000001',
                '{"count":412,"endDate":"2025-05-11T16:37:22.000Z","sourceBundleId":"Phone","startDate":"2025-05-11T16:27:22.000Z","uuid":"8C2D5F6E-0000-4000-8000-000000000001"}');
            INSERT INTO flo_sample VALUES ('bob', 'x', 'HKQuantityTypeIdentifierStepCount', 1, 'count', 'b1', 'm1', '{"dataType":"HKQuantityTypeIdentifierStepCount","value":1,"unit":"count","startDate":"b1","endDate":"m1","uuid":"x"}');
            """)
        try Data("bob bob-token-0123456789abcdef\n".utf8).write(to: directory.appendingPathComponent("tokens"))
        for (start, said) in ["moved 2 samples ", "cannot be read as samples"].enumerated() {
            let serve = try ServeProcess(["--tokens", directory.appendingPathComponent("tokens").path], directory: directory,
                                         database: cluster.url(), name: "serve-\(start)")
            // The move runs as serve starts, beside the first requests.
            let deadline = Date().addingTimeInterval(60)
            while !serve.log.contains(said) && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
            #expect(serve.log.contains(said), "\(serve.log)")
            #expect(serve.stop() == 0)
        }
        // Moved once: the second start found nothing more of default's.
        let second = (try? String(contentsOf: directory.appendingPathComponent("serve-1.err"), encoding: .utf8)) ?? ""
        #expect(second.range(of: "moved [0-9]+ sample", options: .regularExpression) == nil, "\(second)")
        #expect(!second.contains("could not be moved"), "a stop is no error: \(second)")
        #expect(try cluster.psql("SELECT owner || ' ' || count(*) FROM metric GROUP BY owner") == "default 2")
        #expect(try cluster.psql("SELECT (SELECT count(*) FROM cloudcare_metric) + (SELECT count(*) FROM steps_sample)") == "0")
        #expect(try cluster.psql("SELECT count(*) FROM flo_sample WHERE owner = 'bob'") == "1")
    }
}
