/// How long `serve` gives PostgreSQL: to start, and to answer one call.
struct PostgresLimits: Sendable {
    /// Connecting, checking the database and migrating it, within which a database that cannot be
    /// used is said (its problems must be known within 10 s).
    var start: Duration = .seconds(8)
    /// Connecting alone (a host that drops packets).
    var connect: Duration = .seconds(5)
    /// One call, a free connection included; then the request is answered 503. Long enough for a
    /// busy pool, short enough that an uploader's request (30 s) never times out first.
    var call: Duration = .seconds(5)

    /// Set on every connection, so that the server gives up too: a statement (a lock wait
    /// included) ends with the call, and a transaction whose client went away does not hold its
    /// locks for ever.
    var sessionSettings: [(String, String)] {
        [("statement_timeout", "\(milliseconds(call))ms"), ("idle_in_transaction_session_timeout", "\(2 * milliseconds(call))ms")]
    }

    private func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
