import Foundation

/// `cloudsync mcp` driven as a script drives it: the handshake, then tool calls, on standard input;
/// each call's answer read back by its id.
public enum MCPScript {
    /// Runs `cloudsync mcp` with `arguments` (the store) and `calls` (a tool's name, its arguments as
    /// JSON); each call's `result` as JSON with sorted keys, by the call's index in `calls`.
    public static func results(of calls: [(tool: String, arguments: String)], _ arguments: [String]) throws -> (run: CLIResult, results: [Int: String]) {
        let requests = ([#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"script","version":"1"}}}"#,
                         #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#]
                        + calls.enumerated().map { index, call in
                            #"{"jsonrpc":"2.0","id":\#(index + 2),"method":"tools/call","params":{"name":"\#(call.tool)","arguments":\#(call.arguments)}}"#
                        }).joined(separator: "\n") + "\n"
        let run = try CLI.run(["mcp"] + arguments, stdinBytes: Data(requests.utf8))
        var results: [Int: String] = [:]
        for line in String(decoding: run.stdout, as: UTF8.self).split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let id = object["id"] as? Int,
                  calls.indices.contains(id - 2) else { continue }
            results[id - 2] = String(decoding: try JSONSerialization.data(withJSONObject: object["result"] ?? [:], options: [.sortedKeys]),
                                     as: UTF8.self)
        }
        return (run, results)
    }
}
