import Foundation

/// Why `serve` could not start, each a sentence that says what to do. The CLI gives each case its
/// own exit status.
package enum ReceiverError: Error, Sendable, CustomStringConvertible {
    case cannotListen(host: String, port: Int, errno: Int32)
    /// `--db` is not a postgres:// address that can be used (no user, no database, a bad port).
    case databaseAddress(String)
    /// PostgreSQL cannot be reached: nothing listens, no socket, no answer in time, starting up.
    case databaseUnavailable(String)
    /// PostgreSQL refused the role: it does not exist, its password is wrong or missing, or it may
    /// not connect or create the tables.
    case databaseRefused(String)
    /// The database cannot be used: it does not exist, or its schema is newer than this cloudsync.
    case databaseUnusable(String)

    package var description: String {
        switch self {
        case .cannotListen(let host, let port, let code):
            switch code {
            case EADDRINUSE:
                return "cannot listen on \(host):\(port): the port is in use (another serve?); choose another with --port (0 picks a free one)"
            case EACCES:
                return "cannot listen on \(host):\(port): permission denied (ports below 1024 need privileges); choose another with --port"
            default:
                return "cannot listen on \(host):\(port): \(host) is not an address of this machine; use --host 127.0.0.1"
            }
        case .databaseAddress(let words), .databaseUnavailable(let words), .databaseRefused(let words), .databaseUnusable(let words):
            return words
        }
    }
}
