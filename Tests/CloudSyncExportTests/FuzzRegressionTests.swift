import CloudSyncFuzzing
import CloudSyncTesting
import Foundation
import Testing

/// Every seed and every input a fuzzer once crashed on, replayed through the same checks the
/// fuzzers run (scripts/fuzz.sh). A broken invariant stops the test process with its message.
@Suite struct FuzzRegressionTests {
    static let fuzz = Paths.repository.appendingPathComponent("Fuzz")

    static func inputs(_ target: String) -> [String] {
        ["seeds", "regressions"].flatMap { FuzzReplay.files(at: fuzz.appendingPathComponent("\($0)/\(target)").path) }
            .filter { FileManager.default.fileExists(atPath: $0) }
    }

    @Test func exportPipelineInputs() throws {
        let files = Self.inputs("export")
        #expect(files.count >= 7)
        for file in files {
            try Data(contentsOf: URL(fileURLWithPath: file)).withUnsafeBytes(FuzzTargets.exportBytes)
        }
    }

    @Test func parserInputs() throws {
        let files = Self.inputs("parsers")
        #expect(files.contains { $0.hasSuffix("regressions/parsers/date-in-year-10000") })
        for file in files {
            try Data(contentsOf: URL(fileURLWithPath: file)).withUnsafeBytes(FuzzTargets.parsers)
        }
    }
}
