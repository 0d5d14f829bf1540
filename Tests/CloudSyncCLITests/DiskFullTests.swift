import CloudSyncKinds
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The disk fills up during an import: the store lives on a real 6 MiB tmpfs (mounting one needs
/// root or CAP_SYS_ADMIN; without them the test runner reports the test as skipped).
@Suite(.serialized, .enabled(if: Tmpfs.canMount, "mounting a tmpfs needs root or CAP_SYS_ADMIN: disk-full test skipped"))
struct DiskFullTests {
    @Test func theDiskFillsUpDuringImport() throws {
        let root = try makeTemporaryDirectory()
        let input = root.appendingPathComponent("heart.xml")
        try Data(heartRateExport(count: 150_000).utf8).write(to: input)   // 35 MB of XML, about 10 MB in the store
        let mountPoint = root.appendingPathComponent("small-disk")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        #expect(try Self.mount(mountPoint, size: "6m"))
        defer { _ = try? CLI.run([mountPoint.path], tool: "/bin/umount") }
        let store = mountPoint.appendingPathComponent("staging.sqlite").path

        let full = try CLI.run(["import", input.path, "--store", store])
        #expect(full.status == 74, "\(full.stderr)")
        #expect(full.stderr.contains("the disk is full; the store is intact"), "\(full.stderr)")
        let database = try SQLiteDatabase(path: store, mode: .readOnly)
        #expect(try database.scalarText("PRAGMA integrity_check") == "ok")
        let kept = try StatusQuery(StagingStore(path: store, access: .read)).status().metrics
        #expect(kept == 50_000)   // the first commit; the second did not fit

        // More room, the same command: it continues and ends with every record exactly once.
        #expect(try CLI.run(["-o", "remount,size=64m", mountPoint.path], tool: "/bin/mount").status == 0)
        let again = try CLI.run(["import", input.path, "--store", store])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("100000 new, 50000 already there"), "\(again.stderr)")
        #expect(try StatusQuery(StagingStore(path: store, access: .read)).status().metrics == 150_000)
        #expect(try SQLiteDatabase(path: store, mode: .readOnly).scalarText("PRAGMA integrity_check") == "ok")
    }

    /// The disk fills up under `serve --store`: a push that does not fit is 507 with nothing of it
    /// stored, serve keeps running and answering, and the same push is stored once there is room.
    @Test func theDiskFillsUpDuringAPush() throws {
        let root = try makeTemporaryDirectory()
        let mountPoint = root.appendingPathComponent("small-disk")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        #expect(try Self.mount(mountPoint, size: "2m"))
        defer { _ = try? CLI.run([mountPoint.path], tool: "/bin/umount") }
        let store = mountPoint.appendingPathComponent("staging.sqlite").path
        let serve = try ServeProcess(["--store", store], directory: root)
        defer { _ = serve.stop() }
        func push(_ index: Int) throws -> (status: Int, object: [String: Any]) {
            let points = (0..<400).map { minute -> String in
                let at = String(format: "2025-02-%02d %02d:%02d:00 +0000", 1 + index, minute / 60, minute % 60)
                return #"{"date":"\#(at)","start":"\#(at)","end":"\#(at)","qty":\#(minute + 1),"source":"Watch"}"#
            }
            let body = #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[\#(points.joined(separator: ","))]}]}}"#
            return try ServeProcess.request("POST", serve.url + "/health-auto-export", body: Data(body.utf8))
        }
        var stored = 0, refused: (index: Int, reply: [String: Any])?
        for index in 0..<27 {
            let reply = try push(index)
            if reply.status == 200 { stored += reply.object["stored"] as? Int ?? 0; continue }
            #expect(reply.status == 507, "\(reply)")
            refused = (index, reply.object)
            break
        }
        let full = try #require(refused, "2 MiB held every push")
        #expect((full.reply["detail"] as? String)?.contains("disk is full; nothing was stored") == true, "\(full.reply)")
        #expect(try ServeProcess.request("GET", serve.url + "/health").status == 200)
        #expect(try SQLiteDatabase(path: store, mode: .readOnly).scalarInt("SELECT count(*) FROM metric") == Int64(stored))
        #expect(try CLI.run(["-o", "remount,size=64m", mountPoint.path], tool: "/bin/mount").status == 0)
        let again = try push(full.index)
        #expect(again.status == 200 && again.object["stored"] as? Int == 400, "\(again)")
        #expect(try SQLiteDatabase(path: store, mode: .readOnly).scalarInt("SELECT count(*) FROM metric") == Int64(stored + 400))
    }

    static func mount(_ point: URL, size: String) throws -> Bool {
        try CLI.run(["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", point.path], tool: "/bin/mount").status == 0
    }
}

/// Whether this machine lets the tests mount a tmpfs (tried once, for real).
enum Tmpfs {
    static let canMount: Bool = {
        guard let point = try? makeTemporaryDirectory().appendingPathComponent("probe") else { return false }
        try? FileManager.default.createDirectory(at: point, withIntermediateDirectories: true)
        guard (try? DiskFullTests.mount(point, size: "1m")) == true else { return false }
        _ = try? CLI.run([point.path], tool: "/bin/umount")
        return true
    }()
}
