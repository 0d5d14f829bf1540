import NIOCore
import Foundation
import Hummingbird
package import Logging
import ServiceLifecycle
import UnixSignals

/// `cloudsync serve`: one receiver for the three wire contracts (CloudCare, Flō backfill,
/// HealthStepsSync), storing what it receives through a `ReceiverStorage` (an SQLite file, or PostgreSQL).
/// The integration tests upload to it over a real socket; users run it to try the pipeline.
package struct Receiver: Sendable {
    let configuration: ReceiverConfiguration
    let storage: any ReceiverStorage
    /// Where each patient's data goes and is read from: every data route writes there.
    let stores: any PatientStores
    let faults: FaultSchedule
    let logger: Logger
    /// The users as the tokens file says now (SIGHUP reads it again).
    let users: CurrentUsers?

    /// Opens the storage `configuration.databasePath` names: an SQLite file, or PostgreSQL for a
    /// `postgres://` address (checked and migrated on the way, within a few seconds: a problem with
    /// it is a `ReceiverError` in PostgreSQL's words).
    package init(configuration: ReceiverConfiguration, logger: Logger) async throws {
        self.configuration = configuration
        self.logger = logger
        users = configuration.users.map(CurrentUsers.init)
        guard let stores = configuration.patientStores else {
            throw ReceiverError.databaseUnusable("a receiver keeps what it receives in its patients' stores, and none were given")
        }
        self.stores = stores
        if PostgresLocation.isMistypedAddress(configuration.databasePath) {
            throw ReceiverError.databaseAddress(
                "--db '\(configuration.databasePath)' is not a database address: give postgres://USER@HOST[:PORT]/DB, or the path of an SQLite file")
        }
        if PostgresLocation.isPostgres(configuration.databasePath) {
            let location: PostgresLocation
            do {
                location = try PostgresLocation(configuration.databasePath)
            } catch {
                throw ReceiverError.databaseAddress("--db \(error)")
            }
            storage = try await PostgresReceiverStorage.open(location, logger: logger)
        } else {
            storage = try SQLiteReceiverStorage(path: configuration.databasePath, steps: configuration.stepsFile)
        }
        faults = FaultSchedule(configuration.faults)
    }

    /// Moves the samples an older version kept in the receiver's own tables into the patients'
    /// stores (`LegacyReceivedRows`), as `run` starts.
    func moveLegacyRows() async {
        await LegacyReceivedRows.move(of: (configuration.users?.names ?? []) + [ReceiverUsers.defaultUser], from: storage, into: stores,
                                      logger: logger)
    }

    /// Runs until SIGTERM or SIGINT, then shuts down cleanly. `onListening` gets the bound port.
    /// Throws `ReceiverError.cannotListen` when the address cannot be bound.
    package func run(onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        // Hummingbird's own messages ("Server started and listening") at warning level only: the
        // caller says where it listens, once.
        var applicationLogger = logger
        applicationLogger.logLevel = .warning
        let app = Application(
            router: makeRouter(),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "cloudsync-serve"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: applicationLogger)
        // SIGTERM/SIGINT stop accepting, let requests in flight finish, and then the process ends:
        // within 10 s, then what is left is cancelled (a request waiting on the database is
        // answered or dropped, never acknowledged without being stored), so that a stop never hangs.
        // The storage's service (PostgreSQL's pool) comes first: a graceful shutdown stops the
        // services in reverse order, so the server has answered its last request before the pool closes.
        let reload = TokensReload(file: configuration.tokensFile, users: users, logger: logger)
        let services: [any Service] = [storage.service].compactMap { $0 } + (configuration.alwaysOn?.services ?? []) + [reload, app]
        // Once the storage answers (PostgreSQL's pool runs in the group): what an older version kept,
        // into the patients' stores. A job that ends when done, not the group with it.
        let legacy = ServiceGroupConfiguration.ServiceConfiguration(service: BackgroundJob { await self.moveLegacyRows() },
                                                                    successTerminationBehavior: .ignore)
        var group = ServiceGroupConfiguration(services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) } + [legacy],
                                              gracefulShutdownSignals: [.sigterm, .sigint], logger: applicationLogger)
        group.maximumGracefulShutdownDuration = .seconds(10)
        group.maximumCancellationDuration = .seconds(5)
        do {
            try await ServiceGroup(configuration: group).run()
        } catch {
            if let code = Self.bindErrno(error), [EADDRINUSE, EADDRNOTAVAIL, EACCES].contains(code) {
                throw ReceiverError.cannotListen(host: configuration.host, port: configuration.port, errno: code)
            }
            throw error
        }
    }

    /// The errno of a failed bind, from NIO's `IOError` (possibly wrapped by the service group).
    static func bindErrno(_ error: any Error) -> Int32? {
        if let error = error as? IOError { return error.errnoCode }
        let text = String(describing: error)
        guard text.contains("bind"), let range = text.range(of: "errno: ") else { return nil }
        return Int32(text[range.upperBound...].prefix { $0.isNumber })
    }

    func makeRouter() -> Router<ReceiverContext> {
        let router = Router(context: ReceiverContext.self)
        router.add(middleware: RequestLogMiddleware(logger: logger))
        router.add(middleware: HandlerErrorMiddleware(logger: logger))
        if let users { router.add(middleware: BearerTokenMiddleware(users: users)) }
        router.add(middleware: AccessMiddleware())
        addAlwaysOnRoutes(router)
        addEraseRoute(router)
        for prefix in ["", "/api/v1"] {
            addCloudCareRoutes(router, prefix: prefix)
            addPairingRoutes(router, prefix: prefix)
        }
        addFloRoutes(router)
        addStepsRoutes(router)
        addHealthAutoExportRoute(router)
        addExportsRoute(router)
        addReportRoute(router)
        return router
    }

    /// A data endpoint: the body (413 above the limit), the fault plan, then `handle`, which
    /// returns the answer and how many items it stored.
    func dataEndpoint(_ request: Request, user: String, path: String,
                      _ handle: @escaping @Sendable (ByteBuffer) async throws -> (Response, Int?)) async throws -> Response {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: configuration.maxBodySize)
        } catch is NIOTooManyBytesError {
            await storage.log(owner: user, path: path, status: 413, count: nil)
            return JSONResponse.make(.contentTooLarge, ["detail": "request body larger than \(configuration.maxBodySize) bytes"])
        }
        if faults.delay > 0 { try await Task.sleep(for: .seconds(faults.delay)) }
        switch faults.next() {
        case .ok:
            break
        case .status(let code):
            await storage.log(owner: user, path: path, status: code, count: nil)
            return JSONResponse.make(.init(code: code), ["detail": "injected fault"])
        case .tooManyRequests(let seconds):
            await storage.log(owner: user, path: path, status: 429, count: nil)
            return JSONResponse.make(.tooManyRequests, ["detail": "slow down"], headers: [.retryAfter: String(seconds)])
        case .stall(let seconds):
            await storage.log(owner: user, path: path, status: 0, count: nil)
            try await Task.sleep(for: .seconds(seconds))
            return JSONResponse.make(.serviceUnavailable, ["detail": "stalled"])
        case .lostAcknowledgement(let seconds):
            let (response, count) = try await handle(body)
            await storage.log(owner: user, path: path, status: -Int(response.status.code), count: count)  // negative: never delivered
            try await Task.sleep(for: .seconds(seconds))
            return response
        }
        let (response, count) = try await handle(body)
        await storage.log(owner: user, path: path, status: Int(response.status.code), count: count)
        return response
    }
}
