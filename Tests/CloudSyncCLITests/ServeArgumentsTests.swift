import CloudSyncTesting
import Foundation
import Testing

/// `serve`'s numbers and addresses are checked before anything starts: a value that cannot be
/// meant is exit 64 with a sentence naming the option, never a server that does something else
/// (a port that wraps round, a limit that refuses every body) or a trap.
struct ServeArgumentsTests {
    @Test(arguments: [
        (["--port", "70000"], "--port 70000 is not a port: give a number from 0 to 65535"),
        (["--port", "65536"], "--port 65536 is not a port"),
        (["--port=-1"], "--port -1 is not a port"),
        (["--max-body-size", "0"], "--max-body-size 0 accepts no body"),
        (["--max-body-size=-5"], "--max-body-size -5 accepts no body"),
        (["--delay=-1"], "--delay -1.0 is not a number of seconds from 0 to 3600"),
        (["--delay", "inf"], "--delay inf is not a number of seconds"),
        (["--delay", "nan"], "--delay nan is not a number of seconds"),
        (["--faults", "429:inf"], "--faults: fault '429:inf': 'inf' is not a number of seconds from 0 to 3600"),
        (["--faults", "stall:-3"], "--faults: fault 'stall:-3': '-3' is not a number of seconds"),
        (["--faults", "429:1.5"], "Retry-After is a whole number of seconds"),
        (["--faults", "404"], "fault '404': use 5xx, 429:S, lost:S, stall:S or ok"),
    ])
    func aNumberThatCannotBeMeantIsExit64(_ arguments: [String], _ words: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let database = dir.appendingPathComponent("r.sqlite").path
        let result = try ServeProcess.runToEnd(["--db", database] + arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(words), "\(arguments): \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: database), "serve opened its database before checking its arguments")
    }

    @Test func aDatabaseAddressThatIsNotOneIsExit64() throws {
        for (db, words) in [("postgres://localhost/health", "names no user"), ("postgres://ana@localhost/", "names no database"),
                            ("postgres://ana@localhost:70000/health", "the port 70000 is not between 1 and 65535"),
                            ("postgres://ana@localhost/health?sslmode=sometimes", "sslmode 'sometimes'")] {
            let result = try ServeProcess.runToEnd(["--port", "0", "--db", db])
            #expect(result.status == 64 && result.stderr.contains(words), "\(db): \(result.stderr)")
        }
    }
}
