import ArgumentParser
import CloudSyncKinds
import CloudSyncStore

/// `--store PATH`, shared by the store commands.
struct StoreOptions: ParsableArguments {
    @Option(help: "The staging store (default: $CLOUDSYNC_STORE, else $XDG_DATA_HOME/cloudsync/staging.sqlite, else ~/.local/share/cloudsync/staging.sqlite).")
    var store: String?

    var path: String { store ?? StoreLocation.defaultPath() }

    /// Opens the store, turning failures into a message and its exit status. A writer that
    /// upgrades the store's schema says so on stderr.
    func open(_ access: StagingStore.Access) throws -> StagingStore {
        do {
            return try StagingStore(path: path, access: access, configuration: .saying)
        } catch let error as StoreError {
            printError(error.description)
            throw ExitStatus.code(for: error)
        }
    }
}

extension StagingStore.Configuration {
    /// The standard kinds, and a schema upgrade said on stderr.
    static var saying: Self {
        var configuration = Self.standard
        configuration.onUpgrade = sayUpgrade
        return configuration
    }
}

/// "upgrading the store …": an upgrade holds the store's write lock until it ends.
func sayUpgrade(_ path: String, from: Int, to: Int) {
    printError("\(path): upgrading the store from schema \(from) to \(to) (other cloudsync commands that write wait until it ends)")
}
