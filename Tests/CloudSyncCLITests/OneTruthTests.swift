import CloudSyncModel
import CloudSyncTesting
import Foundation
import Testing

/// One truth per store (issue 28), through the built binary: a store built from an export, two
/// pushes of the phone that overlap it and extend it (samples and day summaries, a bucket pushed
/// again, samples before the export's date), repeats and a record written twice, a later export that
/// supersedes pushed rows and adopts the pushed samples it also holds, and the first push once more
/// as a file. Then every reader gives the numbers computed here from the inputs by the rule of
/// docs/store.md: `status` (text and `--json`), `aggregate` (with and without `--merge-sources`),
/// `export` (with and without `--count-repeats`), `upload --dry-run` (CloudCare's types and
/// `--all-types`), the MCP `overview`, `series`, `records`, `sql` and `sleep`, and the report. A night
/// recorded by a Watch, an iPhone and a third app gives the same minutes asleep and in bed in
/// `aggregate`, the `sleep` tool and the report.
@Suite struct OneTruthTests {
    /// A sample as the inputs write it. Dates are seconds since 1970 UTC.
    struct Sample: Hashable {
        var type: String
        var start: Int64
        var end: Int64
        var value: Double
        var source: String
        var category: String? = nil
        /// A Health Auto Export day bucket ("Summarize Data").
        var summary = false
        var creation: Int64 = 0

        /// The identity but for the creation date: alike samples are the same moment.
        var moment: String { "\(type)|\(start)|\(end)|\(value)|\(source)|\(category ?? "")" }
        var bucketKey: String { "\(type)|\(start)|\(end)|\(source)" }
    }

    static let steps = "HKQuantityTypeIdentifierStepCount", heartRate = "HKQuantityTypeIdentifierHeartRate"
    static let sleep = "HKCategoryTypeIdentifierSleepAnalysis"
    static let watch = "Zoë’s Apple Watch", phone = "Zoë’s iPhone", autoSleep = "AutoSleep"

    /// 2024-06-DD HH:MM UTC.
    static func at(_ day: Int, _ hour: Int, _ minute: Int = 0) -> Int64 {
        Int64(1_717_200_000 + (day - 1) * 86_400 + hour * 3600 + minute * 60)   // 1_717_200_000 is 2024-06-01 00:00 UTC
    }

    static let firstExportDate = at(3, 12), secondExportDate = at(4, 6)

    // MARK: the inputs

    /// The first export: steps of the Watch and the iPhone counting the same walks every two hours,
    /// the Watch's heart rate every three hours (one sample written twice by the export, one repeated
    /// a day later by a sync), and one night recorded three times (see `night`).
    static let firstExport: [Sample] = {
        var samples: [Sample] = []
        for day in 1...3 {
            for hour in stride(from: 0, to: day == 3 ? 12 : 24, by: 2) {
                samples.append(Sample(type: steps, start: at(day, hour), end: at(day, hour, 10), value: Double(100 + day * 10 + hour), source: watch))
                samples.append(Sample(type: steps, start: at(day, hour), end: at(day, hour, 10), value: Double(90 + day * 10 + hour), source: phone))
            }
            for hour in stride(from: 0, to: day == 3 ? 12 : 24, by: 3) {
                samples.append(Sample(type: heartRate, start: at(day, hour), end: at(day, hour), value: Double(60 + hour), source: watch))
            }
        }
        return samples + night
    }()

    /// The night of Saturday 2024-06-01 in Paris (UTC+2): the iPhone in bed 23:00–07:20 (500 min); the
    /// Watch's stages 23:10–03:00 and 03:10–07:00 (its deep sleep begins after midnight), awake
    /// 03:00–03:10; AutoSleep asleep 23:20–07:10. Asleep, merged: 23:10–07:10, 480 minutes.
    static let night: [Sample] = [
        Sample(type: sleep, start: at(1, 21), end: at(2, 5, 20), value: 500, source: phone, category: "HKCategoryValueSleepAnalysisInBed"),
        Sample(type: sleep, start: at(1, 21, 10), end: at(1, 23), value: 110, source: watch, category: "HKCategoryValueSleepAnalysisAsleepCore"),
        Sample(type: sleep, start: at(1, 23), end: at(2, 0), value: 60, source: watch, category: "HKCategoryValueSleepAnalysisAsleepDeep"),
        Sample(type: sleep, start: at(2, 0), end: at(2, 1), value: 60, source: watch, category: "HKCategoryValueSleepAnalysisAsleepREM"),
        Sample(type: sleep, start: at(2, 1), end: at(2, 1, 10), value: 10, source: watch, category: "HKCategoryValueSleepAnalysisAwake"),
        Sample(type: sleep, start: at(2, 1, 10), end: at(2, 5), value: 230, source: watch, category: "HKCategoryValueSleepAnalysisAsleepCore"),
        Sample(type: sleep, start: at(1, 21, 20), end: at(2, 5, 10), value: 470, source: autoSleep, category: "HKCategoryValueSleepAnalysisAsleepUnspecified"),
    ]

