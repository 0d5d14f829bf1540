import CloudSyncTesting
import Foundation
import Testing

/// `serve`'s numbers and addresses are checked before anything starts: a value that cannot be
/// meant is exit 64 with a sentence naming the option, never a server that does something else
/// (a port that wraps round, a limit that refuses every body) or a trap.
struct ServeArgumentsTests {
    @Test func aDatabaseAddressThatIsNotOneIsExit64() throws {
        for (db, words) in [("postgres://localhost/health", "names no user"), ("postgres://ana@localhost/", "names no database"),
                            ("postgres://ana@localhost:70000/health", "the port 70000 is not between 1 and 65535"),
                            ("postgres://ana@localhost/health?sslmode=sometimes", "sslmode 'sometimes'")] {
            let result = try ServeProcess.runToEnd(["--port", "0", "--db", db])
            #expect(result.status == 64 && result.stderr.contains(words), "\(db): \(result.stderr)")
        }
    }
}
