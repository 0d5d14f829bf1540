/// Work on the store done in turns of the write lock, one transaction each, with the writers that
/// wait (a push, in the store's waiting room: `StoreLocks`) let in between two turns. Without it,
/// the hour summaries' rebuild at the end of a 1 GB import into a store holding another export
/// (35 types, each its own transaction of up to 0.39 s, 2 s in all) took the lock again right
/// after each commit, and a push waited for the whole rebuild (2.04 s,
/// `Benchmarks/always_on_bench.py --prefill`).
struct WriteTurns {
    let database: any StoreDatabase
    /// What one turn aims at: a caller sizes its turns by it.
    static let aim = Duration.milliseconds(100)
    private var taken = false

    init(database: any StoreDatabase) { self.database = database }

    /// Runs `body` in a transaction of its own, after letting in the writers that wait (from the
    /// second turn on).
    mutating func take<T>(_ body: () throws -> T) throws -> T {
        if taken { database.writersRoom?.letTheWaitingIn() }
        taken = true
        return try database.transaction(body)
    }
}
