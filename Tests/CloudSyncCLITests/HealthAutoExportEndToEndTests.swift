import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The whole story of issue 25 through the built binary: import an export; push Health Auto Export
/// data over HTTP that overlaps it (the same samples, summaries of days it covers) and extends it past
/// its ExportDate (individual samples, summaries of new days); `aggregate --bucket day`, with and
/// without `--merge-sources`, equals daily totals computed here from the data itself; the same push
/// again adds nothing; `upload` then sends exactly the new samples.
@Suite struct HealthAutoExportEndToEndTests {
    /// A step sample: its day (June 2024), hour, minutes, source, value. Every sample lasts ten minutes.
    struct Step {
        var day, hour, minute: Int
        var watch: Bool
        var value: Double
        var start: String { String(format: "2024-06-%02d %02d:%02d:00 +0000", day, hour, minute) }
        var end: String { String(format: "2024-06-%02d %02d:%02d:00 +0000", day, hour, minute + 10) }
        var source: String { watch ? "Zoë’s Apple Watch" : "Zoë’s iPhone" }
        var dayLabel: String { String(format: "2024-06-%02d", day) }
        /// The instant, to compare with the ExportDate.
        var seconds: Int { ((day - 1) * 24 + hour) * 3600 + minute * 60 }
    }

    /// ExportDate: 2024-06-03 12:00 UTC.
    static let exportDate = Step(day: 3, hour: 12, minute: 0, watch: true, value: 0).seconds

    /// The export: June 1–3 before noon, the Watch and the iPhone both counting the same walks (the
    /// iPhone a little less), every two hours.
    static let exported: [Step] = {
        var steps: [Step] = []
        for day in 1...3 {
            for hour in stride(from: 0, to: day == 3 ? 12 : 24, by: 2) {
                steps.append(Step(day: day, hour: hour, minute: 0, watch: true, value: Double(100 + day * 10 + hour)))
                steps.append(Step(day: day, hour: hour, minute: 0, watch: false, value: Double(90 + day * 10 + hour)))
            }
        }
        return steps
    }()

    /// The push: June 2 again (the same samples), June 3 (before and after noon), June 4 (both
    /// devices, every hour); summaries of June 1, 2 (covered by the export), June 4 (it has samples)
    /// and June 5 (new).
    static let pushedSamples: [Step] = {
        var steps = exported.filter { $0.day == 2 }
        steps.append(Step(day: 3, hour: 9, minute: 30, watch: true, value: 55))   // before the ExportDate, not in the export
        for hour in 13..<24 { steps.append(Step(day: 3, hour: hour, minute: 15, watch: true, value: Double(hour))) }
        for hour in 0..<24 {
            steps.append(Step(day: 4, hour: hour, minute: 20, watch: true, value: Double(200 + hour)))
            steps.append(Step(day: 4, hour: hour, minute: 20, watch: false, value: Double(150 + hour)))
        }
        return steps
    }()
    static let pushedDays: [(day: Int, steps: Double)] = [(1, 9000), (2, 9100), (4, 7777), (5, 6543)]

