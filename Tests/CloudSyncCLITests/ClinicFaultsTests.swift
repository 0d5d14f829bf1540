import CloudSyncTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 35's faults, on a real PostgreSQL: `kill -9` of a `serve --db postgres://…` and a restart of
/// PostgreSQL, each during a phone's push and during an export upload. What was acknowledged is
/// stored whole; what was not is stored whole or not at all, never half; and sent again, it is taken
/// once. (The CloudCare batches' faults: `ServeClusterTests`, `ServePostgresRestartTests`.)
@Suite(.enabled(if: PostgresCluster.isAvailable, "PostgreSQL is not installed (Debian: postgresql)"))
struct ClinicFaultsTests {
    enum Fault: String, CaseIterable, CustomTestStringConvertible {
        case instanceKilled, databaseRestarted
        var testDescription: String { rawValue }
    }

    /// The export: 40,000 heart rates, about 10 MB of XML.
    static let exportCount = 40_000
    /// The push: heart rates a minute for 14 days (the app's minute-level data, as a phone sends it after a while away).
    static let pushCount = 14 * 1440

    /// Heart rates a minute for 14 days from 2024-05-01, `round` × 14 days later.
    static func push(round: Int) -> Data {
        let start = 1_714_521_600 + round * 14 * 86_400   // 2024-05-01T00:00:00Z
        let points: [[String: Any]] = (0..<pushCount).map { minute in
            let date = Date(timeIntervalSince1970: TimeInterval(start + minute * 60))
            let c = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
            let stamp = String(format: "%04d-%02d-%02d %02d:%02d:00 +0000", c.year!, c.month!, c.day!, c.hour!, c.minute!)
            let rate = 55 + minute % 60
            return ["date": stamp, "Min": rate, "Avg": rate, "Max": rate, "source": "Watch"]
        }
        return try! JSONSerialization.data(withJSONObject: ["data": ["metrics": [["name": "heart_rate", "units": "count/min", "data": points]]]])
    }

    /// alice's stored samples, as PostgreSQL's superuser reads them (row-level security does not hold it).
    static func stored(_ clinic: Clinic) throws -> Int {
        Int(try clinic.cluster.psql("SELECT count(*) FROM metric WHERE owner = 'alice'", database: "clinic")) ?? -1
    }

    /// The clinic: its cluster, its database (of a role of its own) and the folder of its `serve`.
    struct Clinic {
        let cluster: PostgresCluster
        let address: String
        let dir: URL

        /// A `serve` on the clinic's database.
        func serve(name: String = "serve") throws -> ServeProcess {
            let tokens = dir.appendingPathComponent("tokens").path
            if !FileManager.default.fileExists(atPath: tokens) { _ = try ClinicStoresTests.tokensFile(in: dir, ClinicStoresTests.everyone) }
            return try ServeProcess(["--tokens", tokens], directory: dir, database: address, name: name)
        }
    }

