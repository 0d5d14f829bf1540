import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP exchange with retries, over AsyncHTTPClient (TLS, timeouts, connection reuse).
struct HTTPTransport: Sendable {
    let client: HTTPClient
    let configuration: UploadConfiguration
    /// Counts retries for the summary.
    let retries: RetryCounter

    struct Reply: Sendable {
        var status: Int
        var body: [UInt8]
        var object: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
    }

    /// Sends the request until it succeeds (2xx), with backoff on 5xx, 429 and network errors.
    /// Other statuses throw at once with the server's words; 401 and 403 say the token was refused.
    /// With `replyOf`, a 2xx counts only when its body is that target's reply (a JSON object with
    /// one of its `replyKeys`): a proxy or web page that answers 200 with HTML has not stored
    /// anything, so the batch must not be acknowledged (it is retried like a 5xx, which the
    /// receivers' duplicate keys make safe).
    func send(_ method: HTTPMethod, _ path: String, body: ByteBuffer?, what: String, replyOf target: UploadTarget? = nil) async throws -> Reply {
        let url = configuration.server.absoluteString.trimmingTrailingSlash + path
        var attempt = 0
        var waitedAsAsked = 0.0
        while true {
            attempt += 1
            try Task.checkCancellation()
            var lastProblem: String
            var retryAfter: Double?
            do {
                var request = HTTPClientRequest(url: url)
                request.method = method
                request.headers.add(name: "Accept", value: "application/json")
                request.headers.add(name: "User-Agent", value: "cloudsync")
                if let token = configuration.token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
                if let body {
                    request.headers.add(name: "Content-Type", value: "application/json")
                    request.body = .bytes(body)
                }
                let response = try await client.execute(request, timeout: .milliseconds(Int64(configuration.requestTimeout * 1000)))
                let buffer = try await response.body.collect(upTo: 16 << 20)
                let reply = Reply(status: Int(response.status.code), body: Array(buffer.readableBytesView))
                switch reply.status {
                case 200..<300:
                    if let target, reply.object.map({ object in target.replyKeys.contains { object[$0] != nil } }) != true {
                        lastProblem = "\(reply.status) with an answer that is not the \(target.contractName) reply (\(Self.words(reply.body)))"
                        break
                    }
                    return reply
                case 404:
                    throw UploadError.notFound(url, contract: configuration.target.contractName)
                case 401, 403:
                    throw UploadError.refusedToken(reply.status, Self.words(reply.body), hadToken: configuration.token != nil)
                case 429:
                    retryAfter = response.headers.first(name: "Retry-After").flatMap(Self.retryAfterSeconds)
                    lastProblem = "429 too many requests"
                case 500..<600:
                    // A 503 with Retry-After: the server is up but its database is not (serve on
                    // PostgreSQL while it restarts); it says when to come back.
                    retryAfter = response.headers.first(name: "Retry-After").flatMap(Self.retryAfterSeconds)
                    lastProblem = "\(reply.status) \(Self.words(reply.body))"
                default:
                    throw UploadError.rejected(reply.status, Self.words(reply.body), what: what)
                }
            } catch let error as UploadError {
                throw error
            } catch is CancellationError {
                throw UploadError.interrupted
            } catch {
                // Timeouts, refused or reset connections: the server may or may not have the batch.
                lastProblem = NetworkProblem.describe(error, server: configuration.server)
                if NetworkProblem.isPermanent(error) { throw UploadError.untrusted(lastProblem) }
            }
            let wait = configuration.retry.delay(afterAttempt: attempt, retryAfter: retryAfter)
            // A server that names its wait is alive and asks for patience: those waits count
            // against `maximumRetryAfter` in all, not against the attempts.
            if retryAfter != nil, waitedAsAsked + wait <= configuration.retry.maximumRetryAfter {
                waitedAsAsked += wait
                attempt -= 1
            } else if attempt >= configuration.retry.maximumAttempts {
                throw UploadError.gaveUp(attempt, lastProblem, what: what)
            }
            retries.increment()
            try await Task.sleep(for: .seconds(wait))
        }
    }

    /// The server's own words: FastAPI's `detail`, the steps API's `error`, else the body's start.
    static func words(_ body: [UInt8]) -> String {
        if let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] {
            if let detail = object["detail"] as? String { return detail }
            if let error = object["error"] as? String { return error }
            if let message = object["message"] as? String { return message }
        }
        return String(String(decoding: body.prefix(200), as: UTF8.self).filter { !$0.isNewline })
    }

    /// `Retry-After`: seconds, or an HTTP date.
    static func retryAfterSeconds(_ value: String) -> Double? {
        if let seconds = Double(value.trimmingCharacters(in: .whitespaces)) { return max(0, seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value).map { max(0, $0.timeIntervalSinceNow) }
    }
}

/// Counts retries across concurrent requests.
final class RetryCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func increment() { lock.lock(); value += 1; lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return value }
}

extension String {
    var trimmingTrailingSlash: String { hasSuffix("/") ? String(dropLast()) : self }
}
