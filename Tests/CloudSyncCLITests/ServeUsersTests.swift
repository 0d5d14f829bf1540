import CloudSyncKinds
import CloudSyncReceiver
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// `serve --tokens FILE`: several users on one receiver, each seeing and counting only its own
/// uploads; the receiver's file upgraded from before users existed.
@Suite(.serialized) struct ServeUsersTests {
    static let alice = "alice-token-0123456789abcdef"
    static let bob = "bob-token-fedcba9876543210xx"

    func write(_ text: String, _ name: String, in dir: URL) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func summary(_ serve: ServeProcess, token: String?) throws -> (status: Int, json: [String: Any]) {
        var arguments = ["-s", "-w", "\n%{http_code}", "\(serve.url)/api/v1/wearables/metrics/summary"]
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        let result = try CLI.run(arguments, tool: "/usr/bin/curl")
        let lines = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n")
        let json = (try? JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8))) as? [String: Any] ?? [:]
        return (Int(lines.last ?? "") ?? 0, json)
    }

    @Test func eachUserSeesAndCountsOnlyItsOwnUploads() throws {
        let dir = try makeTemporaryDirectory()
        let tokens = try write("# the family's server\nalice \(Self.alice)\n\nbob\t\(Self.bob)   # Bob's phone\n", "tokens", in: dir)
        let serve = try ServeProcess(["--tokens", tokens], directory: dir)
        defer { _ = serve.stop() }
        let store = dir.appendingPathComponent("staging.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        let aliceToken = try write(Self.alice, "alice", in: dir)
        let upload = try CLI.run(["upload", "--all-types", "--store", store, "--server", "\(serve.url)/api/v1", "--token-file", aliceToken])
        #expect(upload.status == 0, "\(upload.stderr)")

        let (aliceStatus, aliceSummary) = try summary(serve, token: Self.alice)
        #expect(aliceStatus == 200 && aliceSummary["userId"] as? String == "alice")
        #expect(aliceSummary["metrics"] as? Int == 24, "\(aliceSummary)")
        let (bobStatus, bobSummary) = try summary(serve, token: Self.bob)
        #expect(bobStatus == 200 && bobSummary["userId"] as? String == "bob" && bobSummary["metrics"] as? Int == 0)
        #expect(try summary(serve, token: nil).status == 401)
        #expect(try summary(serve, token: "alice-token-0123456789abcdeX").status == 401)

        // Bob uploads the same export (another store, so another identity): stored for him, not
        // "already there" because Alice has it.
        let bobStore = dir.appendingPathComponent("bob.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", bobStore, "-q"]).status == 0)
        let bobToken = try write(Self.bob, "bob", in: dir)
        let bobUpload = try CLI.run(["upload", "--all-types", "--store", bobStore, "--server", "\(serve.url)/api/v1", "--token-file", bobToken])
        #expect(bobUpload.status == 0 && bobUpload.stderr.contains("uploaded 24 metrics"), "\(bobUpload.stderr)")
        #expect(try summary(serve, token: Self.bob).json["metrics"] as? Int == 24)
        #expect(try summary(serve, token: Self.alice).json["metrics"] as? Int == 24)
        // Each in a store of their own.
        #expect(try serve.storeCount(user: "alice") == 24 && serve.storeCount(user: "bob") == 24)
    }

    /// What a server acknowledged is the account's that sent it: alice's store uploaded with bob's
    /// token by mistake, then with hers, reaches her account whole, and the second upload says the
    /// account changed. (It said "nothing to upload … acknowledged before", and her metrics sat in
    /// bob's account with no way to send them again.)
    @Test func anUploadWithAnotherAccountsTokenSendsThatAccountEverything() throws {
        let dir = try makeTemporaryDirectory()
        let tokens = try write("alice \(Self.alice)\nbob \(Self.bob)\n", "tokens", in: dir)
        let serve = try ServeProcess(["--tokens", tokens], directory: dir)
        defer { _ = serve.stop() }
        let store = dir.appendingPathComponent("alice.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        let server = "\(serve.url)/api/v1"
        let byMistake = try CLI.run(["upload", "--all-types", "--store", store, "--server", server, "--token-file", try write(Self.bob, "bob", in: dir)])
        #expect(byMistake.status == 0 && byMistake.stderr.contains("uploaded 24 metrics"), "\(byMistake.stderr)")
        let aliceToken = try write(Self.alice, "alice", in: dir)
        let right = try CLI.run(["upload", "--all-types", "--store", store, "--server", server, "--token-file", aliceToken])
        #expect(right.status == 0 && right.stderr.contains("uploaded 24 metrics"), "\(right.stderr)")
        #expect(right.stderr.contains("the token opens another account on \(server) than the upload before"), "\(right.stderr)")
        #expect(right.stderr.contains("which has 24 metrics acknowledged there"), "\(right.stderr)")
        #expect(!right.stderr.contains(Self.alice) && !right.stderr.contains(Self.bob), "\(right.stderr)")
        #expect(try summary(serve, token: Self.alice).json["metrics"] as? Int == 24)
        // Again with alice's token: her account has everything, and nothing is said of accounts.
        let again = try CLI.run(["upload", "--all-types", "--store", store, "--server", server, "--token-file", aliceToken])
        #expect(again.stderr.contains("every metric in scope was acknowledged before") && !again.stderr.contains("another account"),
                "\(again.stderr)")
        let status = try CLI.run(["status", "--store", store, "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
        let targets = try #require(json["targets"] as? [[String: Any]])
        #expect(targets.count == 2 && targets.allSatisfy { ($0["account"] as? String)?.hasPrefix("token ") == true }, "\(targets)")
    }

    @Test(arguments: [
        ("alice\n", "line 1: expected USER TOKEN [admin] [reads=USER,USER], found 1 words"),
        ("alice \(alice) root\n", "line 1: after the token, a line holds 'admin' and 'reads=USER,USER' only"),
        ("carol \(alice) reads=\n", "line 1: reads= takes user names separated by commas"),
        ("carol \(alice) reads=alice,b/ob\n", "line 1: reads= takes user names separated by commas"),
        ("alice short\n", "line 1: the second word, the token, is shorter than 16 characters"),
        ("alice \(alice)\nalice \(bob)\n", "line 2: the same user is named on line 1 too"),
        ("alice \(alice)\nbob \(alice)\n", "line 2: this token is already another user's"),
        ("al/ice \(alice)\n", "line 1: a user name holds letters"),
        ("# nobody\n", "names no user"),
    ])
    func aTokensFileMistakeIsSaidWithItsLine(_ text: String, _ problem: String) throws {
        let dir = try makeTemporaryDirectory()
        let tokens = try write(text, "tokens", in: dir)
        let result = try CLI.run(["serve", "--port", "0", "--db", dir.appendingPathComponent("r.sqlite").path, "--tokens", tokens])
        #expect(result.status == 64)
        #expect(result.stderr.contains(problem), "\(result.stderr)")
    }

    /// The columns swapped (TOKEN USER): the error names the line and never shows the token.
    @Test func aTokensLineWithItsColumnsSwappedIsRefusedWithoutShowingTheToken() throws {
        let dir = try makeTemporaryDirectory()
        let tokens = try write("\(Self.alice) alice\n", "tokens", in: dir)
        let result = try CLI.run(["serve", "--port", "0", "--db", dir.appendingPathComponent("r.sqlite").path, "--tokens", tokens])
        #expect(result.status == 64)
        #expect(result.stderr.contains("line 1: the second word, the token, is shorter"), "\(result.stderr)")
        #expect(!result.stderr.contains(Self.alice) && !result.stderr.contains(String(Self.alice.prefix(8))), "\(result.stderr)")
    }

    /// A tokens file written on Windows (CRLF line ends) is read line by line like any other.
    @Test func aTokensFileWithCRLFLineEndsIsRead() throws {
        let users = try ReceiverUsers(parsing: "# team\r\nalice \(Self.alice)\r\nbob \(Self.bob)\r\n", file: "tokens")
        #expect(users.count == 2)
    }

    /// A receiver file made before users existed (schema version 0): its rows become the user
    /// `default`'s, the one of a single --token-file, and its samples go into their store.
    @Test func aReceiverFileFromBeforeUsersIsUpgradedToTheDefaultUser() throws {
        let dir = try makeTemporaryDirectory()
        let database = dir.appendingPathComponent("received.sqlite").path
        do {
            let old = try SQLiteDatabase(path: database, mode: .readWrite)
            try old.execute("""
                CREATE TABLE cloudcare_metric (
                    device_id TEXT NOT NULL, type TEXT NOT NULL, start_date TEXT NOT NULL, end_date TEXT NOT NULL,
                    source_app TEXT NOT NULL, value REAL NOT NULL, unit TEXT NOT NULL, metadata TEXT NOT NULL,
                    user_id TEXT NOT NULL, received_at INTEGER NOT NULL,
                    PRIMARY KEY (device_id, type, start_date, end_date, source_app, value)) WITHOUT ROWID;
                INSERT INTO cloudcare_metric VALUES ('d', 'HKQuantityTypeIdentifierHeartRate', '2024-01-01T00:00:00Z',
                    '2024-01-01T00:00:00Z', 'Watch', 61, 'bpm', '{}', 'u', 0);
                CREATE TABLE steps_sample (uuid TEXT PRIMARY KEY) WITHOUT ROWID;
                INSERT INTO steps_sample VALUES ('8C2D5F6E-0000-4000-8000-000000000001');
                """)
        }
        let token = try write(Self.alice, "token", in: dir)
        let serve = try ServeProcess(["--token-file", token], directory: dir)
        defer { _ = serve.stop() }
        // The move runs as serve starts, beside the first requests: its line says when it is done.
        let deadline = Date().addingTimeInterval(60)
        while !serve.log.contains("moved 1 sample ") && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        #expect(serve.log.contains("moved 1 sample that an older cloudsync serve kept of default into their store"), "\(serve.log)")
        let (status, json) = try summary(serve, token: Self.alice)
        #expect(status == 200 && json["userId"] as? String == "default" && json["metrics"] as? Int == 1, "\(json)")
        #expect(try serve.count("PRAGMA user_version") == 2)
        #expect(try serve.storeCount() == 1)
        // Moved: the old rows are gone (the steps row was a uuid alone, its line in a file long gone).
        #expect(try serve.count("SELECT (SELECT count(*) FROM cloudcare_metric) + (SELECT count(*) FROM steps_sample)") == 0)
    }
}