    /// Samples the first export holds twice more: the same heart rate again (the same creation date:
    /// stored once), and AutoSleep's night and a heart rate synced again a day later (repeats: kept,
    /// counted once).
    static let writtenTwice = Sample(type: heartRate, start: at(2, 12), end: at(2, 12), value: 72, source: watch)
    static let repeats = [Sample(type: heartRate, start: at(2, 9), end: at(2, 9), value: 69, source: watch, creation: 86_400),
                          Sample(type: sleep, start: at(1, 21, 20), end: at(2, 5, 10), value: 470, source: autoSleep,
                                 category: "HKCategoryValueSleepAnalysisAsleepUnspecified", creation: 86_400)]

    /// The second export: all of the first, the Watch's steps until the morning of June 4, and two
    /// heart rates the phone had pushed (the same samples) and a new one.
    static let secondExport: [Sample] = firstExport
        + [at(3, 14), at(3, 16), at(3, 18), at(3, 20), at(3, 22), at(4, 0), at(4, 2), at(4, 4)].map {
            Sample(type: steps, start: $0, end: $0 + 600, value: 50, source: watch)
        }
        + [Sample(type: heartRate, start: at(3, 14), end: at(3, 14), value: 75, source: watch),
           Sample(type: heartRate, start: at(3, 15), end: at(3, 15), value: 76, source: watch),
           Sample(type: heartRate, start: at(4, 2), end: at(4, 2), value: 58, source: watch)]

    /// The first push: June 2 again (the export's samples), June 3 before and after the first
    /// export's date, June 4 from both devices; day summaries of June 1, 4 (which has samples) and 5;
    /// heart rates before and after the date.
    static let firstPush: [Sample] = {
        var samples = firstExport.filter { $0.type == steps && $0.start >= at(2, 0) && $0.start < at(3, 0) }
        samples.append(Sample(type: steps, start: at(3, 9, 30), end: at(3, 9, 40), value: 55, source: watch))
        for hour in 13..<24 { samples.append(Sample(type: steps, start: at(3, hour, 15), end: at(3, hour, 25), value: Double(hour), source: watch)) }
        for hour in 0..<24 {
            samples.append(Sample(type: steps, start: at(4, hour, 20), end: at(4, hour, 30), value: Double(200 + hour), source: watch))
            samples.append(Sample(type: steps, start: at(4, hour, 20), end: at(4, hour, 30), value: Double(150 + hour), source: phone))
        }
        samples += [(1, 9000.0), (4, 7777), (5, 6543)].map { Sample(type: steps, start: at($0.0, 0), end: at($0.0 + 1, 0), value: $0.1, source: phone, summary: true) }
        samples += [(3, 10, 70.0), (3, 14, 75), (3, 15, 76), (3, 16, 77), (4, 8, 80), (4, 9, 81)].map {
            Sample(type: heartRate, start: at($0.0, $0.1), end: at($0.0, $0.1), value: $0.2, source: watch)
        }
        return samples
    }()

    /// The second push: June 5 again with the day's later total, June 6, a heart rate.
    static let secondPush: [Sample] = [
        Sample(type: steps, start: at(5, 0), end: at(6, 0), value: 7000, source: phone, summary: true),
        Sample(type: steps, start: at(6, 0), end: at(7, 0), value: 5000, source: phone, summary: true),
        Sample(type: heartRate, start: at(4, 10), end: at(4, 10), value: 82, source: watch),
    ]

    // MARK: what counts, computed from the inputs