    static func exportXML() -> String {
        let records = exported.map { step in
            let device = step.watch ? "name:Apple Watch, model:Watch" : "name:iPhone, model:iPhone"
            return " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"\(step.source)\" device=\"&lt;&lt;HKDevice: 0x1&gt;, \(device)&gt;\" unit=\"count\" creationDate=\"\(step.end)\" startDate=\"\(step.start)\" endDate=\"\(step.end)\" value=\"\(Int(step.value))\"/>"
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n <ExportDate value=\"2024-06-03 12:00:00 +0000\"/>\n"
            + records.joined(separator: "\n") + "\n</HealthData>\n"
    }

    static func pushJSON() -> Data {
        let samples = pushedSamples.map { #"{"date":"\#($0.start)","start":"\#($0.start)","end":"\#($0.end)","qty":\#(Int($0.value)),"source":"\#($0.source)"}"# }
        let days = pushedDays.map { String(format: #"{"date":"2024-06-%02d 00:00:00 +0000","qty":%d,"source":"Zoë’s iPhone|Zoë’s Apple Watch"}"#, $0.day, Int($0.steps)) }
        return Data(#"{"data":{"metrics":[{"name":"step_count","units":"count","data":[\#(samples.joined(separator: ","))]},{"name":"step_count","units":"count","data":[\#(days.joined(separator: ","))]}]}}"#.utf8)
    }

    /// The daily totals, computed from the data: the export before its date; the pushed samples
    /// after it (those before it are the export's to tell); a pushed day only where no counted
    /// sample falls in it. Merging counts a span recorded by both devices once, for the Watch.
    static func expected(merged: Bool) -> [String: Double] {
        var counted = exported + pushedSamples.filter { $0.seconds >= exportDate }
        if merged {
            let watchSpans = Set(counted.filter(\.watch).map(\.start))
            counted = counted.filter { $0.watch || !watchSpans.contains($0.start) }
        }
        var totals: [String: Double] = [:]
        for step in counted { totals[step.dayLabel, default: 0] += step.value }
        for (day, steps) in pushedDays {
            let dayStart = Step(day: day, hour: 0, minute: 0, watch: true, value: 0).seconds
            let hasSamples = counted.contains { $0.seconds >= dayStart && $0.seconds < dayStart + 86_400 }
            if dayStart >= exportDate && !hasSamples { totals[String(format: "2024-06-%02d", day), default: 0] += steps }
        }
        return totals
    }

    static func daily(_ store: String, merged: Bool) throws -> [String: Double] {
        let result = try CLI.run(["aggregate", "--store", store, "--bucket", "day", "--types", "stepCount", "--format", "jsonl"]
                                 + (merged ? ["--merge-sources"] : []))
        #expect(result.status == 0, "\(result.stderr)")
        var totals: [String: Double] = [:]
        for line in result.lines where !line.isEmpty {
            let row = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            totals[row["bucket"] as! String] = (row["sum"] as! NSNumber).doubleValue
        }
        return totals
    }

    static func receivedCount(_ serve: ServeProcess) throws -> Int { try serve.storeCount() }

    @Test func exportThenPushesThenUpload() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        let export = try writeFile(Self.exportXML(), named: "export.xml", in: dir)
        #expect(try CLI.run(["import", export, "--store", store]).status == 0)
        // A CloudCare receiver takes the export first.
        let receiver = try ServeProcess([], directory: dir.appendingPathComponent("receiver").creatingDirectory(), name: "receiver")
        defer { _ = receiver.stop() }
        let upload = try CLI.run(["upload", "--no-token", "--all-types", "--store", store, "--server", receiver.url + "/api/v1", "-q"])
        #expect(upload.status == 0, "\(upload.stderr)")
        #expect(try Self.receivedCount(receiver) == Self.exported.count)

        // The phone pushes to serve --store.
        let token = "a-token-of-enough-characters"
        let tokenFile = try writeFile(token, named: "token", in: dir)
        let phone = try ServeProcess(["--store", store, "--token-file", tokenFile], directory: dir, name: "phone")
        let first = try HealthAutoExportServeTests.push(phone.url, body: Self.pushJSON(), token: token, aggregation: "days")
        #expect(first.status == 200, "\(first.object)")
        let pushedTotal = Self.pushedSamples.count + Self.pushedDays.count
        let sameAsExport = Self.exported.filter { $0.day == 2 }.count
        #expect(first.object["alreadyThere"] as? Int == sameAsExport)
        #expect(first.object["stored"] as? Int == pushedTotal - sameAsExport)
        let again = try HealthAutoExportServeTests.push(phone.url, body: Self.pushJSON(), token: token, aggregation: "days")
        #expect(again.status == 200 && again.object["stored"] as? Int == 0 && again.object["alreadyThere"] as? Int == pushedTotal)
        #expect(phone.stop() == 0)

        // What the rule gives, said plainly: June 1–2 are the export's, June 3 the export's morning
        // and the pushed afternoon, June 4 the pushed samples (not its summary), June 5 its summary.
        let plain = Self.expected(merged: false), merged = Self.expected(merged: true)
        #expect(plain["2024-06-05"] == 6543 && plain["2024-06-04"] == Double((0..<24).reduce(0) { $0 + 350 + 2 * $1 }))
        #expect(merged["2024-06-04"] == Double((0..<24).reduce(0) { $0 + 200 + $1 }) && plain["2024-06-01"]! > merged["2024-06-01"]!)
        #expect(plain.count == 5)
        #expect(try Self.daily(store, merged: false) == Self.expected(merged: false))
        #expect(try Self.daily(store, merged: true) == Self.expected(merged: true))

        // upload sends exactly the new samples: those that count (after the ExportDate; the new day).
        let newSamples = Self.pushedSamples.filter { $0.seconds >= Self.exportDate }.count + 1   // + June 5's summary
        let before = try Self.receivedCount(receiver)
        let second = try CLI.run(["upload", "--no-token", "--all-types", "--store", store, "--server", receiver.url + "/api/v1", "-q"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try Self.receivedCount(receiver) - before == newSamples)
        let third = try CLI.run(["upload", "--no-token", "--all-types", "--store", store, "--server", receiver.url + "/api/v1"])
        #expect(third.stderr.contains("nothing to upload"), "\(third.stderr)")
    }
}

extension URL {
    func creatingDirectory() throws -> URL {
        try FileManager.default.createDirectory(at: self, withIntermediateDirectories: true)
        return self
    }
}
