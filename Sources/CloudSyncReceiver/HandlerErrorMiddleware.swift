import Hummingbird
import Logging

/// Turns `StorageUnavailable` from any handler into `503 Service Unavailable` with `Retry-After`,
/// instead of a 500 or a request left hanging: the uploader waits that long and sends again. Any
/// other failure of a handler is a 500 that says so in its body and in the log, never an empty
/// answer the operator cannot trace (Hummingbird's own errors, 4xx, pass as they are).
struct HandlerErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as StorageUnavailable {
            logger.warning("\(request.method) \(request.uri.path): \(error); answered 503")
            return JSONResponse.make(.serviceUnavailable, ["detail": "\(error); retry later"],
                                     headers: [.retryAfter: String(StorageUnavailable.retryAfterSeconds)])
        } catch let error as any HTTPResponseError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            logger.error("\(request.method) \(request.uri.path): \(error); answered 500")
            return JSONResponse.make(.internalServerError, ["detail": "the server could not handle this request: \(error)"])
        }
    }
}
