import CloudSyncStore
package import Foundation
import Logging
import Hummingbird
package import ServiceLifecycle

/// What `serve --store` runs beside the routes (docs/serve.md, "Always on"): the forwarding to a
/// backend, the watched folder, and the page of `GET /report`. The receiver knows them only
/// through these closures and services; the command builds them.
package struct AlwaysOn: Sendable {
    /// Run with the server and stopped with it (forwarding, the watched folder).
    package var services: [any Service] = []
    /// After each push stored (forward it soon): at once, before the push's reply, so it must not wait.
    package var afterPush: @Sendable () -> Void = {}
    /// A JSON object said under "store" in `GET /health` (forwarding, watched folder).
    package var health: @Sendable () -> Data? = { nil }

    package init() {}
}

/// `GET /report?since=…&until=…&tz=…`: the same as `cloudsync report`'s options.
package struct ReportQuery: Sendable {
    package var since: String?
    package var until: String?
    package var tz: String?
}

/// A `GET /report` query that cannot be answered, in words for the reader (400).
package struct ReportRequestError: Error, Sendable {
    package var message: String
    package init(_ message: String) { self.message = message }
}

extension Receiver {
    /// `GET /health` with what the store's services say, and `GET /report` (with the token, as
    /// pushes: the page is the user's health data).
    func addAlwaysOnRoutes(_ router: Router<ReceiverContext>) {
        let alwaysOn = configuration.alwaysOn
        router.get("/health") { _, _ in
            var reply: [String: Any] = ["status": "ok"]
            if let data = alwaysOn?.health(), let object = try? JSONSerialization.jsonObject(with: data) {
                reply["store"] = object
            }
            return JSONResponse.make(.ok, reply)
        }
    }

    /// `GET /report[?user=NAME]`: the page of `cloudsync report` from the patient's store as it is
    /// now (a reading route: the patient's own token, or a carer's given `reads=NAME`), made on a
    /// thread of its own. 404 when the patient has no store here yet.
    func addReportRoute(_ router: Router<ReceiverContext>) {
        guard let page = configuration.reportPage else { return }
        router.get("/report") { request, context -> Response in
            let query = ReportQuery(since: request.uri.queryParameters["since"].map(String.init),
                                    until: request.uri.queryParameters["until"].map(String.init),
                                    tz: request.uri.queryParameters["tz"].map(String.init))
            guard let store = stores.reading(of: context.subject) else {
                return JSONResponse.make(.notFound, ["detail": "nothing of \(context.subject) was pushed or uploaded here yet"])
            }
            let made = await onThreadOfItsOwn { try page(store, query) }
            switch made {
            case .success(let html):
                var headers = HTTPFields()
                headers[.contentType] = "text/html; charset=utf-8"
                headers[.cacheControl] = "no-store"
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
            case .failure(let error as ReportRequestError):
                return JSONResponse.make(.badRequest, ["detail": error.message])
            case .failure(StoreError.missing):
                return JSONResponse.make(.notFound, ["detail": "nothing of \(context.subject) was pushed or uploaded here yet"])
            case .failure(let error):
                logger.error("report failed", metadata: ["error": "\(error)"])
                return JSONResponse.make(.internalServerError, ["detail": "the report could not be made: \(error)"])
            }
        }
    }
}

/// A job that runs as long as the server: `body` runs until its task is cancelled, which a graceful
/// shutdown (SIGTERM, SIGINT) does; then `stop` (which may wait for the job to end its step).
package struct BackgroundJob: Service {
    private let body: @Sendable () async -> Void
    private let stop: @Sendable () async -> Void

    package init(_ body: @escaping @Sendable () async -> Void, stop: @escaping @Sendable () async -> Void = {}) {
        self.body = body
        self.stop = stop
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown { await body() }
        await stop()
    }
}
