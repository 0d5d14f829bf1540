public import CloudSyncKinds
public import CloudSyncStore
public import Foundation

/// A staging store for one test: a fresh temporary directory, the store's path in it, the store
/// opened as the commands open it (every kind of the registry), input files written beside it, and
/// the directory removed when the fixture goes.
///
/// Keep the fixture for as long as its stores are used (`let fixture = try StoreFixture()`): its
/// directory goes with it. A store it opened that is still alive then (held elsewhere) keeps the
/// directory, left in the temporary folder, rather than losing its file under it.
public final class StoreFixture {
    /// The test's own directory.
    public let directory: URL
    /// The store's file: `staging.sqlite` in the directory (nothing is there until a store opens it).
    public let path: String
    private var opened: [Weak] = []
    private var files = 0

    private struct Weak { weak var store: StagingStore? }

    public init(_ name: String = #function) throws {
        directory = try makeTemporaryDirectory(name)
        path = directory.appendingPathComponent("staging.sqlite").path
    }

    /// Opens the store at `path` (made on the first `.write`), keeping every kind unless told otherwise.
    public func open(_ access: StagingStore.Access = .write, configuration: StagingStore.Configuration = .standard) throws -> StagingStore {
        let store = try StagingStore(path: path, access: access, configuration: configuration)
        opened.append(Weak(store: store))
        return store
    }

    /// Opens the store for reading, as the reading commands do (an older schema is refused: a
    /// reader never upgrades a store).
    public func openForReading(configuration: StagingStore.Configuration = .standard) throws -> StagingStore {
        let store = try StagingStore.openForReading(path: path, configuration: configuration)
        opened.append(Weak(store: store))
        return store
    }

    /// Writes `text` into the directory as `name` (by default `export-1.xml`, `export-2.xml`, … one
    /// name per file) and returns its path: an export to import.
    @discardableResult
    public func file(_ text: String, named name: String? = nil) throws -> String {
        files += 1
        return try writeFile(text, named: name ?? "export-\(files).xml", in: directory)
    }

    /// The path of `name` in the directory (nothing is written).
    public func path(of name: String) -> String { directory.appendingPathComponent(name).path }

    /// The store's file and SQLite's files beside it, as they are on disk now.
    public var storeFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasPrefix("staging.sqlite") }.sorted()
    }

    deinit {
        guard opened.allSatisfy({ $0.store == nil }) else { return }
        try? FileManager.default.removeItem(at: directory)
    }
}
