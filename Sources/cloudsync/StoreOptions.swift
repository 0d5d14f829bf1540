import ArgumentParser
import CloudSyncKinds
import CloudSyncReceiver
import CloudSyncStore

/// `--store PATH [--user NAME]`, shared by the store commands.
struct StoreOptions: ParsableArguments {
    @Option(help: "The staging store (default: $CLOUDSYNC_STORE, else $XDG_DATA_HOME/cloudsync/staging.sqlite, else ~/.local/share/cloudsync/staging.sqlite).")
    var store: String?

    @Option(help: ArgumentHelp("A patient of a clinic's server: with --store FILE (the --db FILE of serve) their store in FILE-patients/; "
                               + "with --store postgres://USER@HOST[:PORT]/DB (the --db of serve) their rows there.",
                               valueName: "NAME"))
    var user: String?

    /// The store: `--store`, or with `--user` that patient's store of the server's database.
    var address: StoreAddress {
        let named = store ?? StoreLocation.defaultPath()
        guard let user else { return .file(named) }
        if StoreAddress.isPostgres(named) { return .postgres(address: named, owner: user) }
        return .file(PatientStoreFolder.path(of: user, in: PatientStoreFolder.folder(besideDatabase: named)))
    }

    /// The store's file (a clinic's PostgreSQL has none: its address, as messages say it).
    var path: String {
        if case .file(let path) = address { return path }
        return address.description
    }

    /// Whether the store is a patient's rows in a clinic's PostgreSQL.
    var isPostgres: Bool {
        if case .postgres = address { return true }
        return false
    }

    func validate() throws {
        guard let user else {
            if let store, StoreAddress.isPostgres(store) {
                throw ValidationError("--store \(StoreAddress.shown(store)) is a clinic's PostgreSQL, which holds many patients: "
                                      + "name one with --user NAME")
            }
            return
        }
        guard store != nil else {
            throw ValidationError("--user \(user) names a patient of a server's database: give that database too (--store FILE)")
        }
        guard ReceiverUsers.isName(user) else {
            throw ValidationError("--user '\(user)' is not a user name: it holds letters, digits, '.', '_' and '-' only")
        }
    }

    /// Opens the store, turning failures into a message and its exit status. A writer that
    /// upgrades the store's schema says so on stderr.
    func open(_ access: StagingStore.Access) throws -> StagingStore {
        do {
            return try address.open(access, configuration: .saying)
        } catch let error as StoreError {
            if case .missing = error, let user, let store {
                printError("\(path): no store for \(user) yet: nothing was pushed or uploaded with their token to the server of "
                           + StoreAddress.shown(store))
            } else {
                printError(error.description)
            }
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
