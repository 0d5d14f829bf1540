/// The transactions of one import. An export commits every `commitEvery` rows written (a record
/// weighs one and its parts: a route its points), so that a killed import keeps what it committed
/// and a push waiting for the write lock waits for one chunk, not the whole export. A document of
/// the phone is one transaction: all of it, or (on any problem) none of it.
///
/// The writers say what they add to each commit (`beforeCommit`: the counts of the run, the
/// summaries) so that a commit always holds the rows and what is said of them together.
final class ImportTransaction {
    enum Policy { case whole, every(Int) }

    let database: any StoreDatabase
    private let policy: Policy
    private var sinceCommit = 0
    /// Run in the open transaction right before each commit, in order.
    var beforeCommit: [() throws -> Void] = []
    /// Run after each commit (the writers note what is now committed).
    var afterCommit: [() -> Void] = []

    private var waitingRoom: StoreLocks? { database.writersRoom }

    init(database: any StoreDatabase, policy: Policy) {
        self.database = database
        self.policy = policy
    }

    /// Run right after each BEGIN, in order: the writers see whether another process wrote since
    /// their last commit (`PRAGMA data_version`).
    var afterBegin: [() throws -> Void] = []

    func begin() throws {
        try database.beginWriting()
        for step in afterBegin { try step() }
    }

    /// When the waiting writers were last let in.
    private var letIn = ContinuousClock.now
    /// How often at most: each time they are, the import's page cache is read again (SQLite drops
    /// it when another connection wrote); a push every 100 ms beside a 1 GB import made it 1.22x
    /// as long when let in after every chunk (about 0.15 s), and a push waits at most this and a chunk.
    static let letInEvery = Duration.milliseconds(500)

    /// `rows` more rows are written: commits, lets in the writers that wait (a push waits for a
    /// chunk or two, not for the import), and begins the next transaction when a chunk is full.
    func wrote(_ rows: Int) throws {
        sinceCommit += rows
        if case .every(let limit) = policy, sinceCommit >= limit {
            try commit()
            if let waitingRoom, letIn.duration(to: .now) >= Self.letInEvery {
                waitingRoom.letTheWaitingIn()
                letIn = .now
            }
            try begin()
        }
    }

    /// Commits the open transaction with what the writers add to it.
    func commit() throws {
        for step in beforeCommit { try step() }
        try database.execute("COMMIT")
        sinceCommit = 0
        for step in afterCommit { step() }
    }

    /// The input ended in damage or a stop: an export keeps every complete row written so far (a
    /// commit); a document keeps nothing, which the rollback that follows takes care of.
    func keepWritten() throws {
        guard case .every = policy, database.isInTransaction else { return }
        try commit()
    }

    /// Gives up the open transaction, if any: the store is back at the last commit.
    func rollBack() {
        if database.isInTransaction { database.rollBack() }
    }
}
