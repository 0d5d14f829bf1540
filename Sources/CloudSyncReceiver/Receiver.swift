import NIOCore
import Foundation
import Hummingbird
import Logging

/// `cloudsync serve`: one receiver for the three wire contracts (CloudCare, Flō backfill,
/// HealthStepsSync), storing what it receives in its own SQLite file. The integration tests upload
/// to it over a real socket; users run it to try the pipeline.
public struct Receiver: Sendable {
    let configuration: ReceiverConfiguration
    let database: ReceiverDatabase
    let faults: FaultSchedule
    let logger: Logger

    public init(configuration: ReceiverConfiguration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        database = try ReceiverDatabase(path: configuration.databasePath)
        faults = FaultSchedule(configuration.faults)
    }

    /// Runs until SIGTERM or SIGINT, then shuts down cleanly. `onListening` gets the bound port.
    public func run(onListening: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let app = Application(
            router: makeRouter(),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "cloudsync-serve"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: logger)
        try await app.runService()
    }

    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: LogRequestsMiddleware(.info))
        if let token = configuration.token { router.add(middleware: BearerTokenMiddleware(token: Array(token.utf8))) }
        router.get("/health") { _, _ in JSONResponse.make(.ok, ["status": "ok"]) }
        for prefix in ["", "/api/v1"] {
            addCloudCareRoutes(router, prefix: prefix)
            addPairingRoutes(router, prefix: prefix)
        }
        addFloRoutes(router)
        addStepsRoutes(router)
        return router
    }

    /// A data endpoint: the body (413 above the limit), the fault plan, then `handle`, which
    /// returns the answer and how many items it stored.
    func dataEndpoint(_ request: Request, path: String,
                      _ handle: @escaping @Sendable (ByteBuffer) throws -> (Response, Int?)) async throws -> Response {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: configuration.maxBodySize)
        } catch is NIOTooManyBytesError {
            database.log(path: path, status: 413, count: nil)
            return JSONResponse.make(.contentTooLarge, ["detail": "request body larger than \(configuration.maxBodySize) bytes"])
        }
        if faults.delay > 0 { try await Task.sleep(for: .seconds(faults.delay)) }
        switch faults.next() {
        case .ok:
            break
        case .status(let code):
            database.log(path: path, status: code, count: nil)
            return JSONResponse.make(.init(code: code), ["detail": "injected fault"])
        case .tooManyRequests(let seconds):
            database.log(path: path, status: 429, count: nil)
            return JSONResponse.make(.tooManyRequests, ["detail": "slow down"], headers: [.retryAfter: String(seconds)])
        case .stall(let seconds):
            database.log(path: path, status: 0, count: nil)
            try await Task.sleep(for: .seconds(seconds))
            return JSONResponse.make(.serviceUnavailable, ["detail": "stalled"])
        case .lostAcknowledgement(let seconds):
            let (response, count) = try handle(body)
            database.log(path: path, status: -Int(response.status.code), count: count)  // negative: never delivered
            try await Task.sleep(for: .seconds(seconds))
            return response
        }
        let (response, count) = try handle(body)
        database.log(path: path, status: Int(response.status.code), count: count)
        return response
    }
}
