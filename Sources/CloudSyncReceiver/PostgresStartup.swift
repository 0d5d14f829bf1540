import Foundation
import Logging
import PostgresNIO

/// The start of `serve --db postgres://…`: one connection of its own, which checks that the
/// database can be used and brings its schema up to date, then closes, all within `limit`. The pool
/// is not needed for it, so it can run in the receiver's service group from the start.
enum PostgresStartup {
    /// How long the start may take, connection and migration included.
    static let limit: Duration = .seconds(8)
    /// How long connecting may take (a host that drops packets).
    static let connectTimeout: Int64 = 5

    static func prepare(_ location: PostgresLocation, logger: Logger) async throws {
        var configuration = try location.connectionConfiguration()
        configuration.options.connectTimeout = .seconds(connectTimeout)
        configuration.options.additionalStartupParameters = PostgresReceiverStorage.sessionSettings
        var logger = logger
        logger.logLevel = .critical
        try await DatabaseDeadline.run(within: limit) { [configuration, logger] in
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            do {
                try await PostgresMigration.apply(on: connection, logger: logger)
            } catch {
                try? await connection.close()
                throw error
            }
            try? await connection.close()
        }
    }
}
