import Foundation

/// A new store's first import as a bulk load: the store is written into a file beside its path
/// that no other process knows of (no write-ahead log writing each page twice, no syncs, no locks
/// shared with other writers) and linked at its path when the import ends (`NewStoreFile`). Until
/// then nothing is at the path: a reader finds no store, as before the import, and a process killed
/// meanwhile leaves the path as it was (what it left beside is removed by the next store made
/// there). Paired: the 100 MB import 0.790 -> 0.675 s, the 1 GB one 1.82x -> 1.67x the floor (docs/performance.md).
///
/// A store another process made at the path meanwhile (`serve --store` started, another import
/// ended first) is kept: `linkIntoPlace` says so, and the caller imports into it instead.
public final class NewStoreLoad {
    /// The store's path, where the file goes when the import ends.
    public let path: String
    /// The file beside the path.
    private let file: String
    private let configuration: StagingStore.Configuration

    private init(path: String, file: String, configuration: StagingStore.Configuration) {
        self.path = path
        self.file = file
        self.configuration = configuration
    }

    /// A bulk load of the store at `path`, made beside it with its schema; nil when a store (or
    /// anything) is at the path, or its file cannot be made beside it (no hard links there, no
    /// room, no right to write): the import then opens the path as any other, which says why.
    public static func begin(at path: String, configuration: StagingStore.Configuration) -> NewStoreLoad? {
        var status = stat()
        guard lstat(path, &status) != 0, errno == ENOENT else {
            // No store is made here (`makeBeside` removes them when one is): what a maker killed
            // after its link left beside the store goes now.
            NewStoreFile.removeAbandoned(beside: path)
            return nil
        }
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try? PrivateFile.createDirectory(directory) }
        guard let file = try? NewStoreFile.makeBeside(path, kinds: configuration.kinds) else { return nil }
        return NewStoreLoad(path: path, file: file, configuration: configuration)
    }

    /// The store to import into, on the file beside the path. Released before `linkIntoPlace`,
    /// which needs its connection closed.
    public func open() throws -> StagingStore {
        try StagingStore(path: path, access: .write, configuration: configuration, writtenAlone: file)
    }

    /// Puts the store at its path (in the write-ahead log's mode, on the disk): false when another
    /// process made a store there meanwhile, which is left as it is. The file beside is removed
    /// either way.
    public func linkIntoPlace() throws -> Bool {
        defer { discard() }
        do {
            return try NewStoreFile.linkIntoPlace(file, at: path)
        } catch let error as SQLiteError {
            throw StoreError.sqlite(error)
        }
    }

    /// Throws the file beside away: nothing of this import is kept.
    public func discard() { NewStoreFile.removeFiles(of: file) }
}
