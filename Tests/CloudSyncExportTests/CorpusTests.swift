import CloudSyncExport
import CloudSyncModel
import CloudSyncTesting
import Foundation
import Testing
import ZIPFoundation

/// The real exports in ../shared/corpus (personal data: read in place, never copied).
/// Skipped, saying so, when the corpus is not there.
@Suite(.enabled(if: Paths.corpusExists, "../shared/corpus is not present: corpus tests skipped"))
struct CorpusTests {
    static let exports: [String] = {
        let dir = Paths.corpus.appendingPathComponent("exports")
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted().map { dir.appendingPathComponent($0).path }
    }()

    /// The export's XML, taken out of the zip with ZIPFoundation in one piece (independent of the
    /// converter's streaming path).
    static func xml(of path: String) throws -> String {
        guard path.hasSuffix(".zip") else { return try String(contentsOfFile: path, encoding: .utf8) }
        let archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read, pathEncoding: .utf8)
        for entry in archive where entry.type == .file && entry.path.hasSuffix(".xml") && !entry.path.hasSuffix("export_cda.xml") {
            var data = Data()
            _ = try archive.extract(entry) { data.append($0) }
            let text = String(decoding: data, as: UTF8.self)
            if text.prefix(4096).contains("HealthData") { return text }
        }
        throw CancellationError()
    }

    /// Metrics per type counted from the text, line by line: top-level `<Record type=…>` (not those
    /// inside a Correlation), `<Workout`, `<ActivitySummary`.
    static func independentCounts(_ xml: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        var inCorrelation = false
        xml.enumerateLines { line, _ in
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("<Correlation ") { inCorrelation = true }
            if trimmed.hasPrefix("</Correlation>") { inCorrelation = false }
            if trimmed.hasPrefix("<Record "), !inCorrelation, let range = trimmed.range(of: "type=\"") {
                let type = trimmed[range.upperBound...].prefix { $0 != "\"" }
                counts[String(type), default: 0] += 1
            } else if trimmed.hasPrefix("<Workout ") {
                counts["workout", default: 0] += 1
            } else if trimmed.hasPrefix("<ActivitySummary ") {
                counts["activitySummary", default: 0] += 1
            }
        }
        return counts
    }

    @Test(arguments: exports)
    func everyExportConvertsWithTheRightCountsPerType(_ path: String) throws {
        let (metrics, json, report) = try convert(path)
        let ours = Dictionary(metrics.map { ($0.type, 1) }, uniquingKeysWith: +)
        #expect(report.invalidCount == 0)
        #expect(ours == Self.independentCounts(try Self.xml(of: path)))
        #expect(json.count == metrics.count)
    }

    @Test func brokenDTDsAreReportedAndIgnored() throws {
        for name in ["v13-broken-dtd-unclosed-attlist.zip", "v13-broken-dtd-stray-gt.zip"] {
            let (metrics, _, report) = try convert(Paths.corpus.appendingPathComponent("exports/\(name)").path)
            #expect(report.dtdDefects.count == 1, "\(name)")
            #expect(report.exportVersion == 13)
            #expect(metrics.count == 8038)
        }
    }

    /// Our metrics have exactly the shape of the real iOS app's payloads.
    @Test func metricShapeMatchesTheCloudCarePayloads() throws {
        let dir = Paths.corpus.appendingPathComponent("cloudcare-payloads")
        let payloads = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }
        #expect(!payloads.isEmpty)
        var theirKeys = Set<String>(), envelopeKeys = Set<String>()
        for name in payloads {
            let envelope = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent(name))) as? [String: Any])
            envelopeKeys.formUnion(envelope.keys)
            for case let metric as [String: Any] in try #require(envelope["metrics"] as? [Any]) {
                theirKeys.formUnion(metric.keys)
                try Self.checkShape(metric)
            }
        }
        let (_, json, _) = try convert(Paths.corpus.appendingPathComponent("exports/v13-en_FR-hrv-routes.zip").path)
        for line in json {
            let metric = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(Set(metric.keys) == theirKeys)
            try Self.checkShape(metric)
        }
        #expect(envelopeKeys == ["userId", "deviceId", "exportTimestamp", "dataRange", "metrics"])
    }

    static func checkShape(_ metric: [String: Any]) throws {
        let utc = #/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/#
        for key in ["type", "startDate", "endDate", "unit", "sourceApp"] { #expect(metric[key] is String, "\(key)") }
        #expect(try utc.wholeMatch(in: try #require(metric["startDate"] as? String)) != nil)
        #expect(try utc.wholeMatch(in: try #require(metric["endDate"] as? String)) != nil)
        #expect(metric["value"] is NSNumber)
        let metadata = try #require(metric["metadata"] as? [String: Any])
        #expect(metadata.values.allSatisfy { $0 is String })
        #expect(metadata["device"] is String)
    }

    /// The hand-cut modern workouts: every one maps with its totals.
    @Test func modernWorkoutFragments() throws {
        for name in ["workout_running.xml", "workout_cycling.xml", "workout_running_multiple_parts.xml"] {
            let fragment = try String(contentsOf: Paths.corpus.appendingPathComponent("fragments/\(name)"), encoding: .utf8)
            let (metrics, _, _) = try convert(try writeFile("<HealthData locale=\"en_US\">\n\(fragment)\n</HealthData>\n"))
            let workout = try #require(metrics.first { $0.type == "workout" }, "\(name)")
            for key in ["activityType", "totalDistanceKm", "totalEnergyKcal", "heartRateAverage", "routeFile", "device"] {
                #expect(workout.metadata[key] != nil, "\(name): \(key)")
            }
            #expect(workout.metadata["device"] == "Apple Watch")
        }
    }

    /// Old exports keep inline route points.
    @Test func inlineLocationsAreKept() throws {
        var points = 0
        try ExportReader.read(Paths.corpus.appendingPathComponent("exports/v-old-inline-locations.xml").path) { element in
            if case .workout(let workout) = element { points += workout.routes.flatMap(\.locations).count }
        }
        #expect(points == 2)
    }
}
