import CloudSyncModel
import CloudSyncTesting
import Foundation
import Testing

/// `serve` on PostgreSQL through three restarts (`pg_ctl stop -m fast`) under 16 writers: every
/// request is answered in time (201, or 503 while the database is away), none waits for a query
/// PostgresNIO lost with its connection, every batch acknowledged is stored, and SIGTERM then
/// stops serve cleanly. The writers are threads, not tasks: the answer times measured are serve's,
/// whatever other suites do to this process's cooperative threads.
@Suite(.enabled(if: PostgresCluster.isAvailable, "PostgreSQL is not installed (Debian: postgresql)"))
struct ServePostgresRestartTests {
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var acknowledged: Set<String> = [], unavailable = 0, other: [String] = [], slowest = 0.0
        func add(_ body: (Tally) -> Void) { lock.lock(); body(self); lock.unlock() }
        func record(batch: String, status: Int, stored: Int?, detail: String?, seconds: Double) {
            add {
                $0.slowest = max($0.slowest, seconds)
                switch status {
                case 201 where stored == 100: $0.acknowledged.insert(batch)
                case 503: $0.unavailable += 1
                default: $0.other.append("\(batch): \(status) after \(seconds) s: \(detail ?? "")")
                }
            }
        }
    }

    /// A batch's start, in seconds since 1970: its metrics are told apart by their end.
    static func start(of batch: Int) -> Int { 1_735_689_600 + batch }

    static func envelope(writer: Int, batch: Int) -> [String: Any] {
        let date = { (seconds: Int) in UTCDateFormatter.string(Int64(seconds)) }
        let metrics: [[String: Any]] = (0..<100).map { index in
            ["type": "w\(writer)", "startDate": date(start(of: batch)), "endDate": date(start(of: batch) + 1000 + index), "value": index,
             "unit": "count", "sourceApp": "Watch", "metadata": [String: String]()]
        }
        return ["userId": "u", "deviceId": "d", "exportTimestamp": "2025-11-13T06:49:53Z",
                "dataRange": ["startDate": "2025-11-12T06:49:53Z", "endDate": "2025-11-13T06:49:53Z"], "metrics": metrics]
    }

    @Test func everyRequestIsAnsweredInTimeAndEveryAcknowledgedBatchIsStored() throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let serve = try ServeProcess([], directory: dir, database: cluster.url())
        defer { _ = serve.stop() }
        let endpoint = serve.url + "/api/v1/wearables/import/apple-health"
        let tally = Tally()
        let until = Date().addingTimeInterval(14)
        let done = DispatchGroup()
        for writer in 0..<16 {
            done.enter()
            Thread {
                defer { done.leave() }
                var batch = 0
                while Date() < until {
                    batch += 1
                    let started = Date()
                    // serve answers within its 5 s deadline; a request waiting for a lost query would never be
                    // answered, and the client gives up on it (status 0) after 30 s or more.
                    let answer = try? ServeProcess.request("POST", endpoint, json: Self.envelope(writer: writer, batch: batch), timeout: 30)
                    tally.record(batch: "w\(writer) \(Self.start(of: batch))", status: answer?.status ?? 0, stored: answer?.object["stored_count"] as? Int,
                                 detail: answer?.object["detail"] as? String,
                                 seconds: Date().timeIntervalSince(started))
                    if answer?.status == 503 { Thread.sleep(forTimeInterval: 0.1) }
                }
            }.start()
        }
        for _ in 0..<3 {
            Thread.sleep(forTimeInterval: 2)
            try cluster.stop()
            Thread.sleep(forTimeInterval: 2)
            try cluster.start()
        }
        done.wait()
        let failures = tally.other.count
        #expect(failures == 0, "\(tally.other.prefix(3))")
        // A request lost by the pool hung for 40 s and more (vapor/postgres-nio#487); serve's deadline
        // is 5 s. The bound tells the two apart on a loaded machine too.
        #expect(tally.slowest < 30, "slowest answer: \(tally.slowest) s (serve's deadline is 5 s)")
        #expect(tally.unavailable > 0, "the restarts went unnoticed")
        #expect(!tally.acknowledged.isEmpty)
        // Each batch is new: one acknowledged is all there. (One answered 503 may be there too: its
        // COMMIT went through and the answer did not.)
        let stored = Set(try cluster.psql("""
            SELECT t.name || ' ' || m.start_date FROM metric m JOIN metric_type t ON t.owner = m.owner AND t.id = m.type_id
            GROUP BY 1 HAVING count(*) = 100
            """)
            .split(separator: "\n").map(String.init))
        let lost = tally.acknowledged.subtracting(stored)
        #expect(lost.isEmpty, "\(lost.count) of \(tally.acknowledged.count) acknowledged batches are not stored: \(lost.sorted().prefix(5))")
        // Having lived through the restarts, serve stops cleanly on SIGTERM, within the graceful limit.
        let started = Date()
        let status = serve.stop()
        // 0: it stopped by itself within its graceful limit (an overrun ends in a crash).
        #expect(status == 0, "serve did not stop cleanly on SIGTERM (\(status)) after \(Date().timeIntervalSince(started)) s: \(serve.log.suffix(600))")
    }
}
