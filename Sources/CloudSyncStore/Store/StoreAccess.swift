import CloudSyncModel
import Foundation

/// What each part of the store stands on: its connection, its path (for messages, and for a reader
/// that opens a connection of its own), and how it was configured. The parts are the schema
/// (`StoreSchema`, `KindTables`), an import (`ImportSession`), the queries (`StoreQueries`) and the
/// upload ledger (`UploadLedger`); `StagingStore` opens the file and hands them out.
protocol StoreAccess {
    var database: any StoreDatabase { get }
    var path: String { get }
    var configuration: StagingStore.Configuration { get }
}

extension StoreAccess {
    /// Runs `body`, turning the engine's failures into `StoreError`s that name the store.
    func storeErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw StoreError.sqlite(error)
        } catch let error as PostgresError {
            throw StoreError.postgres(error)
        }
    }

    static var now: Int64 { StoreClock.now }

    /// The `userId` and `deviceId` made once, on the store's first use (as the iOS app does on
    /// first launch), sent with every CloudCare envelope.
    func identity() throws -> CloudCareIdentity {
        CloudCareIdentity(userId: try database.scalarText("SELECT value FROM identity WHERE key = 'userId'") ?? "",
                          deviceId: try database.scalarText("SELECT value FROM identity WHERE key = 'deviceId'") ?? "")
    }
}

/// The time the store writes into its runs and ledgers: seconds since 1970.
enum StoreClock {
    static var now: Int64 { Int64(Date().timeIntervalSince1970) }
}
