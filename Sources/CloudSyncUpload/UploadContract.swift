package import CloudSyncModel
package import CloudSyncStore
import Foundation

/// One upload contract (`../shared/spec/wire-contracts.md`): which metrics it takes, where a batch
/// goes and how its body is written, what its reply says (decoded once, typed), what it asks before
/// and after the batches, and how its failures read. CloudCare, Flō and the steps API are the three;
/// `UploadTarget` names them and the uploader runs whichever it is given.
package protocol UploadContract: Sendable {
    /// A success reply: a 2xx whose body does not decode as this is no acknowledgement (a proxy's
    /// web page), and is retried.
    associatedtype Reply: Decodable & Sendable
    /// The backend's name in messages.
    static var displayName: String { get }
    /// The types it keeps, as short names; nil for every type.
    static var acceptedTypes: Set<String>? { get }
    /// Whether it takes every type and drops what it does not keep without a word (CloudCare): what
    /// it would drop is left out and listed, or sent anyway on request (`--all-types`).
    static var takesEveryTypeOnRequest: Bool { get }
    /// Whether an upload without a token is a mistake to stop before sending (the steps API takes none).
    static var wantsToken: Bool { get }
    /// Where a batch goes, under the server's base URL.
    static var batchPath: String { get }
    /// A batch's body.
    static func appendBody(_ batch: PendingBatch, _ context: BatchContext, to out: inout ByteBuffer)
    /// What the reply says of the batch it acknowledges.
    static func receipt(_ reply: Reply, for batch: PendingBatch) -> BatchReceipt
    /// Before the batches: the window the server asks for (Flō's sync-status). `recorded` is the
    /// window an earlier upload recorded; `transport` is nil in a dry run, which asks no server.
    static func window(recorded: String?, transport: HTTPTransport?) async throws -> UploadWindow
    /// After every batch: what the contract does then (Flō marks its backfill complete); the date the
    /// server gives back, if any.
    static func afterBatches(_ window: UploadWindow, sent: SentSummary, transport: HTTPTransport) async throws -> String?
    /// A status the common rules (`HTTPTransport.classify`) do not read the contract's way: CloudCare's
    /// 403 is a device not paired, not a token refused. nil: the common rules.
    static func failure(status: Int, said: ServerSaid, url: String) -> UploadError?
}

extension UploadContract {
    package static var takesEveryTypeOnRequest: Bool { false }
    package static var wantsToken: Bool { true }
    package static func window(recorded: String?, transport: HTTPTransport?) async throws -> UploadWindow { UploadWindow() }
    package static func afterBatches(_ window: UploadWindow, sent: SentSummary, transport: HTTPTransport) async throws -> String? { nil }
    package static func failure(status: Int, said: ServerSaid, url: String) -> UploadError? { nil }
}

/// What a batch's body is written with: the store's identity, and the whole upload's date range
/// (every CloudCare envelope of one upload shares it).
package struct BatchContext: Sendable {
    package var identity: CloudCareIdentity
    package var range: PendingSummary
}

/// What a reply says of its batch.
package struct BatchReceipt: Sendable, Equatable {
    /// New to the server, and what it already had.
    package var stored = 0
    package var duplicates = 0
    /// Acknowledged without being kept, per type (CloudCare keeps only the types it knows).
    package var notTaken: [String: Int] = [:]
}

/// Which part of the store an upload covers in time: Flō's backfill starts at the server's
/// recommended date; the others take every date.
package struct UploadWindow: Sendable {
    /// ISO 8601, as the server gave it.
    package var start: String?
    /// This run is a historical backfill, to be marked complete after its last batch.
    package var isBackfill = false
    /// A dry run of a contract whose window only the server knows, with none recorded.
    package var unknown = false

    package init(start: String? = nil, isBackfill: Bool = false, unknown: Bool = false) {
        self.start = start
        self.isBackfill = isBackfill
        self.unknown = unknown
    }
}

/// What the batches of a run sent, for what comes after them.
package struct SentSummary: Sendable {
    /// Acknowledged by this server inside the window.
    package var acknowledged: Int
    package var lastEnd: Int64?
}

/// The upload contracts by their `--target` names.
package enum UploadTarget: String, Sendable, CaseIterable {
    /// `HealthDataExport` envelopes to `{server}/wearables/import/apple-health`.
    case cloudcare
    /// Flō-style historical backfill: `{server}/api/healthkit/…`.
    case flo
    /// HealthStepsSync: the StepCount metrics to `{server}/steps`.
    case steps

    /// The one place a target becomes its contract.
    package var contract: any UploadContract.Type {
        switch self {
        case .cloudcare: return CloudCareUpload.self
        case .flo: return FloUpload.self
        case .steps: return StepsUpload.self
        }
    }
}