    /// The rule of docs/store.md: the exports' samples (each once); pushed samples after the latest
    /// export's date that no export holds; a pushed bucket's latest value, after that date, where no
    /// counted sample of its type starts in it.
    static let countedSamples: [Sample] = {
        var moments = Set<String>()
        var samples: [Sample] = []
        for sample in secondExport where moments.insert(sample.moment).inserted { samples.append(sample) }
        for sample in firstPush + secondPush where !sample.summary && sample.start >= secondExportDate && moments.insert(sample.moment).inserted {
            samples.append(sample)
        }
        var latest: [String: Sample] = [:]
        for sample in firstPush + secondPush where sample.summary { latest[sample.bucketKey] = sample }
        for bucket in latest.values where bucket.start >= secondExportDate
            && !samples.contains(where: { $0.type == bucket.type && !$0.summary && $0.start >= bucket.start && $0.start < bucket.end }) {
            samples.append(bucket)
        }
        return samples
    }()

    /// The pushed rows that count: those no export holds.
    static let pushedCounted = countedSamples.filter { sample in !secondExport.contains { $0.moment == sample.moment } }.count

    /// Pushed rows kept but not counted: every pushed moment the store keeps as a pushed row (not
    /// one an export holds: the first export's were there already, the second's become its own),
    /// less those that count.
    static let superseded: Int = {
        let exported = Set(secondExport.map(\.moment))
        let pushedRows = Set((firstPush + secondPush).map(\.moment)).subtracting(exported)
        return pushedRows.count - pushedCounted
    }()

    static let paris = TimeZone(identifier: "Europe/Paris")!

