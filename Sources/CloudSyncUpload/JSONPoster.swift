import NIOHTTP1
import AsyncHTTPClient
import Foundation

/// One JSON POST with the upload's retry rules, for requests outside the batch flow (pairing).
public enum JSONPoster {
    public struct Answer: Sendable {
        public var status: Int
        public var body: Data
    }

    public static func post(server: URL, path: String, json: Data, token: String?, timeout: Double = 30) async throws -> Answer {
        var configuration = UploadConfiguration(server: server)
        configuration.token = token
        configuration.requestTimeout = timeout
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let reply = try await HTTPTransport(client: client, configuration: configuration, retries: RetryCounter())
                .send(.POST, path, body: Array(json), what: "the pairing request")
            try await client.shutdown()
            return Answer(status: reply.status, body: Data(reply.body))
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}
