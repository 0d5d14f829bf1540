package import CloudSyncStore
import Foundation

/// Where each patient's truth lives: the staging store that takes their Health Auto Export pushes
/// and their exports, and counts each sample once by the store's rule (docs/store.md). The routes
/// that write a patient's data speak only to this protocol:
/// - `serve --store PATH`: one person's store (`PersonalStore`);
/// - `serve --db FILE`: one store per patient, in a folder beside the receiver's file
///   (`PatientStoreFolder`);
/// - `serve --db postgres://…`: each patient's rows in the store's tables of that database
///   (`PostgresPatientStores`).
/// A write runs on a thread of its own (an import is synchronous SQLite work, never for the server's
/// event loops), after the patient's writes before it: one writer per patient at a time, patients
/// side by side.
package protocol PatientStores: Sendable {
    /// Runs `body` with `owner`'s store open for writing; what it returned or threw.
    func write<T: Sendable>(owner: String, _ body: @escaping @Sendable (StagingStore) throws -> T) async -> Result<T, any Error>
    /// Removes `owner`'s store, if one is here: the rows it held, by table (empty when none).
    func erase(owner: String) async throws -> [String: Int]
    /// The store to read `owner`'s data from, when there is one.
    func reading(of owner: String) -> StoreAddress?
    /// Where a patient's data goes, in words for the start line (`into health.sqlite`).
    var destination: String { get }
    /// How a store of theirs is opened (its kinds, its waits).
    var configuration: StagingStore.Configuration { get }
}

extension PatientStores {
    /// Runs `body` with `owner`'s store open for reading, on a thread of its own (beside the
    /// patient's writes: a reader sees the store as their last commit left it); nil when the patient
    /// has no store here yet.
    package func read<T: Sendable>(owner: String, _ body: @escaping @Sendable (StagingStore) throws -> T) async -> Result<T, any Error>? {
        guard let address = reading(of: owner) else { return nil }
        let configuration = configuration
        let read = await onThreadOfItsOwn { try body(try address.open(.read, configuration: configuration)) }
        if case .failure(StoreError.missing(_)) = read { return nil }
        return read
    }
}

/// `serve --store`: the one person's store, open for the server's life; every token writes into it.
package final class PersonalStore: PatientStores, @unchecked Sendable {
    private let store: StagingStore
    /// The store's writes one at a time, each waiting `wait` at most (an export uploaded takes minutes:
    /// a push behind it is told to come again, as on a clinic's server).
    private let turns: WriteTurnsByOwner

    /// `store` is opened for writing and used by nothing else from now on.
    package init(store: StagingStore, wait: Double) {
        self.store = store
        turns = WriteTurnsByOwner(wait: wait)
    }

    package var path: String { store.path }

    package var configuration: StagingStore.Configuration { store.configuration }

    package func write<T: Sendable>(owner: String, _ body: @escaping @Sendable (StagingStore) throws -> T) async -> Result<T, any Error> {
        // `self` (unchecked Sendable) carries the store: one write holds it at a time (the turn).
        await turns.inTurn(of: "") {
            defer { self.store.checkpointUnlessImporting() }   // the log into the file, unless an import beside does it
            return try body(self.store)
        }
    }

    /// The person's own store is theirs to keep: an erase of the receiver's rows leaves it.
    package func erase(owner: String) async throws -> [String: Int] { [:] }

    package var destination: String { "into \(store.path)" }

    /// The person's store, whoever asks (their server has no other).
    package func reading(of owner: String) -> StoreAddress? { .file(store.path) }
}