    /// A cluster, the clinic's database and one `serve` on it, for `body` (which may put another
    /// `serve` in its place); all stopped and removed after.
    static func withClinic(_ body: (Clinic, inout ServeProcess) throws -> Void) throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let address = try cluster.addOwnedDatabase("clinic", role: "clinic", password: "clinic-password")
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clinic = Clinic(cluster: cluster, address: address, dir: dir)
        var serve = try clinic.serve()
        defer { _ = serve.stop() }
        try body(clinic, &serve)
    }

    /// `request`'s answer once it is not 503 (the database back after a restart), within 30 s.
    static func answered(_ request: () throws -> (status: Int, object: [String: Any])) throws -> (status: Int, object: [String: Any]) {
        let deadline = Date().addingTimeInterval(30)
        var answer = try request()
        while answer.status == 503 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.5)
            answer = try request()
        }
        return answer
    }

    /// Makes the fault happen; the serve that is there after it (a new one for a killed instance).
    static func strike(_ fault: Fault, _ serve: ServeProcess, _ clinic: Clinic) throws -> ServeProcess {
        switch fault {
        case .instanceKilled:
            kill(serve.process.processIdentifier, SIGKILL)
            serve.process.waitUntilExit()
            return try clinic.serve(name: "serve-after")
        case .databaseRestarted:
            try clinic.cluster.stop()
            Thread.sleep(forTimeInterval: 0.5)
            try clinic.cluster.start()
            return serve
        }
    }

    @Test(arguments: Fault.allCases)
    func anExportCutByAFaultKeepsNothingAndIsTakenWholeSentAgain(_ fault: Fault) throws {
        try Self.withClinic { clinic, serve in
            // Three quarters of the body: the import has written rows of it (in its transaction) and waits for the rest.
            let xml = Data(sampleExport(count: Self.exportCount, type: "HKQuantityTypeIdentifierHeartRate", unit: "count/min").utf8)
            let socket = try ClinicStoresTests.connect(port: serve.port)
            let head = "POST /api/v1/exports HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(ClinicStoresTests.alice)\r\n"
                + "Content-Type: application/xml\r\nContent-Length: \(xml.count)\r\n\r\n"
            try ClinicStoresTests.send(Data(head.utf8) + xml.prefix(xml.count * 3 / 4), to: socket)
            Thread.sleep(forTimeInterval: 1.5)
            serve = try Self.strike(fault, serve, clinic)
            // The rest of the body, to a server that may be gone (then the send fails, as the phone's would).
            try? ClinicStoresTests.send(xml.suffix(from: xml.count * 3 / 4), to: socket)
            var answer = [UInt8](repeating: 0, count: 4096)
            let read = recv(socket, &answer, answer.count, 0)
            close(socket)
            let said = read > 0 ? String(decoding: answer.prefix(read), as: UTF8.self) : ""
            #expect(!said.hasPrefix("HTTP/1.1 201"), "an export cut by the fault was acknowledged: \(said)")
            #expect(try Self.stored(clinic) == 0, "\(fault): half of an export that was not acknowledged was kept")

            // Sent again, whole: every sample once.
            let again = try Self.answered {
                try serve.request("POST", "/api/v1/exports", body: xml, token: ClinicStoresTests.alice, headers: ["Content-Type": "application/xml"])
            }
            #expect(again.status == 201 && again.object["stored"] as? Int == Self.exportCount, "\(again.status) \(again.object)")
            #expect(try Self.stored(clinic) == Self.exportCount)
        }
    }

    @Test(arguments: Fault.allCases)
    func aPushCutByAFaultIsStoredWholeOrNotAtAllAndOnceSentAgain(_ fault: Fault) throws {
        try Self.withClinic { clinic, serve in
            // The fault a moment after a push has reached the server: a new push each time. On two cores
            // a push of 20,160 samples takes PostgreSQL about 2 s: the first three strike while it is
            // stored (nothing kept, no answer or 503), the last after its answer (kept whole).
            let delays = [0.05, 0.3, 1.0, 4.0]
            for (round, delay) in delays.enumerated() {
                let body = Self.push(round: round)
                let before = try Self.stored(clinic)
                final class Answer: @unchecked Sendable { var status = 0 }
                let answer = Answer(), sent = DispatchSemaphore(value: 0)
                let url = serve.url
                Thread.detachNewThread {
                    answer.status = (try? ServeProcess.request("POST", url + "/health-auto-export", body: body, token: ClinicStoresTests.alice))?.status ?? 0
                    sent.signal()
                }
                Thread.sleep(forTimeInterval: delay)
                serve = try Self.strike(fault, serve, clinic)
                sent.wait()
                let added = try Self.stored(clinic) - before
                let what = "\(fault), round \(round): the push answered \(answer.status) and \(added) of its \(Self.pushCount) samples were stored"
                if answer.status == 200 {
                    #expect(added == Self.pushCount, "\(what)")
                } else {
                    #expect(answer.status == 0 || answer.status == 503, "\(what)")
                    #expect(added == 0 || added == Self.pushCount, "\(what)")
                }
            }

            // Each push sent again: every sample once, whatever the rounds left.
            for round in delays.indices {
                let again = try Self.answered {
                    try serve.request("POST", "/health-auto-export", body: Self.push(round: round), token: ClinicStoresTests.alice)
                }
                #expect(again.status == 200, "\(again.status) \(again.object)")
            }
            #expect(try Self.stored(clinic) == delays.count * Self.pushCount)
        }
    }
}
