import Foundation

/// Where the receiver keeps what it receives. The handlers speak only to this protocol, never SQL:
/// each storage backend (SQLite today, the default; a database server next) implements it with its
/// own SQL, and every method is one transaction.
protocol ReceiverStorage: Sendable {
    /// Stores the envelope's metrics, each once by its identity; returns how many were new.
    func storeCloudCare(userId: String, deviceId: String, metrics: [ReceivedMetric]) async throws -> Int
    func floState() async throws -> FloState
    func markFloBackfillComplete(date: String, sampleCount: Int) async throws
    /// Stores the samples, each once by `uuid`; returns how many were new.
    func storeFloSamples(_ samples: [ReceivedFloSample]) async throws -> Int
    func stepsCount() async throws -> Int
    func deleteSteps() async throws
    /// Stores the samples, each once by `uuid`, appending the new ones' lines to `file` in the same
    /// transaction (if the file cannot be written, none is marked as stored); returns how many were new.
    func storeSteps(_ samples: [ReceivedStepsSample], appendingTo file: URL) async throws -> Int
    /// Stores a pairing; returns its id.
    func storePairing(_ pairing: ReceivedPairing) async throws -> Int64
    /// Records an answer to a data request (for tests, and for people trying the pipeline).
    func log(path: String, status: Int, count: Int?) async
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
