import CloudSyncHealthAutoExport
import CloudSyncModel
import CloudSyncInputs
import CloudSyncStore
import Foundation
import Hummingbird
import Logging
import NIOCore

extension Receiver {
    /// The path to paste into the app's REST API automation (with the token as a header).
    package static let healthAutoExportPath = "/health-auto-export"

    /// `POST /health-auto-export`: one push, one transaction. 200 with what was stored, what was
    /// already there and what was not kept, by name; 400 (not JSON) and 422 (not the app's shape)
    /// with the JSON path of the first problem; 413 over the size limit. Nothing of a refused push
    /// is stored.
    func addHealthAutoExportRoute(_ router: Router<ReceiverContext>) {
        let limit = configuration.maxPushSize
        router.post(RouterPath(stringLiteral: Self.healthAutoExportPath)) { request, context -> Response in
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: limit)
            } catch is NIOTooManyBytesError {
                return JSONResponse.make(.contentTooLarge, ["detail": "request body larger than \(limit) bytes (--max-body-size); nothing was stored"])
            }
            let header = { (name: String) -> String? in BearerTokenMiddleware.header(name, of: request) }
            let aggregationHeader = header("automation-aggregation")
            let details = PushDetails(via: "push", automationName: header("automation-name"), automationID: header("automation-id"),
                                      aggregation: aggregationHeader, period: header("automation-period"), sessionID: header("session-id"))
            let options = HealthAutoExportReader.Options(aggregation: aggregationHeader.flatMap(Aggregation.init(header:)))
            let push = await stores.write(owner: context.user) { store in
                try body.withUnsafeReadableBytes { bytes in
                    try store.importDocument(HealthAutoExportDocument(borrowing: bytes, name: "the request"), options: options, details: details)
                }
            }
            switch push {
            case .success(let result):
                configuration.alwaysOn?.afterPush()
                logger.info("health-auto-export push stored", metadata: ["user": "\(context.user)", "push.stored": "\(result.stored.new)", "push.already": "\(result.stored.already)",
                                                                       "push.automation": "\(details.automationName ?? "-")"])
                return JSONResponse.make(.ok, Self.reply(result))
            case .failure(let error as HealthAutoExportError):
                var reply: [String: Any] = ["detail": error.description + "; nothing was stored", "path": error.path]
                if let offset = error.offset { reply["offset"] = offset }
                return JSONResponse.make(error.kind == .malformed ? .badRequest : .unprocessableContent, reply)
            case .failure(let error):
                logger.error("health-auto-export push failed", metadata: ["error": "\(error)"])
                return Self.refusal(error)
            }
        }
    }

    /// How long a push waits for its turn to write (an import beside it commits in chunks of well
    /// under a second; another push takes less): past it, 503 with `Retry-After`, which the app retries.
    package static let pushWriteWait = 10.0
    static let retryAfterSeconds = 5

    /// A write the store could not take (nothing of it is stored), or a read it could not answer
    /// (`reading`): 503 with `Retry-After` when the write lock stayed taken past `pushWriteWait` or
    /// PostgreSQL could not be reached, 507 on a full disk, 500 otherwise.
    static func refusal(_ error: any Error, reading: Bool = false) -> Response {
        let sqlite: SQLiteError? = switch error {
        case let error as SQLiteError: error
        case StoreError.sqlite(let error): error
        default: nil
        }
        let postgres: PostgresError? = switch error {
        case let error as PostgresError: error
        case StoreError.postgres(let error): error
        default: nil
        }
        if postgres?.isUnavailable ?? false {
            return JSONResponse.make(.serviceUnavailable,
                                     ["detail": "the database is unavailable" + (reading ? ": ask again" : "; nothing was stored: send it again")],
                                     headers: [.retryAfter: String(StorageUnavailable.retryAfterSeconds)])
        }
        if reading { return JSONResponse.make(.internalServerError, ["detail": "the store could not be read: \(error)"]) }
        if (sqlite?.isBusy ?? false) || error is PatientStoreBusy || (postgres?.isLockTimeout ?? false) {
            return JSONResponse.make(.serviceUnavailable, ["detail": "the store stayed busy for \(Int(pushWriteWait)) s (an import or upload "
                                                           + "is writing); nothing was stored: send it again"],
                                     headers: [.retryAfter: String(retryAfterSeconds)])
        }
        if sqlite?.isDiskFull ?? postgres?.isDiskFull ?? false {
            return JSONResponse.make(HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), ["detail": "the store's disk is full; nothing was stored: send it again when there is room"],
                                     headers: [.retryAfter: "60"])
        }
        return JSONResponse.make(.internalServerError, ["detail": "the store could not take the push; nothing was stored: \(error)"])
    }

    /// The reply: totals, then by name what was stored, what was already there, what was not kept.
    static func reply(_ result: DocumentImportResult) -> [String: Any] {
        let (report, stored) = (result.report, result.stored)
        let routes = stored.records[RouteKind.name] ?? (0, 0)
        return [
            "stored": stored.new,
            "alreadyThere": stored.already,
            "superseded": stored.superseded,
            "storedByType": stored.byType.filter { $0.value.new > 0 }.mapValues(\.new),
            "alreadyThereByType": stored.byType.filter { $0.value.already > 0 }.mapValues(\.already),
            "notKept": report.notKept.mapValues { ["count": $0.count, "reason": $0.reason] },
            "unmapped": report.unmapped.sorted(),
            "points": report.points,
            "workouts": report.workouts,
            "routes": ["new": routes.new, "alreadyThere": routes.already],
            // Every kind of record the push held (routes, medications, State of Mind, ECGs, series).
            "records": stored.records.filter { $0.value.new + $0.value.already > 0 }
                .mapValues { ["new": $0.new, "alreadyThere": $0.already] },
        ]
    }
}
