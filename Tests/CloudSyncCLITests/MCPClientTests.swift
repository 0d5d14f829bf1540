import CloudSyncTesting
import Foundation
import Testing

/// `cloudsync mcp` driven by the official MCP Python SDK (a real client, from `.venv`): every tool
/// with valid and hostile arguments, answers compared with numbers the client computes itself from
/// the export it wrote. The checks are in Tests/Python/mcp_client_check.py.
@Suite(.enabled(if: MCPClient.isInstalled, "the MCP Python SDK or DuckDB is not in .venv (scripts/install-test-tools.sh): MCP client tests skipped"))
struct MCPClientTests {
    @Test func everyToolAnswersARealClientAndRefusesHostileCalls() throws {
        let work = try makeTemporaryDirectory()
        let script = Paths.repository.appendingPathComponent("Tests/Python/mcp_client_check.py").path
        let result = try CLI.run([script, CLI.binary.path, work.path], tool: MCPClient.python)
        let output = String(decoding: result.stdout, as: UTF8.self)
        #expect(result.status == 0, "\(output)\n\(result.stderr)")
        #expect(output.contains("checks passed"), "\(output)")
    }
}

enum MCPClient {
    static let python = DuckDB.python
    static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: python) && (try? CLI.run(["-c", "import mcp, duckdb"], tool: python).status) == 0
    }
}

/// `cloudsync mcp` driven by a script that pipes its requests in and closes its input, raw JSON-RPC:
/// every request is answered before the server ends (the SDK answers each in a task of its own, and
/// its loop ended at the end of the input without waiting for them).
@Suite struct MCPPipedRequestsTests {
    @Test func everyRequestPipedInIsAnsweredBeforeTheServerEnds() throws {
        let store = try makeTemporaryDirectory().appendingPathComponent("staging.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        let requests = [
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"script","version":"1"}}}"#,
            #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"overview","arguments":{}}}"#,
        ].joined(separator: "\n") + "\n"
        let result = try CLI.run(["mcp", "--store", store], stdinBytes: Data(requests.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        let ids = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? Int
        }
        #expect(Set(ids) == [1, 2, 3], "\(String(decoding: result.stdout, as: UTF8.self).prefix(300))")
    }
}

