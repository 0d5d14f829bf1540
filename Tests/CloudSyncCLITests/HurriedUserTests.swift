import CloudSyncModel
import CloudSyncTesting
import Foundation
import Testing

/// What a hurried user hit on the way in (issue 33, item 5), each through the binary: a kind the
/// input does not hold gives nothing and says so; standard input takes the app's JSON as a path does;
/// a mistyped server path is no such endpoint (64); `status` never cuts a label; a request gets no
/// word about flags; the `sql` tool speaks SQL; a bad tokens file is a sentence, not the usage; a
/// mistyped database address is not a file; an unambiguous value is taken in any case.
@Suite struct HurriedUserTests {
    static let withRoute = Paths.samples.appendingPathComponent("health-auto-export.json").path

    @Test(arguments: ["ecg", "beats", "clinical", "audiograms", "vision-prescriptions", "correlations", "state-of-mind"])
    func aKindTheInputDoesNotHoldGivesNothingAndSaysSo(kind: String) throws {
        for format in ["jsonl", "csv"] {
            let result = try CLI.run(["convert", Self.withRoute, "--kind", kind, "--format", format])
            #expect(result.status == 0, "\(result.stderr)")
            // JSON Lines: nothing; CSV: the kind's header alone.
            #expect(result.lines.filter { !$0.isEmpty }.count == (format == "csv" ? 1 : 0), "\(kind) \(format): \(result.lines.prefix(3))")
            #expect(result.stderr.contains("holds no "), "\(result.stderr)")
            #expect(result.stderr.contains("1 routes"), "\(result.stderr)")
        }
        // The kind it holds is written.
        #expect(try CLI.run(["convert", Self.withRoute, "--kind", "routes"]).lines.filter { !$0.isEmpty }.count > 0)
    }

    @Test func standardInputTakesTheAppsJSONAsAPathDoes() throws {
        let dir = try makeTemporaryDirectory()
        let byPath = try CLI.run(["convert", Self.withRoute])
        let redirected = try CLI.run(["convert", "-"], stdinFile: Self.withRoute)
        #expect(redirected.status == 0 && redirected.stdout == byPath.stdout, "\(redirected.stderr)")
        let store = dir.appendingPathComponent("store.sqlite").path
        let imported = try CLI.run(["import", "-", "--store", store], stdinFile: Self.withRoute)
        #expect(imported.status == 0 && imported.stderr.contains("imported standard input"), "\(imported.stderr)")
        #expect(try OneTruthTests.object(try CLI.run(["status", "--store", store, "--json"]))["metrics"] as? Int == 15)
        // From a pipe, what is read cannot be put back: said in a sentence, 65.
        let piped = try CLI.run(["convert", "-"], stdinBytes: try Data(contentsOf: URL(fileURLWithPath: Self.withRoute)))
        #expect(piped.status == 65 && piped.stderr.contains("from a pipe, standard input takes a zip or XML"), "\(piped.stderr)")
    }

    @Test func aMistypedServerPathIsNoSuchEndpoint() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        let serve = try ServeProcess([], directory: dir)
        defer { _ = serve.stop() }
        let result = try CLI.run(["upload", "--store", store, "--server", serve.url + "/wrong", "--no-token"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("does not exist on the server (404)") && !result.stderr.contains("paired patient"), "\(result.stderr)")
    }

    @Test func statusSaysEveryKindWhole() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        #expect(try CLI.run(["import", PhoneArraysTests.arrays, "--store", store, "-q"]).status == 0)
        let text = String(decoding: try CLI.run(["status", "--store", store]).stdout, as: UTF8.self)
        for whole in ["4 medication doses", "2 State of Mind entries", "5 sample series (8 points)", "records:    "] {
            #expect(text.contains(whole), "\(text)")
        }
        // The labels a column of 11 characters cut ("vision pres 1 vision prescription").
        for cut in ["vision pres 1", "clinical re 1", "beat series 1 beat", "medication  4", "sample seri 5"] { #expect(!text.contains(cut), "\(text)") }
    }

    @Test func aRequestGetsNoWordAboutFlagsAndTheSQLToolSpeaksSQL() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        let serve = try ServeProcess(["--store", store], directory: dir)
        defer { _ = serve.stop() }
        let page = dir.appendingPathComponent("answer.txt")
        let fetched = try CLI.run(["-sS", "-o", page.path, "-w", "%{http_code}", serve.url + "/report?tz=Europe/Parsi"], tool: "/usr/bin/curl")
        #expect(String(decoding: fetched.stdout, as: UTF8.self) == "400")
        let said = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: page)) as? [String: Any])["detail"] as? String ?? ""
        #expect(said.contains("tz 'Europe/Parsi' is not a time zone") && said.contains("Europe/Paris") && !said.contains("--tz"), "\(said)")

        // The statement as written, never SQLite's action number or what it does inside (a CREATE
        // TABLE inserts into sqlite_master first).
        for (query, verb) in [("CREATE TABLE t(x)", "CREATE"), ("DROP VIEW metrics", "DROP"), ("REINDEX", "REINDEX"),
                              ("  -- a comment\n insert into daily values (1)", "INSERT")] {
            let refused = try HealthAutoExportMCPTests.callRaw(store, "sql", ["query": query])
            #expect(refused.contains("\(verb): only SELECT is allowed") && !refused.contains("action"), "\(refused)")
        }
    }

    @Test func aBadTokensFileIsASentenceNotTheUsage() throws {
        let dir = try makeTemporaryDirectory()
        let database = dir.appendingPathComponent("r.sqlite").path
        let tokens = try writeFile("alice\n", named: "tokens", in: dir)
        let result = try ServeProcess.runToEnd(["--db", database, "--tokens", tokens])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(tokens) && result.stderr.contains("see 'cloudsync serve --help'"), "\(result.stderr)")
        #expect(!result.stderr.contains("USAGE:") && !result.stderr.contains("OPTIONS:"), "\(result.stderr)")
        let missing = try ServeProcess.runToEnd(["--db", database, "--tokens", dir.appendingPathComponent("nowhere").path])
        #expect(missing.status == 64 && missing.stderr.contains("cannot read the tokens file") && !missing.stderr.contains("USAGE:"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    @Test(arguments: ["postgress://ana@localhost/health", "postgresql:/health", "mysql://ana@localhost/health"])
    func aMistypedDatabaseAddressIsNotAFile(address: String) throws {
        let dir = try makeTemporaryDirectory()
        let result = try ServeProcess.runToEnd(["--port", "0", "--db", address], in: dir)
        #expect(result.status == 64 && result.stderr.contains("is not a database address"), "\(address): \(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "serve made a file of the address")
    }

    @Test func anUnambiguousValueIsTakenInAnyCase() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        let upper = try CLI.run(["convert", CLI.sample, "--format", "CSV", "--kind", "Metrics"])
        let lower = try CLI.run(["convert", CLI.sample, "--format", "csv"])
        #expect(upper.status == 0 && upper.stdout == lower.stdout, "\(upper.stderr)")
        let day = try CLI.run(["aggregate", "--store", store, "--bucket", "Day", "--format", "JSONL", "--types", "Steps"])
        let plain = try CLI.run(["aggregate", "--store", store, "--bucket", "day", "--format", "jsonl", "--types", "steps"])
        #expect(day.status == 0 && day.stdout == plain.stdout && !plain.stdout.isEmpty, "\(day.stderr)")
        #expect(try CLI.run(["convert", PhoneArraysTests.arrays, "--kind", "Medications"]).lines.filter { !$0.isEmpty }.count == 4)
    }
}
