import Foundation

/// Runs one call to the database within a deadline, and answers at the deadline (or when the
/// caller is cancelled) even if the call never returns.
///
/// Why not a task group racing a timer: a task group waits for all of its children, and a
/// PostgresNIO (1.33.2) query can never return. A query written to a pooled connection that the
/// server has just closed (a PostgreSQL restart, `pg_ctl stop -m fast`) is dropped by the closed
/// channel; its future is never completed, and neither cancelling the task nor shutting the pool
/// down reaches it. Waiting for it is how a `serve` that lived through a PostgreSQL restart came to
/// ignore SIGTERM: the request stayed in flight, so the server never finished its graceful
/// shutdown. Here the call runs in a task of its own that is cancelled and left behind at the
/// deadline: a lost query's task stays suspended, holding nothing (the pool has already forgotten
/// the closed connection), and every other call ends as cancelled.
enum DatabaseDeadline {
    /// The call did not answer within the deadline.
    struct Passed: Error {
        let deadline: Duration
    }

    static func run<T: Sendable>(within deadline: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let race = Race<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.begin(continuation)
                let work = Task {
                    do { race.finish(.success(try await body())) } catch { race.finish(.failure(error)) }
                }
                let timer = Task {
                    try? await Task.sleep(for: deadline)
                    race.finish(.failure(Passed(deadline: deadline)))
                }
                race.attach([work, timer])
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    /// The first outcome wins: it resumes the caller once and cancels the tasks still running.
    private final class Race<T: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var continuation: CheckedContinuation<T, any Error>?
        private var outcome: Result<T, any Error>?
        private var tasks: [Task<Void, Never>] = []

        func begin(_ continuation: CheckedContinuation<T, any Error>) {
            lock.lock()
            if let outcome {   // cancelled before it began
                lock.unlock()
                continuation.resume(with: outcome)
                return
            }
            self.continuation = continuation
            lock.unlock()
        }

        func attach(_ tasks: [Task<Void, Never>]) {
            lock.lock()
            guard outcome == nil else {
                lock.unlock()
                for task in tasks { task.cancel() }
                return
            }
            self.tasks = tasks
            lock.unlock()
        }

        func finish(_ result: Result<T, any Error>) {
            lock.lock()
            guard outcome == nil else { lock.unlock(); return }
            outcome = result
            let continuation = self.continuation, tasks = self.tasks
            self.continuation = nil
            self.tasks = []
            lock.unlock()
            continuation?.resume(with: result)
            for task in tasks { task.cancel() }
        }
    }
}