    static func parisDay(_ instant: Int64) -> String {
        String(UTCDateFormatter.string(instant + Int64(paris.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))))).prefix(10))
    }

    /// Per Paris day, the sum of a type's counted samples; merged: a span the Watch recorded counts once, for the Watch.
    static func daily(_ type: String, merged: Bool) -> [String: Double] {
        let samples = countedSamples.filter { $0.type == type }
        let watchSpans = Set(samples.filter { $0.source == watch }.map { "\($0.start)-\($0.end)" })
        var sums: [String: Double] = [:]
        for sample in samples where !(merged && sample.source == phone && !sample.summary && watchSpans.contains("\(sample.start)-\(sample.end)")) {
            sums[parisDay(sample.start), default: 0] += sample.value
        }
        return sums
    }

    // MARK: writing the inputs

    static func exportXML(_ samples: [Sample], exportDate: Int64, extra: [Sample]) -> String {
        func date(_ instant: Int64) -> String {
            UTCDateFormatter.string(instant).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " +0000")
        }
        let records = (samples + extra).map { sample -> String in
            let device = sample.source == watch ? "name:Apple Watch, model:Watch" : "name:iPhone, model:iPhone"
            let unit = sample.type == steps ? "count" : sample.type == heartRate ? "count/min" : nil
            let value = sample.category ?? NumberFormatting.string(sample.value)
            return " <Record type=\"\(sample.type)\" sourceName=\"\(sample.source)\" device=\"&lt;&lt;HKDevice: 0x1&gt;, \(device)&gt;\""
                + (unit.map { " unit=\"\($0)\"" } ?? "")
                + " creationDate=\"\(date(sample.end + 60 + sample.creation))\" startDate=\"\(date(sample.start))\" endDate=\"\(date(sample.end))\" value=\"\(value)\"/>"
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n <ExportDate value=\"\(date(exportDate))\"/>\n"
            + records.joined(separator: "\n") + "\n</HealthData>\n"
    }

    static func pushJSON(_ samples: [Sample]) -> Data {
        func date(_ instant: Int64) -> String {
            UTCDateFormatter.string(instant).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " +0000")
        }
        let stepPoints = samples.filter { $0.type == steps }.map { sample in
            sample.summary
                ? #"{"date":"\#(date(sample.start))","qty":\#(Int(sample.value)),"source":"\#(sample.source)|\#(watch)"}"#
                : #"{"date":"\#(date(sample.start))","start":"\#(date(sample.start))","end":"\#(date(sample.end))","qty":\#(Int(sample.value)),"source":"\#(sample.source)"}"#
        }
        let heartPoints = samples.filter { $0.type == heartRate }.map {
            #"{"date":"\#(date($0.start))","Min":\#(Int($0.value)),"Avg":\#(Int($0.value)),"Max":\#(Int($0.value)),"source":"\#($0.source)"}"#
        }
        return Data(#"{"data":{"metrics":[{"name":"step_count","units":"count","data":[\#(stepPoints.joined(separator: ","))]},{"name":"heart_rate","units":"count/min","data":[\#(heartPoints.joined(separator: ","))]}]}}"#.utf8)
    }

    // MARK: the test

    @Test func everyReaderGivesTheSameNumbers() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        let first = try writeFile(Self.exportXML(Self.firstExport, exportDate: Self.firstExportDate, extra: [Self.writtenTwice] + Self.repeats),
                                  named: "export-1.xml", in: dir)
        let firstImport = try CLI.run(["import", first, "--store", store])
        #expect(firstImport.status == 0 && firstImport.stderr.contains("1 written twice"), "\(firstImport.stderr)")

        // The phone pushes twice to serve --store.
        let token = "a-token-of-enough-characters"
        let tokenFile = try writeFile(token, named: "token", in: dir)
        func push(_ samples: [Sample], expecting check: ([String: Any]) -> Bool) throws {
            let phone = try ServeProcess(["--store", store, "--token-file", tokenFile], directory: dir, name: "phone")
            let reply = try HealthAutoExportServeTests.push(phone.url, body: Self.pushJSON(samples), token: token, aggregation: "days")
            #expect(reply.status == 200 && check(reply.object), "\(reply.object)")
            #expect(phone.stop() == 0)
        }
        try push(Self.firstPush) { $0["stored"] as? Int ?? 0 > 0 }
        try push(Self.secondPush) { $0["stored"] as? Int == Self.secondPush.count }
        let second = try writeFile(Self.exportXML(Self.secondExport, exportDate: Self.secondExportDate, extra: [Self.writtenTwice] + Self.repeats),
                                   named: "export-2.xml", in: dir)
        #expect(try CLI.run(["import", second, "--store", store, "-q"]).status == 0)
        // The first push again, after the second export: nothing new.
        try push(Self.firstPush) { $0["stored"] as? Int == 0 && $0["alreadyThere"] as? Int == Self.firstPush.count }

        // What the rule gives, said plainly.
        let total = Self.countedSamples.count
        #expect(total == 139 && Self.superseded == 29)
        let byType = Dictionary(grouping: Self.countedSamples, by: \.type).mapValues(\.count)

        // status, text and JSON.
        let statusJSON = try Self.object(try CLI.run(["status", "--store", store, "--json"]))
        #expect(statusJSON["metrics"] as? Int == total)
        #expect(statusJSON["byType"] as? [String: Int] == byType)
        #expect(statusJSON["repeats"] as? Int == Self.repeats.count && statusJSON["superseded"] as? Int == Self.superseded)
        let phoneStatus = try #require(statusJSON["healthAutoExport"] as? [String: Any])
        #expect(phoneStatus["counted"] as? Int == Self.pushedCounted)
        let statusText = try CLI.run(["status", "--store", store])
        #expect(String(decoding: statusText.stdout, as: UTF8.self).contains("metrics:    \(total)"))
        #expect(try Self.object(try CLI.run(["status", "--store", store, "--json", "--count-repeats"]))["metrics"] as? Int == total + Self.repeats.count)

        // aggregate, in Paris days, with and without merging.
        for merged in [false, true] {
            for type in [Self.steps, Self.heartRate] {
                #expect(try Self.aggregate(store, type, merged: merged) == Self.daily(type, merged: merged), "\(type) merged: \(merged)")
            }
        }

        // export, and the upload's dry runs.
        #expect(try CLI.run(["export", "--store", store]).lines.filter { !$0.isEmpty }.count == total)
        #expect(try CLI.run(["export", "--store", store, "--count-repeats"]).lines.filter { !$0.isEmpty }.count == total + Self.repeats.count)
        let cloudCareTypes = Self.countedSamples.filter { CloudCareContract.takes($0.type) }.count
        for (arguments, expected) in [([String](), cloudCareTypes), (["--all-types"], total)] {
            let dry = try CLI.run(["upload", "--store", store, "--server", "http://127.0.0.1:9/api/v1", "--no-token", "--dry-run"] + arguments)
            #expect(dry.status == 0 && dry.stderr.contains("dry run: \(counted(expected, "metric")) to upload"), "\(dry.stderr)")
        }
        #expect(statusJSON["pending"] as? Int == cloudCareTypes)

        // The MCP tools.
        let overview = try HealthAutoExportMCPTests.call(store, "overview", [:])
        #expect(overview["metrics"] as? Int == total)
        let series = try HealthAutoExportMCPTests.call(store, "series", ["type": "steps", "bucket": "day", "timeZone": "Europe/Paris",
                                                                         "start": "2024-06-01", "end": "2024-06-07", "mergeSources": true])
        let buckets = try #require(series["buckets"] as? [[String: Any]])
        #expect(Dictionary(uniqueKeysWithValues: buckets.map { ($0["label"] as! String, ($0["value"] as! NSNumber).doubleValue) })
                == Self.daily(Self.steps, merged: true))
        let records = try HealthAutoExportMCPTests.call(store, "records", ["type": "heartRate", "limit": 1000])
        #expect((records["records"] as? [Any])?.count == byType[Self.heartRate])
        let sql = try HealthAutoExportMCPTests.call(store, "sql", ["query": "SELECT count(*) AS n FROM metrics"])
        #expect((sql["rows"] as? [[Any]])?.first?.first as? Int == total)
        let stepsDaily = try HealthAutoExportMCPTests.call(store, "sql", ["query": "SELECT sum(sum) FROM daily WHERE type = '\(Self.steps)'",
                                                                          "timeZone": "Europe/Paris"])
        #expect(((stepsDaily["rows"] as? [[Any]])?.first?.first as? NSNumber)?.doubleValue == Self.daily(Self.steps, merged: true).values.reduce(0, +))

        // One night, the same minutes everywhere: 480 asleep, 500 in bed.
        let nights = try HealthAutoExportMCPTests.call(store, "sleep", ["start": "2024-06-01", "end": "2024-06-01", "timeZone": "Europe/Paris"])
        let night = try #require((nights["nights"] as? [[String: Any]])?.first)
        #expect(night["night"] as? String == "2024-06-01" && night["asleep"] as? Int == 480 && night["inBed"] as? Int == 500)
        for merged in [false, true] {
            let rows = try Self.rows(try CLI.run(["aggregate", "--store", store, "--bucket", "day", "--types", "sleepAnalysis", "--tz", "Europe/Paris",
                                                  "--format", "jsonl"] + (merged ? ["--merge-sources"] : [])))
            #expect(rows.map { "\($0["bucket"]!) \($0["category"]!) \($0["sum"]!)" } == ["2024-06-01 asleep 480", "2024-06-01 inBed 500"])
        }
        let daySleep = try HealthAutoExportMCPTests.call(store, "sql", ["query": "SELECT category, sum FROM daily WHERE type = '\(Self.sleep)' ORDER BY category",
                                                                        "timeZone": "Europe/Paris"])
        #expect(((daySleep["rows"] as? [[Any]]) ?? []).map { "\($0[0]) \($0[1])" } == ["asleep 480", "inBed 500"])

        // The report: the store's samples, and the night.
        let report = dir.appendingPathComponent("report.html").path
        #expect(try CLI.run(["report", "--store", store, "--tz", "Europe/Paris", "--output", report]).status == 0)
        let html = try String(contentsOfFile: report, encoding: .utf8)
        #expect(html.contains("\(counted(total, "sample")) of 3 types"))
        #expect(html.contains("<td>2024-06-01</td><td>500</td><td>480</td>"), "\(html.components(separatedBy: "night").count)")
    }

    static func object(_ result: CLIResult) throws -> [String: Any] {
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
    }

    static func rows(_ result: CLIResult) throws -> [[String: Any]] {
        #expect(result.status == 0, "\(result.stderr)")
        return try result.lines.filter { !$0.isEmpty }.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    static func aggregate(_ store: String, _ type: String, merged: Bool) throws -> [String: Double] {
        let rows = try rows(try CLI.run(["aggregate", "--store", store, "--bucket", "day", "--types", MetricFilter.shortName(type), "--tz", "Europe/Paris",
                                         "--format", "jsonl"] + (merged ? ["--merge-sources"] : [])))
        return Dictionary(uniqueKeysWithValues: rows.map { ($0["bucket"] as! String, ($0["sum"] as! NSNumber).doubleValue) })
    }
}
