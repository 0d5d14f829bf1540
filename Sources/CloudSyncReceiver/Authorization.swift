import Hummingbird

/// Checks `Authorization: Bearer <token>` (or `X-API-Key: <token>`, the header people give Health
/// Auto Export) when tokens are configured, and puts the token's user in the request's context. The comparison takes the same time wherever the first difference is, so a
/// token cannot be guessed byte by byte from timing.
struct BearerTokenMiddleware: RouterMiddleware {
    let users: ReceiverUsers

    func handle(_ request: Request, context: ReceiverContext,
                next: (Request, ReceiverContext) async throws -> Response) async throws -> Response {
        if request.uri.path == "/health" { return try await next(request, context) }
        let header = request.headers[.authorization] ?? ""
        let token = header.hasPrefix("Bearer ") ? Array(header.utf8.dropFirst(7)) : Self.header("x-api-key", of: request).map { Array($0.utf8) }
        guard let token, let user = users.user(for: token) else {
            return JSONResponse.make(.unauthorized, ["detail": "Not authenticated: a valid Bearer token is required"])
        }
        var context = context
        context.user = user
        return try await next(request, context)
    }

    /// A header by its lower-case name (one the HTTP types have no constant for).
    static func header(_ name: String, of request: Request) -> String? {
        request.headers.first { $0.name.canonicalName == name }?.value
    }

    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = a.count ^ b.count
        for i in 0..<max(a.count, b.count) {
            let x = i < a.count ? a[i] : 0
            let y = i < b.count ? b[i] : 0
            difference |= Int(x ^ y)
        }
        return difference == 0
    }
}
