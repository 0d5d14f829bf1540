import CloudSyncTesting
import Foundation
import Testing

/// Issue 22, item 23: the documentation cannot drift from the tool. Every shell example of
/// README.md and docs/*.md runs on the sample as a user pastes it: the blocks of one file in order,
/// in one folder that holds `export.zip`, with the built `cloudsync` first on PATH (a block that
/// starts `serve … &` starts its own server). A block that cannot run here says why in its info
/// string (```` ```sh norun="…" ````). Usage synopses (plain blocks of `cloudsync …` lines) may
/// name only options the command has.
@Suite(.serialized, .enabled(if: DocumentationExamples.toolsInstalled,
                             "jq, or DuckDB in .venv (scripts/install-test-tools.sh), is missing: the examples use them"))
struct DocumentationExamplesTests {
    @Test(arguments: DocumentationExamples.files)
    func everyShellExampleRunsOnTheSample(_ file: String) throws {
        let blocks = try DocumentationExamples.blocks(in: file)
        for block in blocks where block.language == "sh" && block.notRun == nil {
            let result = try DocumentationExamples.run(block)
            #expect(result.status == 0, "\(file):\(block.line) exited \(result.status):\n\(block.text)\n--- stderr:\n\(result.stderr)")
        }
        for block in blocks where block.notRun != nil {
            #expect(!block.notRun!.isEmpty, "\(file):\(block.line): norun needs its reason")
        }
    }

    @Test func everySynopsisNamesOnlyOptionsTheCommandHas() throws {
        var helps: [String: String] = [:]
        for file in DocumentationExamples.files {
            for block in try DocumentationExamples.blocks(in: file) where block.language.isEmpty {
                for (command, options) in DocumentationExamples.synopses(block.text) {
                    if helps[command] == nil {
                        helps[command] = String(decoding: try CLI.run([command, "--help"]).stdout, as: UTF8.self)
                    }
                    for option in options {
                        #expect(helps[command]!.contains(option), "\(file):\(block.line): cloudsync \(command) has no \(option)")
                    }
                }
            }
        }
        #expect(helps.count >= 5, "synopses found for \(helps.keys.sorted())")
    }
}

enum DocumentationExamples {
    static let files = ["README.md"] + ((try? FileManager.default.contentsOfDirectory(atPath: Paths.repository.appendingPathComponent("docs").path)) ?? [])
        .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }

    static var toolsInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/jq") && DuckDB.isInstalled }

    struct Block {
        var line: Int
        var language: String
        var notRun: String?
        var text: String
    }

    /// The fenced blocks of `file`, with their info strings.
    static func blocks(in file: String) throws -> [Block] {
        let text = try String(contentsOf: Paths.repository.appendingPathComponent(file), encoding: .utf8)
        var blocks: [Block] = []
        var current: Block?
        for (number, line) in text.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("```") else {
                if current != nil { current!.text += String(line.drop { $0 == " " }.prefix(while: { _ in true })) + "\n" }
                continue
            }
            if let block = current {
                blocks.append(block)
                current = nil
                continue
            }
            let info = trimmed.dropFirst(3)
            let language = String(info.prefix { !$0.isWhitespace })
            var notRun: String?
            if let range = info.range(of: "norun=\"") {
                notRun = String(info[range.upperBound...].prefix { $0 != "\"" })
            }
            current = Block(line: number + 1, language: ["sh", "bash", "shell"].contains(language) ? "sh" : language, notRun: notRun, text: "")
        }
        return blocks
    }

    /// `cloudsync COMMAND … --option …` lines of a synopsis, continuation lines included.
    static func synopses(_ text: String) -> [(String, [String])] {
        var found: [(String, [String])] = []
        for line in text.components(separatedBy: "\n") {
            let words = line.split(separator: " ").map(String.init)
            let options = words.filter { $0.hasPrefix("--") }.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "[]|,…")) }
                .map { String($0.prefix { $0 != "=" && $0 != "]" && $0 != "|" }) }
            if words.first == "cloudsync", words.count > 1 {
                found.append((words[1], options))
            } else if !found.isEmpty, line.hasPrefix(" ") {
                found[found.count - 1].1 += options
            }
        }
        return found
    }

    /// The folder the examples of one file run in: the sample as `export.zip`, Health Auto Export's sample
    /// as `HealthAutoExport-2025-03-08-2025-03-09.json`, and a `duckdb`
    /// command (DuckDB's own engine, from .venv; its CLI is not packaged for Debian).
    static let folder: URL = {
        let dir = try! makeTemporaryDirectory("documentation-examples")
        try! FileManager.default.copyItem(atPath: Paths.sampleZip, toPath: dir.appendingPathComponent("export.zip").path)
        // What Health Auto Export's file automation writes (our own made-up sample).
        try! FileManager.default.copyItem(atPath: Paths.sampleHealthAutoExport,
                                          toPath: dir.appendingPathComponent("HealthAutoExport-2025-03-08-2025-03-09.json").path)
        let bin = dir.appendingPathComponent(".bin")
        try! FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let duckdb = bin.appendingPathComponent("duckdb")
        try! Data("""
            #!\(DuckDB.python)
            import sys, duckdb
            if len(sys.argv) != 3 or sys.argv[1] != "-c":
                sys.exit("this duckdb takes -c SQL only")
            duckdb.sql(sys.argv[2]).show()

            """.utf8).write(to: duckdb)
        chmod(duckdb.path, 0o755)
        return dir
    }()

    /// Runs a block with bash, stopping at the first failing command; background jobs are stopped after.
    static func run(_ block: Block) throws -> CLIResult {
        let script = "set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + block.text
        let binaries = CLI.binary.deletingLastPathComponent().path + ":" + folder.appendingPathComponent(".bin").path
        let environment = [
            "PATH": binaries + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
            "CLOUDSYNC_STORE": folder.appendingPathComponent("staging.sqlite").path,
            "USER_UUID": "0F8FAD5B-D9CB-469F-A165-70867728950E", "DEVICE_UUID": "7C9E6679-7425-40DE-944B-E07FC1F90AE7",
        ]
        return try CLI.run(["-c", "cd '\(folder.path)' && bash -c \"$0\"", script], environment: environment, tool: "/bin/bash")
    }
}
