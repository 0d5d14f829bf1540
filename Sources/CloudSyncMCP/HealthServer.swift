package import CloudSyncStore
import Foundation
import Logging
import MCP

/// `cloudsync mcp`: the MCP server over standard input and output, its tools answered from the
/// staging store (read-only).
package enum HealthServer {
    package static let instructions = """
        Tools over one person's Apple Health history, imported by cloudsync. Start with `overview` to see \
        which types and date ranges the store holds. Dates are ISO 8601; a date is a whole day in the \
        given time zone. A type is named by its identifier, its short name in any case (stepCount, heartRate) or \
        an everyday name (steps, sleep, hr, hrv, weight). Amounts (steps, distance, energy) are summed and iPhone \
        and Watch merged without double counting; other types are averaged. In `sql`, questions per day or \
        weekday go to the `daily` view with the person's `timeZone`: summing `metrics` counts a walk once per \
        device that recorded it, and its `start` is UTC.
        """

    /// Serves until the client closes the connection. Throws when the store cannot be opened.
    package static func run(store: StoreAddress, version: String) async throws {
        // Logs go to stderr (stdout carries the protocol), without bootstrapping the process's logging.
        let logger = Logger(label: "cloudsync.mcp", factory: { StreamLogHandler.standardError(label: $0) })
        let tools = try HealthTools(store: store, logger: logger)
        let server = Server(name: "cloudsync", version: version, instructions: instructions,
                            capabilities: .init(tools: .init(listChanged: false)))
        await server.withMethodHandler(ListTools.self) { _ in .init(tools: ToolCatalog.tools) }
        await server.withMethodHandler(CallTool.self) { params in
            do {
                let (structured, text) = try tools.call(params.name, ToolArguments(params.arguments))
                return .init(content: [.text(text: text, annotations: nil, _meta: nil)], structuredContent: Value?.some(structured), isError: false)
            } catch {
                // Refused calls and store errors alike are tool errors: the server keeps serving.
                return .init(content: [.text(text: "\(error)", annotations: nil, _meta: nil)], isError: true)
            }
        }
        let transport = LineTransport()
        try await server.start(transport: transport)
        await server.waitUntilCompleted()
        // The input ended (a script that pipes its requests in and closes): answer what was asked.
        await transport.answeredEverything(within: 60)
    }
}
