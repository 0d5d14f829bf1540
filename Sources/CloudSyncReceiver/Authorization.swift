import Hummingbird

/// Checks `Authorization: Bearer <token>` (or `X-API-Key: <token>`, the header people give Health
/// Auto Export) when tokens are configured, and puts the token's user in the request's context. The comparison takes the same time wherever the first difference is, so a
/// token cannot be guessed byte by byte from timing.
struct BearerTokenMiddleware: RouterMiddleware {
    let users: CurrentUsers

    func handle(_ request: Request, context: ReceiverContext,
                next: (Request, ReceiverContext) async throws -> Response) async throws -> Response {
        if request.uri.path == "/health" { return try await next(request, context) }
        let header = request.headers[.authorization] ?? ""
        let token = header.hasPrefix("Bearer ") ? Array(header.utf8.dropFirst(7)) : Self.header("x-api-key", of: request).map { Array($0.utf8) }
        guard let token, let found = users.now.user(for: token) else {
            return JSONResponse.make(.unauthorized, ["detail": "Not authenticated: a valid Bearer token is required"])
        }
        var context = context
        context.user = found.user
        context.role = found.role
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

/// What a token may do, decided before any handler runs, for every route but `/health`: a route
/// not named here as a reading or an erasing one writes, or reads, the caller's own data, and only a
/// patient's token may call it. A new route is thus closed to carers and administrators until it is
/// named here: one forgotten check in one handler cannot open another patient's rows.
///
/// - `GET …/wearables/metrics/summary[?user=NAME]`: the data of NAME (the caller's own without it),
///   for a patient about themselves and for a carer or administrator given `reads=NAME`.
/// - `DELETE /api/v1/users/NAME`: an administrator's token only.
/// - anything else: a patient's token, about their own data (`?user=` naming another is refused).
struct AccessMiddleware: RouterMiddleware {
    /// The routes that answer with one user's data and take `?user=NAME`.
    static let readingPaths: Set<String> = ["/wearables/metrics/summary", "/api/v1/wearables/metrics/summary", "/report"]
    static let erasePrefix = "/api/v1/users/"

    func handle(_ request: Request, context: ReceiverContext,
                next: (Request, ReceiverContext) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path == "/health" { return try await next(request, context) }
        var context = context
        let asked = request.uri.queryParameters.get("user")
        if path.hasPrefix(Self.erasePrefix) {
            guard request.method == .delete, context.role.isAdmin else {
                return Self.forbidden("only an administrator's token may erase a user (a line of the tokens file ending in admin)")
            }
            return try await next(request, context)
        }
        if request.method == .get, Self.readingPaths.contains(path) {
            let subject = asked ?? context.user
            guard context.role.mayRead(subject, me: context.user) else {
                return Self.forbidden(context.role.writesOwnData || !context.role.reads.isEmpty
                    ? "this token may not read \(subject)'s data" + (asked == nil ? "; name the patient: ?user=NAME" : "")
                    : "this token reads no health data")
            }
            context.subject = subject
            return try await next(request, context)
        }
        guard context.role.writesOwnData else {
            return Self.forbidden("this token writes no health data"
                                  + (context.role.reads.isEmpty ? "" : "; it reads \(context.role.reads.sorted().joined(separator: ", ")) at ?user=NAME of the summary"))
        }
        guard asked == nil || asked == context.user else { return Self.forbidden("this token may not read or write \(asked ?? "")'s data") }
        context.subject = context.user
        return try await next(request, context)
    }

    static func forbidden(_ why: String) -> Response { JSONResponse.make(.forbidden, ["detail": why]) }
}
