
/// Where the rows of one import come from, as its input says when the import begins: how its rows
/// count beside the others' (an export's are the truth up to its date; pushed rows count only where
/// no export does, docs/store.md "Two sources"), how it commits (an export in chunks, a document of
/// the phone all at once) and what the store's ledgers keep of it. The store knows no input: each
/// input says these (CloudSyncInputs: `ImportOrigin.export`, `.healthAutoExport`), and a new
/// input says its own without a change here.
public struct ImportOrigin: Sendable {
    /// How an import's rows count beside the rows of the others.
    public enum Counting: Sendable, Equatable {
        /// The truth up to the input's own date: a pushed row it covers stops counting (an export).
        case truthUpToItsDate
        /// Counted only where no such truth counts (`metric.origin` 1: a push or file of the phone).
        case whereNoTruthCounts
    }

    /// How an import commits.
    public enum Commit: Sendable, Equatable {
        /// Every `importCommitEvery` rows, opening the write lock's turn between: a killed import
        /// keeps what it committed, and its run is recorded as failed or interrupted.
        case inChunks
        /// All at once or nothing: a refused or failed input leaves no row and no run.
        case whole
    }

    /// The input as messages name it (`standard input`, a path, `the request`).
    public var input: String
    /// Its size in bytes, when known.
    public var size: Int64?
    public var counting: Counting
    public var commit: Commit
    /// `import_run.source_kind`: what `status` calls the input.
    public var kindName: String
    /// What the push ledger (`hae_push`) keeps of a pushed document; nil for an input it does not list.
    public var pushDetails: PushDetails?
    /// How many samples the input holds, when it says (a batch of samples): the import's memory of
    /// the samples it added is sized by it (`SeenSamples`), not by the largest export.
    public var samples: Int?
    /// Whether its metrics are loaded as a bulk load into a patient's store in PostgreSQL that has
    /// none yet, when it commits whole (`BulkLoad`): an input of millions of rows (an export
    /// sent to the server), not a batch of a thousand, for which making a table costs more.
    public var loadsInBulk = false

    public init(input: String, size: Int64?, counting: Counting, commit: Commit, kindName: String, pushDetails: PushDetails? = nil) {
        self.input = input
        self.size = size
        self.counting = counting
        self.commit = commit
        self.kindName = kindName
        self.pushDetails = pushDetails
    }

    /// Whether its rows are pushed rows (`metric.origin` 1).
    var isPushed: Bool { counting == .whereNoTruthCounts }
}

/// How a Health Auto Export document came: a push with the app's headers, or a file.
public struct PushDetails: Sendable, Equatable {
    public var via: String
    public var automationName, automationID, aggregation, period, sessionID: String?

    public init(via: String, automationName: String? = nil, automationID: String? = nil, aggregation: String? = nil,
                period: String? = nil, sessionID: String? = nil) {
        self.via = via
        self.automationName = automationName
        self.automationID = automationID
        self.aggregation = aggregation
        self.period = period
        self.sessionID = sessionID
    }

    public static let file = PushDetails(via: "file")
}
