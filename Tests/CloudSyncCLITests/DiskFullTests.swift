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
