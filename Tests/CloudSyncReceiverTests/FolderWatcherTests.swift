@testable import CloudSyncReceiver
import CloudSyncKinds
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// `serve --watch`'s folder watcher, looked at directly (`look`, as its thread does once a second)
/// on a real folder and a real store: what it imports, what it leaves, what it says, and that it
/// remembers across a restart (`WatchedFileLedger`).
@Suite struct FolderWatcherTests {
    final class Said: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func add(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    static let sample = Paths.repository.appendingPathComponent("samples/health-auto-export.json")

    func watcher(_ folder: URL, store: String, said: Said) -> FolderWatcher {
        var settings = FolderWatcher.Settings(folder: folder.path, storePath: store, store: .standard)
        settings.settle = 0
        return FolderWatcher(settings: settings, say: { said.add($0) }, imported: {})
    }

    static func metrics(_ store: StagingStore) throws -> Int64 {
        try #require(try SQLiteDatabase(path: store.path, mode: .readOnly).scalarInt("SELECT count(*) FROM metric"))
    }

    @Test func importsEachCompleteFileOnceByContentAndRemembersAcrossARestart() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = dir.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let storePath = dir.appendingPathComponent("store.sqlite").path
        let sample = try Data(contentsOf: Self.sample)
        try sample.write(to: folder.appendingPathComponent("today.json"))
        // Still being written: it does not end as JSON ends.
        try sample.prefix(sample.count / 2).write(to: folder.appendingPathComponent("copying.json"))
        // Neither hidden files nor other kinds are candidates.
        try sample.write(to: folder.appendingPathComponent(".hidden.json"))
        try sample.write(to: folder.appendingPathComponent("notes.txt"))
        // Complete, but not a Health Auto Export document.
        try Data(#"{"data": 5}"#.utf8).write(to: folder.appendingPathComponent("broken.json"))

        let said = Said()
        let store = try StagingStore(path: storePath, access: .write)
        let watcher = watcher(folder, store: storePath, said: said)
        try watcher.look(store)   // each version seen: settling
        #expect(try Self.metrics(store) == 0)
        try watcher.look(store)   // unchanged since: dealt with
        let imported = try Self.metrics(store)
        #expect(imported > 0)
        #expect(watcher.health().imported == 1)
        #expect(said.all.contains { $0.hasPrefix("watch: imported today.json") }, "\(said.all)")
        #expect(watcher.health().problems["broken.json"] != nil, "\(watcher.health())")
        #expect(!said.all.contains { $0.contains("copying.json") || $0.contains("hidden") || $0.contains("notes") }, "\(said.all)")

        // The same content under another name: not imported again.
        try sample.write(to: folder.appendingPathComponent("again.json"))
        try watcher.look(store)
        try watcher.look(store)
        #expect(said.all.contains { $0.contains("again.json: the same content as today.json") }, "\(said.all)")
        #expect(watcher.health().imported == 1)

        // A restart: a new watcher on the store reopened knows every version it dealt with, the
        // damaged one included, and says nothing more.
        let before = said.all.count
        let reopened = try StagingStore(path: storePath, access: .write)
        let restarted = self.watcher(folder, store: storePath, said: said)
        try restarted.look(reopened)
        try restarted.look(reopened)
        #expect(said.all.count == before, "\(said.all.suffix(3))")
        let ledger = WatchedFileLedger(reopened)
        #expect(try ledger.importedCount() == 1)
        #expect(try ledger.problems().map(\.file) == [folder.path + "/broken.json"])
        #expect(try Self.metrics(reopened) == imported)

        // The unfinished file, once complete, is imported (its content is new: half of it was not).
        try sample.write(to: folder.appendingPathComponent("copying.json"))
        try restarted.look(reopened)
        try restarted.look(reopened)
        #expect(said.all.contains { $0.contains("copying.json: the same content as today.json") }, "\(said.all.suffix(3))")
    }

    @Test func candidatesAndEndings() throws {
        #expect(FolderWatcher.isCandidate("export.ZIP") && FolderWatcher.isCandidate("a.json") && FolderWatcher.isCandidate("e.xml"))
        #expect(!FolderWatcher.isCandidate(".a.json") && !FolderWatcher.isCandidate("~a.json") && !FolderWatcher.isCandidate("a.txt"))
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func ends(_ bytes: Data, _ name: String) throws -> Bool {
            let path = dir.appendingPathComponent(name).path
            try bytes.write(to: URL(fileURLWithPath: path))
            return FolderWatcher.endsAsItsKindEnds(path, name: name)
        }
        #expect(try ends(Data("{\"data\":{}}\n  ".utf8), "a.json"))
        #expect(try !ends(Data("{\"data\":{".utf8), "b.json"))
        #expect(try ends(Data("<HealthData/>\n".utf8), "c.xml"))
        let zip = try Data(contentsOf: Paths.repository.appendingPathComponent("samples/export.zip"))
        #expect(try ends(zip, "d.zip"))
        #expect(try !ends(zip.prefix(zip.count - 30), "e.zip"))
    }
}
