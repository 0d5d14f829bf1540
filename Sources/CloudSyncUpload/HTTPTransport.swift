import AsyncHTTPClient
package import CloudSyncModel
import Foundation
package import NIOCore
package import NIOHTTP1

/// One HTTP exchange with retries, over AsyncHTTPClient (TLS, timeouts, connection reuse).
package struct HTTPTransport: Sendable {
    let client: HTTPClient
    let configuration: UploadConfiguration
    /// Whose endpoints these are: its failures are read its way (`UploadContract.failure`) and its
    /// name is in messages. nil for a request outside the contracts' batches (pairing).
    let contract: (any UploadContract.Type)?
    /// Counts retries for the summary.
    let retries: RetryCounter
    /// Polled while a request is in flight and while a retry waits (SIGINT, SIGTERM): a stop is
    /// heard within a tenth of a second, not after a 30 s timeout or a 300 s `Retry-After`.
    var shouldStop: @Sendable () -> Bool = { false }

    /// An answer as it came: status and body.
    package struct Reply: Sendable {
        package var status: Int
        package var body: [UInt8]
        /// Its `Retry-After`, as written.
        var retryAfter: String?
    }

    /// Sends the request until it succeeds (2xx) and returns the answer as it came.
    func send(_ method: HTTPMethod, _ path: String, body: NIOCore.ByteBuffer?, what: String) async throws -> Reply {
        try await exchange(method, path, body: body, what: what) { $0 }
    }

    /// Sends the request until it succeeds with a body that decodes as `reply`, decoded once here.
    /// A 2xx that does not decode (a proxy's web page answering 200) has stored nothing, so it is
    /// no acknowledgement: it is retried like a 5xx, which the receivers' duplicate keys make safe.
    package func send<R: Decodable>(_ method: HTTPMethod, _ path: String, body: NIOCore.ByteBuffer?, what: String,
                                   decoding reply: R.Type) async throws -> R {
        try await exchange(method, path, body: body, what: what) { try? JSONDecoder().decode(R.self, from: Data($0.body)) }
    }

    /// The built JSON, copied once into the buffer a request sends.
    package static func requestBody(_ out: borrowing CloudSyncModel.ByteBuffer) -> NIOCore.ByteBuffer {
        out.withBytes { bytes in
            var body = ByteBufferAllocator().buffer(capacity: bytes.count)
            body.writeBytes(UnsafeRawBufferPointer(bytes))
            return body
        }
    }

    /// Backoff on 5xx, 429 and network errors; other statuses throw at once with the server's words,
    /// read first the contract's way, then by the common rules (401 and 403: the token was refused;
    /// 404: no such endpoint). `accept` turns a 2xx into the answer, or nil when it is not one.
    private func exchange<Answer>(_ method: HTTPMethod, _ path: String, body: NIOCore.ByteBuffer?, what: String,
                                  accept: (Reply) -> Answer?) async throws -> Answer {
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
                let (client, timeout) = (client, TimeAmount.milliseconds(Int64(configuration.requestTimeout * 1000)))
                let reply = try await Self.unlessStopped(shouldStop) { [request] in
                    let response = try await client.execute(request, timeout: timeout)
                    let buffer = try await response.body.collect(upTo: 16 << 20)
                    return Reply(status: Int(response.status.code), body: Array(buffer.readableBytesView),
                                 retryAfter: response.headers.first(name: "Retry-After"))
                }
                if !(200..<300).contains(reply.status),
                   let failure = contract?.failure(status: reply.status, said: Self.said(reply.body), url: url) {
                    throw failure
                }
                switch reply.status {
                case 200..<300:
                    if let answer = accept(reply) { return answer }
                    lastProblem = "\(reply.status) with an answer that is not the \(contract?.displayName ?? "expected") reply (\(Self.words(reply.body)))"
                case 404:
                    throw UploadError.notFound(url, contract: contract?.displayName ?? "pairing")
                case 401, 403:
                    throw UploadError.refusedToken(reply.status, Self.words(reply.body), hadToken: configuration.token != nil)
                case 429:
                    retryAfter = reply.retryAfter.flatMap(Self.retryAfterSeconds)
                    lastProblem = "429 too many requests"
                case 500..<600:
                    // A 503 with Retry-After: the server is up but its database is not (serve on
                    // PostgreSQL while it restarts); it says when to come back.
                    retryAfter = reply.retryAfter.flatMap(Self.retryAfterSeconds)
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
            try await Self.unlessStopped(shouldStop) { try await Task.sleep(for: .seconds(wait)) }
        }
    }

    /// `work`, or `UploadError.interrupted` as soon as `stop` says so (the work is then cancelled:
    /// AsyncHTTPClient drops the request, a sleep ends).
    static func unlessStopped<T: Sendable>(_ stop: @escaping @Sendable () -> Bool,
                                           _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        if stop() { throw UploadError.interrupted }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                while !stop() { try await Task.sleep(for: .milliseconds(100)) }
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw UploadError.interrupted }
            return value
        }
    }

    /// The server's own words: FastAPI's `detail`, the steps API's `error`, else the body's start.
    /// The words of an error's body, and whether they were the `detail` of a JSON object (FastAPI's
    /// errors: CloudCare speaking), not a page or an empty body.
    static func said(_ body: [UInt8]) -> ServerSaid {
        let detail = (try? JSONDecoder().decode(ServerWords.self, from: Data(body)))?.detail
        return ServerSaid(words: words(body), isJSONDetail: detail != nil)
    }

    static func words(_ body: [UInt8]) -> String {
        if let said = try? JSONDecoder().decode(ServerWords.self, from: Data(body)),
           let words = said.detail ?? said.error ?? said.message {
            return words
        }
        return String(String(decoding: body.prefix(200), as: UTF8.self).filter { !$0.isNewline })
    }

    /// Where each backend puts its words in an error's body.
    /// Each read on its own: FastAPI's `detail` is a list in its own validation errors.
    private struct ServerWords: Decodable {
        var detail: String?
        var error: String?
        var message: String?

        enum CodingKeys: CodingKey { case detail, error, message }

        init(from decoder: any Decoder) throws {
            let keys = try decoder.container(keyedBy: CodingKeys.self)
            detail = try? keys.decodeIfPresent(String.self, forKey: .detail)
            error = try? keys.decodeIfPresent(String.self, forKey: .error)
            message = try? keys.decodeIfPresent(String.self, forKey: .message)
        }
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

/// What a server said in an error's body (`HTTPTransport.said`).
package struct ServerSaid: Sendable {
    package var words: String
    package var isJSONDetail: Bool
}
