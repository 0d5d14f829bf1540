import Hummingbird

/// Checks `Authorization: Bearer <token>` when a token is configured. The comparison takes the same
/// time wherever the first difference is, so the token cannot be guessed byte by byte from timing.
struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: [UInt8]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path == "/health" { return try await next(request, context) }
        let header = request.headers[.authorization] ?? ""
        guard header.hasPrefix("Bearer "), Self.constantTimeEquals(Array(header.utf8.dropFirst(7)), token) else {
            return JSONResponse.make(.unauthorized, ["detail": "Not authenticated: a valid Bearer token is required"])
        }
        return try await next(request, context)
    }

    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for i in 0..<max(a.count, b.count) {
            let x = i < a.count ? a[i] : 0
            let y = i < b.count ? b[i] : 0
            difference |= x ^ y
        }
        return difference == 0
    }
}
