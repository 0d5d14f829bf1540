import PostgresNIO

/// What a failed call to PostgreSQL means: the database cannot answer now (the request gets 503
/// and is sent again), or something else (a constraint, a file, a bug) that stays an error.
enum PostgresFailure {
    /// The pool gave no connection (it cannot connect, its circuit breaker is open, it is shutting
    /// down). Known by where it happened, before the call had a connection: the pool's own error
    /// type lives in a module of PostgresNIO's that this one does not import.
    struct NoConnection: Error {
        let underlying: any Error
    }

    /// The error a transaction's wrapper (`PostgresTransactionError`) holds: the closure's, else
    /// BEGIN's or COMMIT's.
    static func unwrapped(_ error: any Error) -> any Error {
        guard let transaction = error as? PostgresTransactionError else { return error }
        return transaction.closureError ?? transaction.beginError ?? transaction.commitError ?? error
    }

    /// Why the database cannot answer now, or nil when `error` is not of that kind: a connection
    /// that failed or closed, a pool that cannot connect, no answer in time, and the server's
    /// "cannot serve now" classes (08 connection exception, 53 insufficient resources, 57 operator
    /// intervention: shutting down, starting up, a statement timeout; 40 a serialization failure or
    /// deadlock, which a retry gets past).
    static func unavailableReason(_ error: any Error) -> String? {
        switch unwrapped(error) {
        case let passed as DatabaseDeadline.Passed:
            return "no answer within \(passed.deadline)"
        case is CancellationError:
            return "the request was cancelled while waiting for the database"
        case let failure as NoConnection:
            return (failure.underlying as? PSQLError).map(words) ?? "no connection to PostgreSQL could be had"
        case let error as PSQLError where error.code == .server:
            let state = sqlState(error) ?? ""
            return ["08", "53", "57", "40"].contains(String(state.prefix(2))) ? words(error) : nil
        case let error as PSQLError where connectionCodes.contains(error.code):
            return words(error)
        default:
            return nil
        }
    }

    /// The codes of a connection that failed or closed under the call (the others, a message that
    /// cannot be decoded or too many parameters, are bugs).
    static let connectionCodes: [PSQLError.Code] = [.connectionError, .serverClosedConnection, .clientClosedConnection,
                                                    .uncleanShutdown, .poolClosed, .queryCancelled]

    static func sqlState(_ error: PSQLError) -> String? { error.serverInfo?[.sqlState] }

    /// The server's own message, or what happened to the connection.
    static func words(_ error: PSQLError) -> String {
        if let message = error.serverInfo?[.message] { return message }
        switch error.code {
        case .serverClosedConnection: return "PostgreSQL closed the connection"
        case .clientClosedConnection: return "the connection to PostgreSQL was closed"
        case .connectionError: return "the connection to PostgreSQL failed" + (error.underlying.map { ": \($0)" } ?? "")
        case .poolClosed: return "the connection pool is closed (serve is stopping)"
        case .queryCancelled: return "the query was cancelled"
        default: return "\(error.code)"
        }
    }
}
