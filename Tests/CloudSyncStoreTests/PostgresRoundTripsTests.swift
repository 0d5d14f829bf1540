@testable import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// What saves a received batch its round trips to PostgreSQL (`PostgresDatabase`): statements
/// deferred to the next one, reads run together ahead of their asking, and a kept connection known
/// open without asking. Each keeps what the statements would do one at a time: the same statements
/// run in the same order, an error is said, and nothing stale is answered. On a real PostgreSQL.
@Suite(.enabled(if: PostgresCluster.isAvailable, "PostgreSQL is not installed (Debian: postgresql)"))
struct PostgresRoundTripsTests {
    /// A connection to a new cluster's database with a table `t(x)`, for `body`.
    static func withDatabase(_ body: (_ database: PostgresDatabase, _ cluster: PostgresCluster) throws -> Void) throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let database = try PostgresDatabase(address: cluster.url(), owner: nil)
        try database.execute("CREATE TABLE t (x integer NOT NULL)")
        try body(database, cluster)
    }

    @Test func aDeferredStatementRunsBeforeTheNextOneInItsOrder() throws { try Self.withDatabase { database, _ in
        try database.execute("BEGIN")
        try database.executeWithNext("INSERT INTO t VALUES (1)")
        try database.executeWithNext("UPDATE t SET x = x * 10")
        // A statement with parameters (its own round trip after them), and one without.
        #expect(try database.scalarInt("SELECT sum(x) FROM t WHERE x > ?", [.int(0)]) == 10)
        try database.executeWithNext("INSERT INTO t VALUES (2)")
        try database.execute("UPDATE t SET x = x + 1")
        // Prepared ones, with parameters, among them: before a statement sent as text and before one
        // with parameters.
        try database.executeWithNext("UPDATE t SET x = x * ?", [.int(2)])
        try database.executeWithNext("DELETE FROM t WHERE x > 20")
        try database.execute("INSERT INTO t VALUES (100)")
        try database.executeWithNext("UPDATE t SET x = x + ? WHERE x < ?", [.int(1), .int(50)])
        #expect(try database.scalarInt("SELECT count(*) FROM t WHERE x > ?", [.int(0)]) == 2)
        try database.execute("COMMIT")
        let rows = try database.texts("SELECT x::text FROM t ORDER BY t.x")
        #expect(rows == ["7", "100"])
    } }

    @Test func aDeferredStatementsErrorIsTheNextOnesAndARollbackDropsIt() throws { try Self.withDatabase { database, cluster in
        try database.execute("BEGIN")
        // Not run yet: no error at once.
        try database.executeWithNext("INSERT INTO missing_table VALUES (1)")
        #expect(throws: PostgresError.self) { try database.execute("INSERT INTO t VALUES (5)") }
        database.rollBack()
        #expect(try database.scalarInt("SELECT count(*) FROM t") == 0)
        // A prepared one's error is the next's too, whichever way that one goes.
        try database.execute("BEGIN")
        try database.executeWithNext("INSERT INTO t VALUES (?)", [.text("not a number")])
        #expect(throws: PostgresError.self) { try database.scalarInt("SELECT count(*) FROM t WHERE x > ?", [.int(0)]) }
        database.rollBack()
        try database.execute("BEGIN")
        try database.executeWithNext("INSERT INTO t VALUES (?)", [.text("not a number")])
        #expect(throws: PostgresError.self) { try database.execute("INSERT INTO t VALUES (5)") }
        database.rollBack()
        #expect(try database.scalarInt("SELECT count(*) FROM t") == 0)

        try database.execute("BEGIN")
        try database.executeWithNext("INSERT INTO t VALUES (7)")
        database.rollBack()
        try database.execute("INSERT INTO t VALUES (8)")
        #expect(try database.texts("SELECT x::text FROM t") == ["8"], "a statement deferred in a transaction rolled back ran after it")

        // Outside a transaction there is no next statement to wait for: it runs at once.
        try database.executeWithNext("INSERT INTO t VALUES (9)")
        let other = try PostgresDatabase(address: cluster.url(), owner: nil)
        #expect(try other.scalarInt("SELECT count(*) FROM t WHERE x = 9") == 1)
    } }

    @Test func readsAheadAnswerAsTheReadsWouldAndNeverAfterAnotherStatement() throws { try Self.withDatabase { database, _ in
        try database.execute("INSERT INTO t VALUES (1), (2)")
        let count = "SELECT count(*) FROM t", total = "SELECT sum(x) FROM t"
        try database.execute("BEGIN")
        try database.readAhead([count, total])
        // In any order, each once.
        #expect(try database.scalarInt(total) == 3)
        #expect(try database.scalarInt(count) == 2)
        #expect(try database.scalarInt(count) == 2)
        // A statement run between the reading and the asking: the read is asked again.
        try database.readAhead([count, total])
        try database.execute("INSERT INTO t VALUES (4)")
        #expect(try database.scalarInt(count) == 3)
        #expect(try database.scalarInt(total) == 7)
        // A statement deferred between them counts as one.
        try database.readAhead([count])
        try database.executeWithNext("INSERT INTO t VALUES (8)")
        #expect(try database.scalarInt(count) == 4)
        try database.execute("COMMIT")
        // A read ahead that fails is said at once, and the connection is left as it was.
        #expect(throws: PostgresError.self) { try database.readAhead([count, "SELECT x FROM missing_table", total]) }
        try database.readAhead([total, count])
        #expect(try database.scalarInt(count) == 4)
        #expect(try database.scalarInt(total) == 15)
    } }

    @Test func aKeptConnectionThatTheServerClosedIsKnownClosed() throws { try Self.withDatabase { database, cluster in
        #expect(database.isOpen())
        let pid = try #require(try database.scalarInt("SELECT pg_backend_pid()"))
        _ = try cluster.psql("SELECT pg_terminate_backend(\(pid))")
        // The server's farewell reaches the socket a moment after.
        var open = true
        for _ in 0..<50 where open {
            open = database.isOpen()
            if open { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(!open, "a connection the server closed was said open")
        #expect(throws: PostgresError.self) { try database.execute("SELECT 1") }
    } }
}
