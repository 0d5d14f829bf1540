import Foundation
import Logging
import PostgresNIO

/// The start of `serve --db postgres://…`: one connection of its own, which checks that the
/// database can be used and brings its schema up to date, then closes. Within `limits.start`, a problem is
/// said in PostgreSQL's own words (a role or database that does not exist, a password refused) or
/// as what happened on the way (nothing listens, no socket): the pool alone would keep retrying in
/// silence and give up after a minute with its circuit breaker's name.
enum PostgresStartup {
    static func prepare(_ location: PostgresLocation, limits: PostgresLimits, logger: Logger) async throws {
        var configuration: PostgresConnection.Configuration
        do {
            configuration = try location.connectionConfiguration()
        } catch {
            throw ReceiverError.databaseAddress("\(location): cannot set up TLS: \(error)")
        }
        configuration.options.connectTimeout = .nanoseconds(Int64(limits.connect / .nanoseconds(1)))
        configuration.options.additionalStartupParameters = limits.sessionSettings
        var logger = logger
        logger.logLevel = .critical
        do {
            try await DatabaseDeadline.run(within: limits.start) { [configuration, logger] in
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                do {
                    try await PostgresMigration.apply(on: connection, logger: logger)
                } catch {
                    try? await connection.close()
                    throw error
                }
                try? await connection.close()
            }
        } catch {
            throw explain(PostgresFailure.unwrapped(error), location, limits)
        }
    }

    /// The sentence and its kind for a failed start.
    static func explain(_ error: any Error, _ location: PostgresLocation, _ limits: PostgresLimits) -> ReceiverError {
        let at = "PostgreSQL at \(location.endpoint)"
        let cannot = "cannot use the database \(location)"
        switch error {
        case is DatabaseDeadline.Passed:
            return .databaseUnavailable("\(cannot): no answer from \(at) within \(limits.start)")
        case let error as StorageError:
            return .databaseUnusable("\(cannot): \(error)")
        case let error as PSQLError:
            return explain(error, location, limits, at: at, cannot: cannot)
        default:
            return .databaseUnavailable("\(cannot): \(error)")
        }
    }

    private static func explain(_ error: PSQLError, _ location: PostgresLocation, _ limits: PostgresLimits,
                                at: String, cannot: String) -> ReceiverError {
        switch error.code {
        case .server:
            let said = PostgresFailure.words(error)
            switch PostgresFailure.sqlState(error) ?? "" {
            case "28000" where said.hasSuffix("does not exist"):   // invalid authorization: no such role
                return .databaseRefused("\(cannot): \(said) (create it: createuser \(location.user); or name another role in --db)")
            case "28000":            // invalid authorization: no pg_hba.conf entry, no right to connect
                return .databaseRefused("\(cannot): \(said)")
            case "28P01":            // invalid password
                return .databaseRefused("\(cannot): \(said) (check the password in --db: postgres://USER:PASSWORD@HOST/DB)")
            case "3D000":            // invalid catalog name
                return .databaseUnusable("\(cannot): \(said) (create it: createdb -O \(location.user) \(location.database))")
            case "42501":            // insufficient privilege, while creating the tables
                return .databaseRefused("\(cannot): \(said) (the role \(location.user) must be able to create tables in \(location.database))")
            case let state where ["08", "53", "57"].contains(String(state.prefix(2))):
                return .databaseUnavailable("\(cannot): \(said)")
            default:
                return .databaseUnusable("\(cannot): \(said)")
            }
        case .authMechanismRequiresPassword:
            return .databaseRefused("\(cannot): \(at) wants a password for \(location.user), and the address gives none (postgres://USER:PASSWORD@HOST/DB)")
        case .unsupportedAuthMechanism, .saslError:
            return .databaseRefused("\(cannot): \(at) asks for a way of signing in that cloudsync does not support (\(error.code))")
        case .sslUnsupported:
            return .databaseUnavailable("\(cannot): \(at) does not offer TLS, which sslmode=require demands")
        case .connectionError:
            return .databaseUnavailable("\(cannot): \(connectionProblem(error.underlying, location, limits))")
        case .serverClosedConnection:
            return .databaseUnavailable("\(cannot): \(location.endpoint) closed the connection without an answer: is it PostgreSQL that listens there?")
        default:
            return .databaseUnavailable("\(cannot): \(PostgresFailure.words(error))")
        }
    }

    /// What went wrong before PostgreSQL could say anything.
    static func connectionProblem(_ underlying: (any Error)?, _ location: PostgresLocation, _ limits: PostgresLimits) -> String {
        if let timeout = underlying as? ChannelError, case .connectTimeout = timeout {
            return "no answer from \(location.endpoint) within \(limits.connect): is the host right, and does a firewall let PostgreSQL's port through?"
        }
        if let connection = underlying as? NIOConnectionError, connection.connectionErrors.isEmpty,
           connection.dnsAError != nil || connection.dnsAAAAError != nil {
            return "cannot find the host \(connection.host): is the address right?"
        }
        switch errno(of: underlying) {
        case ECONNREFUSED where location.socketPath != nil:
            return "nothing listens at \(location.endpoint) (connection refused): is PostgreSQL running?"
        case ECONNREFUSED:
            return "nothing listens at \(location.endpoint) (connection refused): is PostgreSQL running, and is the port right?"
        case ENOENT:
            return "there is no PostgreSQL socket at \(location.endpoint): is PostgreSQL running, and is ?host= the folder of its socket?"
        case EACCES:
            return "permission denied on the socket \(location.endpoint)"
        default:
            return "cannot connect to \(location.endpoint): \(underlying.map { "\($0)" } ?? "the connection failed")"
        }
    }

    /// The errno of a failed connect, from NIO's `IOError` or inside its `NIOConnectionError`.
    private static func errno(of error: (any Error)?) -> Int32? {
        if let error = error as? IOError { return error.errnoCode }
        if let error = error as? NIOConnectionError { return error.connectionErrors.lazy.compactMap { errno(of: $0.error) }.first }
        return nil
    }
}
