import CloudSyncModel
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
    /// Up to `limit` of the rows an older version kept of `owner` in `table`, after the first
    /// `offset`, in the table's key order, as samples (a row that does not read is counted, not given).
    func legacySamples(owner: String, in table: LegacyTable, offset: Int, limit: Int) async throws -> LegacyChunk
    /// Removes what an older version kept of `owner` in those tables (and, in SQLite, their steps file).
    func dropLegacyRows(owner: String) async throws
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

/// The tables in which an older receiver kept the samples it received (`LegacyReceivedRows` moves
/// them into the patients' stores).
enum LegacyTable: CaseIterable, Sendable {
    case cloudCare, flo, steps

    var name: String {
        switch self {
        case .cloudCare: "cloudcare_metric"
        case .flo: "flo_sample"
        case .steps: "steps_sample"
        }
    }

    /// A row's sample from its stored text: CloudCare's metadata object, Flō's sample as JSON, a
    /// steps line; nil when it does not read.
    static func decode<T: Decodable>(_ type: T.Type, _ text: String) -> T? { try? BodyDecoding.decoder.decode(type, from: Data(text.utf8)) }
}

/// Rows of a `LegacyTable`: the samples of those that read, and how many were read.
struct LegacyChunk: Sendable {
    var samples: [HealthMetric] = []
    var rows = 0

    mutating func add(_ sample: Result<HealthMetric, DateProblem>?) {
        rows += 1
        if case .success(let metric) = sample { samples.append(metric) }
    }
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