/// `serve --db FILE` (SQLite): each patient's store is `NAME.sqlite` in one folder (made 0700, the
/// stores 0600), opened for each write and closed after it, so that a thousand patients hold no
/// thousand connections, and a patient's file is a whole store that every command reads
/// (`status --store FOLDER/NAME.sqlite`). User names hold no `/` (`ReceiverUsers.isName`).
package final class PatientStoreFolder: PatientStores, @unchecked Sendable {
    package let folder: String
    package let configuration: StagingStore.Configuration
    private let turns: WriteTurnsByOwner

    /// The folder beside the receiver's SQLite file: `clinic.sqlite` → `clinic-patients/`.
    package static func folder(besideDatabase path: String) -> String {
        URL(fileURLWithPath: path).deletingPathExtension().path + "-patients"
    }

    package init(folder: String, configuration: StagingStore.Configuration, wait: Double) {
        self.folder = folder
        self.configuration = configuration
        turns = WriteTurnsByOwner(wait: wait)
    }

    /// `owner`'s store.
    package func path(of owner: String) -> String { Self.path(of: owner, in: folder) }

    /// `owner`'s store in `folder`.
    package static func path(of owner: String, in folder: String) -> String { folder + "/" + owner + ".sqlite" }

    package func write<T: Sendable>(owner: String, _ body: @escaping @Sendable (StagingStore) throws -> T) async -> Result<T, any Error> {
        let path = path(of: owner)
        let configuration = configuration
        return await turns.inTurn(of: owner) {
            try body(try StagingStore(path: path, access: .write, configuration: configuration))
        }
    }

    /// Counts the store's rows, then removes its files (the database, its WAL, shared-memory and lock
    /// files), after the patient's writes in flight.
    package func erase(owner: String) async throws -> [String: Int] {
        let path = path(of: owner)
        let configuration = configuration
        return try await turns.inTurn(of: owner) { () -> [String: Int] in
            guard FileManager.default.fileExists(atPath: path) else { return [:] }
            let counts = try StagingStore(path: path, access: .read, configuration: configuration).rowCounts()
            for file in [path, path + "-wal", path + "-shm", path + ".lock"] where FileManager.default.fileExists(atPath: file) {
                try FileManager.default.removeItem(atPath: file)
            }
            return counts.filter { $0.value > 0 }.mapKeys { "store." + $0 }
        }.get()
    }

    package var destination: String { "into each patient's store in \(folder)/" }

    package func reading(of owner: String) -> StoreAddress? {
        FileManager.default.fileExists(atPath: path(of: owner)) ? .file(path(of: owner)) : nil
    }
}

extension Dictionary {
    fileprivate func mapKeys(_ transform: (Key) -> String) -> [String: Value] {
        Dictionary<String, Value>(uniqueKeysWithValues: map { (transform($0.key), $0.value) })
    }
}

/// A patient's store stayed taken by their other writes longer than the wait (503, Retry-After).
package struct PatientStoreBusy: Error, Sendable {
    package var seconds: Double
}

/// `serve --db postgres://…`: each patient's store is their rows of the store's tables in that
/// database (`StagingStore.open(postgres:owner:…)`), every row carrying its owner and every
/// connection seeing only its owner's. A write runs on a thread of its own with a connection of the
/// patient's (one left by their last write, else a new one: `OpenStores`), and takes the patient's
/// turn in PostgreSQL (an advisory lock), so that the patient's writes take turns across every
/// `serve` on the database; past the wait (`lock_timeout`) it fails as busy (503).
package final class PostgresPatientStores: PatientStores, @unchecked Sendable {
    private let address: String
    package let configuration: StagingStore.Configuration
    private let open = OpenStores(limit: 32)

    /// `configuration.writeWait`: how long a write waits for the patient's writes before it.
    package init(address: String, configuration: StagingStore.Configuration) {
        self.address = address
        self.configuration = configuration
    }

    private func store(of owner: String) -> StoreAddress { .postgres(address: address, owner: owner) }

    /// Makes the store's tables if the database has none yet, or checks that this cloudsync made them.
    package func prepare() throws {
        try StagingStore.prepare(postgres: address, configuration: configuration)
    }

    package func write<T: Sendable>(owner: String, _ body: @escaping @Sendable (StagingStore) throws -> T) async -> Result<T, any Error> {
        let store = store(of: owner)
        let configuration = configuration
        let open = open
        return await onThreadOfItsOwn {
            // A connection left open may have been closed by the server since (a restart): asked
            // first, and a new one made instead. (Not the write tried again: an export's body is read
            // as it streams in, once.)
            let opened: StagingStore
            if let left = open.take(owner), left.answers() {
                opened = left
            } else {
                opened = try store.open(.write, configuration: configuration)
            }
            let result = try body(opened)
            open.leave(opened, of: owner)
            return result
        }
    }

    /// Removes every row of the patient's store, in one transaction; a database where no store was
    /// ever made holds none.
    package func erase(owner: String) async throws -> [String: Int] {
        let store = store(of: owner)
        let configuration = configuration
        return try await onThreadOfItsOwn { () -> [String: Int] in
            let opened: StagingStore
            do {
                opened = try store.open(.read, configuration: configuration)
            } catch StoreError.missing {
                return [:]
            }
            self.open.forget(owner)   // their connections' store has no identity after this
            let erased = try opened.eraseOwnersRows().mapKeys { "store." + $0 }
            StagingStore.dropPartitions(postgres: self.address, owner: owner)
            return erased
        }.get()
    }

    package var destination: String { "into each patient's rows of the store's tables in \(PostgresDatabase.withoutPassword(address))" }

    package func reading(of owner: String) -> StoreAddress? { store(of: owner) }
}

