import ArgumentParser
import CloudSyncKinds
import CloudSyncStore

/// `--store PATH`, shared by the store commands.
struct StoreOptions: ParsableArguments {
    @Option(help: "The staging store (default: $CLOUDSYNC_STORE, else $XDG_DATA_HOME/cloudsync/staging.sqlite, else ~/.local/share/cloudsync/staging.sqlite).")
    var store: String?

    var path: String { store ?? StoreLocation.defaultPath() }

    /// Opens the store, turning failures into a message and exit status 73 (cannot create) or 75 (locked).
    func open(_ access: StagingStore.Access) throws -> StagingStore {
        do {
            return access == .read ? try StagingStore.openForReading(path: path) : try StagingStore(path: path, access: access)
        } catch let error as StoreError {
            printError(error.description)
            throw ExitStatus.code(for: error)
        }
    }
}
