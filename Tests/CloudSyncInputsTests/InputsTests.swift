import CloudSyncHealthAutoExport
import CloudSyncKinds
import CloudSyncInputs
import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// CloudSyncInputs as a program that depends on the library uses it: which source an input a person
/// names is, and the sources run into the store's one door.
@Suite struct InputsTests {
    static let samples = Paths.repository.appendingPathComponent("samples")

    @Test func whatAnInputIs() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let zip = Self.samples.appendingPathComponent("export.zip").path, xml = Self.samples.appendingPathComponent("export.xml").path
        let document = Self.samples.appendingPathComponent("health-auto-export.json").path
        #expect(NamedInput(zip) == .export(zip))
        #expect(NamedInput(xml) == .export(xml))
        #expect(NamedInput(document) == .healthAutoExport([document]))
        // A JSON file that is not the app's document is taken for an export (and said damaged there).
        let other = dir.appendingPathComponent("other.json").path
        try Data("[1, 2, 3]".utf8).write(to: URL(fileURLWithPath: other))
        #expect(NamedInput(other) == .export(other))
        // A folder: its JSON documents, in name order, hidden files and other kinds left out.
        let folder = dir.appendingPathComponent("automation")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["HealthAutoExport-2024-01-02.json", "HealthAutoExport-2024-01-01.json", ".partial.json", "notes.txt"] {
            try Data(contentsOf: URL(fileURLWithPath: document)).write(to: folder.appendingPathComponent(name))
        }
        #expect(NamedInput(folder.path) == .healthAutoExport(["HealthAutoExport-2024-01-01.json", "HealthAutoExport-2024-01-02.json"]
            .map { folder.appendingPathComponent($0).path }))
        // What is not there is an export to open, which says so then.
        #expect(NamedInput(dir.appendingPathComponent("missing.zip").path) == .export(dir.appendingPathComponent("missing.zip").path))
    }

    @Test func anExportThroughTheOneDoorIsStoredOnce() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try StagingStore(path: dir.appendingPathComponent("store.sqlite").path, access: .write)
        let first = try store.importExport(Self.samples.appendingPathComponent("export.zip").path)
        #expect(first.stored.new == 24 && first.stored.already == 0)
        #expect(first.stored.records["routes"]?.new == 2, "\(first.stored.records)")
        let again = try store.importExport(Self.samples.appendingPathComponent("export.xml").path)
        #expect(again.stored.new == 0 && again.stored.already == 24)
    }

    /// A document is all or nothing: one that fails half-way stores none of its rows, nor a run.
    @Test func aDocumentIsStoredWholeOrNotAtAll() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("store.sqlite").path
        let store = try StagingStore(path: path, access: .write)
        let good = try HealthAutoExportDocument(path: Self.samples.appendingPathComponent("health-auto-export.json").path)
        let stored = try store.importDocument(good)
        #expect(stored.stored.new > 0)
        let damaged = HealthAutoExportDocument(bytes: Array(#"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"2025-03-10 00:00:00 -0800","qty":1},{"date":"yesterday","qty":2}]}]}}"#.utf8),
                                               name: "damaged")
        #expect(throws: (any Error).self) { try store.importDocument(damaged) }
        let database = try SQLiteDatabase(path: path, mode: .readOnly)
        #expect(try database.scalarInt("SELECT count(*) FROM metric") == Int64(stored.stored.new))
        #expect(try database.scalarInt("SELECT count(*) FROM import_run") == 1)
    }
}
