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
