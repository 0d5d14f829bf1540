import NIOCore
import NIOHTTP1
import AsyncHTTPClient
package import Foundation

/// One JSON POST with the upload's retry rules, for requests outside the batch flow (pairing).
package enum JSONPoster {
    package struct Answer: Sendable {
        package var status: Int
        package var body: Data
    }

    package static func post(server: URL, path: String, json: Data, token: String?, timeout: Double = 30,
                            caCertificates: String? = nil) async throws -> Answer {
        var configuration = UploadConfiguration(server: server)
        configuration.token = token
        configuration.requestTimeout = timeout
        configuration.caCertificates = caCertificates
        let client = try UploadClient.make(configuration)
        do {
            let reply = try await HTTPTransport(client: client, configuration: configuration, contract: nil, retries: RetryCounter())
                .send(.POST, path, body: ByteBuffer(bytes: json), what: "the pairing request")
            try await client.shutdown()
            return Answer(status: reply.status, body: Data(reply.body))
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}
