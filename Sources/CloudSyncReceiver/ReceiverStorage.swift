import CloudSyncStore
import Foundation
import ServiceLifecycle

/// What the receiver keeps of its own, beside the patients' health data (which goes into their
/// stores, `PatientStores`, whatever route it came by): the Flō backfill's state, pairings, and the
/// log of requests. The handlers speak only to this protocol, never SQL: each backend (SQLite, the
/// default; PostgreSQL for several instances) implements it with its own SQL, and every method is
/// one transaction. `owner` is the user whose token the request carried (`default` without
/// `--tokens`): every row belongs to one, and no method reads or counts another owner's rows.
///
/// Receivers before this version kept CloudCare metrics, Flō samples and steps in tables of their
/// own (`cloudcare_metric`, `flo_sample`, `steps_sample`, and an SQLite receiver's steps JSONL
/// files): nothing reads or writes them now, and erasing a patient still removes their rows there.
protocol ReceiverStorage: Sendable {
    /// What must run for the storage to answer (PostgreSQL's connection pool), in the receiver's
    /// service group beside the HTTP server, which stops it after the server; nil when nothing must.
    var service: (any Service)? { get }
    func floState(owner: String) async throws -> FloState
    func markFloBackfillComplete(owner: String, date: String, sampleCount: Int) async throws
    /// Removes every row of `owner` from every table in one transaction (and, in SQLite, the steps
    /// file an older version wrote); returns how many rows of each table went.
    func erase(owner: String) async throws -> [String: Int]
    /// Stores a pairing; returns its id.
    func storePairing(owner: String, _ pairing: ReceivedPairing) async throws -> Int64
    /// Records an answer to a data request (for tests, and for people trying the pipeline).
    func log(owner: String?, path: String, status: Int, count: Int?) async
}

struct FloState: Sendable {
    var backfillComplete: Bool
    var backfillDate: String?
}

struct ReceivedPairing: Sendable {
    var iosUserId: String
    var iosDeviceId: String
    var androidUserId: String
    var deviceName: String?
    var pairedAt: String
}

/// The storage cannot answer now (its database server is down, restarting or too slow): the
/// request is answered 503 with `Retry-After`, and the client sends it again. Nothing of it is
/// acknowledged, and the identities make the retry store each item once.
struct StorageUnavailable: Error, CustomStringConvertible {
    var reason: String
    /// What the 503's `Retry-After` asks of the client, in seconds.
    static let retryAfterSeconds = 2
    var description: String { "the database is unavailable: \(reason)" }
}

/// The tables that hold a user's rows, each with an `owner` column: what erasing a user empties
/// (the first and third and fourth only as older versions left them).
enum OwnedTables {
    static let names = ["cloudcare_metric", "flo_sample", "flo_state", "steps_sample", "pairing", "request_log"]
}

/// The steps JSONL files an SQLite receiver wrote before steps were store rows: one for the user
/// `default` (`--steps-file`, or the database's path + `.steps.jsonl`), one beside it per other
/// user. Read by nothing; erasing a patient removes theirs.
struct StepsFile: Sendable {
    let path: String

    /// The owner's file.
    func url(for owner: String) -> URL {
        URL(fileURLWithPath: owner == ReceiverUsers.defaultUser ? path : path + "." + owner + ".jsonl")
    }
}
