import Foundation

/// A failure of PostgreSQL as libpq reports it: its SQLSTATE (`23505` a unique violation, `40001` a
/// serialization failure…), its message, and the statement, for the store's messages.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// Five characters; empty when the connection itself failed.
    package var sqlState: String
    package var message: String
    package var sql: String?
    /// The database, as messages name it (without a password).
    package var database: String

    public var description: String {
        var text = "\(database): PostgreSQL: \(message)"
        if !sqlState.isEmpty { text += " (SQLSTATE \(sqlState))" }
        if let sql { text += " in: \(sql.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " "))" }
        return text
    }

    /// A unique or exclusion constraint refused the row.
    package var isUniqueViolation: Bool { sqlState == "23505" }
    /// The server could not be reached, or the connection broke (class 08).
    package var isConnectionFailure: Bool { sqlState.isEmpty || sqlState.hasPrefix("08") }
    /// The database cannot answer now, and the same request later can succeed: no connection, a
    /// connection that broke (08), a server shutting down or starting up (57), a serialization
    /// failure or deadlock (40), insufficient resources (53) but a full disk, which waits for room.
    package var isUnavailable: Bool {
        if isConnectionFailure { return true }
        let kind = sqlState.prefix(2)
        return kind == "57" || kind == "40" || (kind == "53" && !isDiskFull)
    }
    /// A lock was not had within `lock_timeout` (55P03): another writer of the patient held it.
    package var isLockTimeout: Bool { sqlState == "55P03" }
    /// The disk of the server is full (53100).
    package var isDiskFull: Bool { sqlState == "53100" }
}
