import Foundation
import Hummingbird
import Logging

/// One log line per request, written once the answer is known: method, path, status and time
/// (Hummingbird's own request logger writes the request before it has a status).
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, status: Int(response.status.code), since: started)
            return response
        } catch let error as any HTTPResponseError {
            log(request, status: Int(error.status.code), since: started)
            throw error
        } catch {
            log(request, status: 500, since: started)
            throw error
        }
    }

    private func log(_ request: Request, status: Int, since started: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        logger.info("\(request.method) \(request.uri.path) \(status) \(String(format: "%.1f", milliseconds)) ms")
    }
}
