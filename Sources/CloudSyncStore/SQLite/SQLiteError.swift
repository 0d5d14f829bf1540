import CSQLite3

/// An SQLite failure with its context. Like GRDB's `DatabaseError`, it never carries bound values:
/// those are people's health data.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    public var code: Int32
    public var extendedCode: Int32
    public var message: String
    public var sql: String?
    /// The database file.
    public var path: String

    public var description: String {
        var text = "\(path): SQLite error \(extendedCode): \(message)"
        if let sql { text += " (while executing `\(sql)`)" }
        return text
    }

    /// True when another connection holds the lock (SQLITE_BUSY / SQLITE_LOCKED).
    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    /// True when the file or the disk refuses writes.
    public var isReadOnly: Bool { code == SQLITE_READONLY }
    public var isDiskFull: Bool { code == SQLITE_FULL }
}
