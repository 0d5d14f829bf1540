import Hummingbird
import Logging

/// Turns `StorageUnavailable` from any handler into `503 Service Unavailable` with `Retry-After`,
/// instead of a 500 or a request left hanging: the uploader waits that long and sends again.
struct StorageUnavailableMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as StorageUnavailable {
            logger.warning("\(request.method) \(request.uri.path): \(error); answered 503")
            return JSONResponse.make(.serviceUnavailable, ["detail": "\(error); retry later"],
                                     headers: [.retryAfter: String(StorageUnavailable.retryAfterSeconds)])
        }
    }
}