/// The patients' stores that a write left open, a connection each, for their next write: opening
/// one (a connection, its role and settings, the schema's check, the identity) took more of
/// PostgreSQL's time than a batch of 1,000 metrics, and its statements are prepared again on a new
/// connection. At most `limit` are kept, the oldest closed first. A store is left only when its
/// write ended outside a transaction.
final class OpenStores: @unchecked Sendable {
    private let limit: Int
    private let lock = NSLock()
    /// Oldest first.
    private var stores: [(owner: String, store: StagingStore)] = []

    init(limit: Int) { self.limit = limit }

    func take(_ owner: String) -> StagingStore? {
        lock.withLock {
            guard let index = stores.lastIndex(where: { $0.owner == owner }) else { return nil }
            return stores.remove(at: index).store
        }
    }

    func leave(_ store: StagingStore, of owner: String) {
        guard !store.isInTransaction else { return }
        lock.withLock {
            stores.append((owner, store))
            if stores.count > limit { stores.removeFirst() }
        }
    }

    func forget(_ owner: String) {
        lock.withLock { stores.removeAll { $0.owner == owner } }
    }
}

/// Each owner's writes one at a time, on threads of their own, a write waiting at most `wait` for the
/// owner's writes before it (an export being imported): past it, `PatientStoreBusy` (503 with
/// Retry-After), as SQLite's own lock wait does for another instance. Owners' writes go side by side.
final class WriteTurnsByOwner: @unchecked Sendable {
    private let wait: Double
    private let lock = NSLock()
    /// One lock per owner who wrote since the start.
    private var turns: [String: NSLock] = [:]

    init(wait: Double) { self.wait = wait }

    private func turn(of owner: String) -> NSLock {
        lock.withLock {
            if let turn = turns[owner] { return turn }
            let turn = NSLock()
            turns[owner] = turn
            return turn
        }
    }

    /// Runs `body` on a thread of its own once the owner's turn is free (at most `wait` from now).
    /// (Under a busy test run, on Dispatch's global queue, a write began 52 s after it was asked for.)
    func inTurn<T: Sendable>(of owner: String, _ body: @escaping @Sendable () throws -> T) async -> Result<T, any Error> {
        let turn = turn(of: owner)
        let wait = wait
        let deadline = Date().addingTimeInterval(wait)
        return await onThreadOfItsOwn {
            guard turn.lock(before: deadline) else { throw PatientStoreBusy(seconds: wait) }
            defer { turn.unlock() }
            return try body()
        }
    }
}

/// Runs `body` on a thread of its own: store work is synchronous (SQLite, libpq), never for the
/// server's event loops, and not for Dispatch's global queue, whose threads are as many as the
/// cores: an import of a minute, or a write waiting for one, would hold the others behind it.
func onThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async -> Result<T, any Error> {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: Result { try body() }) }.start()
    }
}
