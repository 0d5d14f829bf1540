import CloudSyncStore
import Foundation
import ServiceLifecycle

/// Where the receiver keeps what it receives. The handlers speak only to this protocol, never SQL:
/// each storage backend (SQLite, the default; PostgreSQL for several instances) implements it with its
/// own SQL, and every method is one transaction. `owner` is the user whose token the request
/// carried (`default` without `--tokens`): every row belongs to one, and no method reads or counts
/// another owner's rows.
protocol ReceiverStorage: Sendable {
    /// What must run for the storage to answer (PostgreSQL's connection pool), in the receiver's
    /// service group beside the HTTP server, which stops it after the server; nil when nothing must.
    var service: (any Service)? { get }
    /// Stores the envelope's metrics, each once by its identity; returns how many were new.
    func storeCloudCare(owner: String, userId: String, deviceId: String, metrics: [ReceivedMetric]) async throws -> Int
    /// What the owner's CloudCare metrics hold.
    func cloudCareSummary(owner: String) async throws -> CloudCareSummary
    func floState(owner: String) async throws -> FloState
    func markFloBackfillComplete(owner: String, date: String, sampleCount: Int) async throws
    /// Stores the samples, each once by `uuid`; returns how many were new.
    func storeFloSamples(owner: String, _ samples: [ReceivedFloSample]) async throws -> Int
    func stepsCount(owner: String) async throws -> Int
    /// Forgets the owner's steps samples (and, in SQLite, empties their JSONL file).
    func deleteSteps(owner: String) async throws
    /// Stores the samples, each once by `uuid`, with their JSON lines (SQLite appends the new ones'
    /// lines to the owner's `StepsFile` in the same transaction: if the file cannot be written, none
    /// is marked as stored; PostgreSQL keeps each line in its row); returns how many were new.
    func storeSteps(owner: String, _ samples: [ReceivedStepsSample]) async throws -> Int
    /// Removes every row of `owner` from every table in one transaction (and, in SQLite, empties
    /// their steps file); returns how many rows of each table went.
    func erase(owner: String) async throws -> [String: Int]
    /// Stores a pairing; returns its id.
    func storePairing(owner: String, _ pairing: ReceivedPairing) async throws -> Int64
    /// Records an answer to a data request (for tests, and for people trying the pipeline).
    func log(owner: String?, path: String, status: Int, count: Int?) async
}

/// `GET {base}/wearables/metrics/summary`.
struct CloudCareSummary: Sendable {
    var metrics: Int
    var byType: [String: Int]
    var first: String?
    var last: String?
}

/// One metric of a CloudCare envelope, as stored.
struct ReceivedMetric: Sendable {
    var type: String
    var startDate: String
    var endDate: String
    var sourceApp: String
    var value: Double
    var unit: String
    /// The metadata object as JSON.
    var metadata: String
}

struct FloState: Sendable {
    var backfillComplete: Bool
    var backfillDate: String?
}

struct ReceivedFloSample: Sendable {
    var uuid: String
    var dataType: String
    var value: Double
    var unit: String
    var startDate: String
    var endDate: String
    /// The sample as JSON.
    var body: String
}

struct ReceivedStepsSample: Sendable {
    var uuid: String
    /// The sample as one JSON line.
    var line: String
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

/// The steps API's JSONL files of an SQLite receiver: the lines of the samples newly stored are
/// appended inside the transaction that stores them (a file that cannot be written rolls the rows
/// back). One file for the user `default` (`--steps-file`, or the database's path + `.steps.jsonl`),
/// one beside it per other user. A PostgreSQL receiver keeps the lines in its rows instead: a path
/// made from a database address would be no file at all.
/// The tables that hold a user's rows, each with an `owner` column: what erasing a user empties.
enum OwnedTables {
    static let names = ["cloudcare_metric", "flo_sample", "flo_state", "steps_sample", "pairing", "request_log"]
}

struct StepsFile: Sendable {
    let path: String

    /// The owner's file.
    func url(for owner: String) -> URL {
        URL(fileURLWithPath: owner == ReceiverUsers.defaultUser ? path : path + "." + owner + ".jsonl")
    }

    static func append(_ lines: [String], to file: URL) throws {
        var data = Data()
        for line in lines {
            data.append(Data(line.utf8))
            data.append(UInt8(ascii: "\n"))
        }
        PrivateFile.create(file.path)
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: data)
    }
}
