public import CloudSyncModel

/// What `cloudsync status` shows. `--json` prints it as is.
public struct StoreStatus: Sendable, Codable {
    /// The last push from the phone and what of the pushed data counts (nil: none yet).
    public var healthAutoExport: HealthAutoExportStatus?
    /// What `serve --store --upload-to` does for each target it forwards to.
    public var forwarding: [ForwardingStatus] = []
    /// Files of `serve --watch` folders: how many were imported, and those that could not be.
    public var watchedFilesImported = 0
    public var watchedFileProblems: [WatchedFileProblem] = []
    public struct ImportRun: Sendable, Codable {
        public var id: Int64
        public var input: String
        public var inputSize: Int64?
        public var exportDate: String?
        public var exportVersion: Int?
        public var startedAt: String
        public var endedAt: String?
        public var outcome: String
        public var reason: String?
        public var new: Int
        public var duplicates: Int
        /// Of `new`, the repeats (alike but for the creation date); records written twice in the export.
        public var repeats = 0
        public var writtenTwice = 0
        public var invalid: Int
        public var filtered: Int
    }

    /// One `cloudsync upload`: what it sent, how it ended, and what the server acknowledged
    /// without keeping it, per type.
    public struct UploadRun: Sendable, Codable {
        public var id: Int64
        public var target: String
        public var server: String
        public var startedAt: String
        public var endedAt: String?
        public var outcome: String
        public var sent: Int
        public var batches: Int
        public var retries: Int
        public var error: String?
        public var notTaken: [String: Int]
    }

    public struct Target: Sendable, Codable {
        public var target: String
        public var server: String
        /// The account the upload's token opens there (`token` and a fingerprint, or `no token`);
        /// nil for a target from before accounts were recorded, that no upload has used since.
        public var account: String?
        public var acknowledged: Int
        /// What an upload to this target would send now (its types and window; see `UploadScope`).
        public var pending: Int
        /// Metrics of types this target does not take, left out of `pending` (CloudCare).
        public var leftOut: [String: Int] = [:]
        /// False while the server has acknowledged nothing (no batch ever succeeded): a URL tried
        /// once, maybe mistyped. `cloudsync upload --forget` removes it.
        public var reached = false
    }

    public struct Backfill: Sendable, Codable {
        public var target: String
        public var server: String
        public var complete: Bool
        public var backfillDate: String?
        public var recommendedStart: String?
    }

    public var store: String
    public var schemaVersion: Int
    public var userId: String
    public var deviceId: String
    /// Samples, each counted once (repeats added when `countsRepeats`).
    public var metrics: Int
    /// Stored samples that repeat another but for their creation date: kept, counted once.
    public var repeats = 0
    /// Pushed rows where another source is the truth: kept, not counted (`healthAutoExport` says why).
    public var superseded = 0
    /// `--count-repeats`: `metrics` and `byType` count every repeat.
    public var countsRepeats = false
    /// What `cloudsync upload` to the default target would send now (see `StagingStore.defaultPending`):
    /// the same number as `export --pending` and as `upload --dry-run` to `pendingTarget`.
    public var pending: Int
    /// The target and server `pending` is counted for (`cloudcare https://…`; no server before the first upload).
    public var pendingTarget = "cloudcare"
    /// Samples not pending because CloudCare does not keep their types (they are not uploaded to it).
    public var pendingLeftOut = 0
    public var byType: [String: Int]
    /// The records of each kind besides metrics (routes and their points, ECGs and their samples,
    /// beat series, correlations, clinical records, …), by `RecordKind.name`.
    public var records: [String: RecordCount] = [:]
    public var firstStart: String?
    public var lastEnd: String?
    public var targets: [Target]
    public var imports: [ImportRun]
    public var uploads: [UploadRun]
    public var backfill: [Backfill]
    public var exportFacts: [String: String]
}
