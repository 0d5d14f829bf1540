import CloudSyncModel
import CloudSyncTesting
import Foundation
import Testing

/// Nights of every sleep shape Health Auto Export sends, through the binary: a summarised night
/// counts the minutes the phone measured (never its window), each never more than the window it was
/// measured in; segments are merged; two measures of one night count once, the larger
/// (docs/aggregation.md, "Sleep"). `aggregate`, the MCP `sleep` tool, the `sql` tool's `daily` view
/// and the report give the minutes computed here from the inputs.
@Suite struct SleepShapesTests {
    /// A summarised night as the app writes it: hours per stage, and the windows.
    struct Summary {
        var source: String
        var sleep: (String, String)
        var inBedWindow: (String, String)?
        var totalSleep: Double?
        var asleep: Double?
        var core = 0.0, deep = 0.0, rem = 0.0, awake = 0.0
        var inBed: Double?
        /// The oldest shape: `sleepSource`/`inBedSource` instead of `source`.
        var oldest = false

        var json: String {
            var members = [#""date":"\#(sleep.0)""#, #""sleepStart":"\#(sleep.0)""#, #""sleepEnd":"\#(sleep.1)""#]
            if oldest {
                members += [#""sleepSource":"\#(source)""#, #""inBedSource":"\#(source)""#]
            } else {
                members += [#""source":"\#(source)""#, "\"core\":\(core)", "\"deep\":\(deep)", "\"rem\":\(rem)", "\"awake\":\(awake)"]
            }
            if let totalSleep { members.append("\"totalSleep\":\(totalSleep)") }
            if let asleep { members.append("\"asleep\":\(asleep)") }
            if let inBed { members.append("\"inBed\":\(inBed)") }
            if let inBedWindow { members += [#""inBedStart":"\#(inBedWindow.0)""#, #""inBedEnd":"\#(inBedWindow.1)""#] }
            return "{" + members.joined(separator: ",") + "}"
        }

        /// The rule, from the inputs: asleep is totalSleep, else (stages and asleep, no totalSleep:
        /// the 2023 shape) asleep, else core + deep + REM + asleep; each never more than its window.
        var minutes: [String: Double] {
            let window = SleepShapesTests.minutes(sleep.0, sleep.1)
            let stages = core + deep + rem
            let total = totalSleep ?? (stages > 0 && (asleep ?? 0) > 0 ? asleep! : stages + (asleep ?? 0))
            var result = ["asleep": min(total * 60, window), "core": min(core * 60, window), "deep": min(deep * 60, window),
                          "rem": min(rem * 60, window), "awake": min(awake * 60, window)]
            if let inBed { result["inBed"] = min(inBed * 60, SleepShapesTests.minutes((inBedWindow ?? sleep).0, (inBedWindow ?? sleep).1)) }
            return result
        }
    }

    /// A segment (Summarize Data off).
    struct Segment {
        var value: String
        var start: String, end: String
        var source: String
        var json: String { #"{"startDate":"\#(start)","endDate":"\#(end)","value":"\#(value)","qty":0,"source":"\#(source)"}"# }
    }

    static func minutes(_ start: String, _ end: String) -> Double {
        Double(epoch(end) - epoch(start)) / 60
    }

    /// An app date (`2024-06-01 23:00:00 +0200`) as seconds since 1970, and its offset.
    static func epoch(_ text: String) -> Int64 { Array(text.utf8).withUnsafeBufferPointer { ExportDateParser.epochSeconds($0)! } }
    static func offset(_ text: String) -> Int64 { Array(text.utf8).withUnsafeBufferPointer { ExportDateParser.writtenOffsetSeconds($0)! } }

    /// Segments merged: per stage the union, asleep the union of the asleep stages.
    static func segmentMinutes(_ segments: [Segment]) -> [String: Double] {
        func union(_ spans: [(Int64, Int64)]) -> Double {
            var total: Int64 = 0, end: Int64 = .min
            for (start, stop) in spans.sorted(by: { $0.0 < $1.0 }) {
                if stop <= end { continue }
                total += stop - max(start, end)
                end = stop
            }
            return Double(total) / 60
        }
        let spans = { (values: Set<String>) in
            segments.filter { values.contains($0.value) }.map { (epoch($0.start), epoch($0.end)) }
        }
        return ["asleep": union(spans(["Core", "Deep", "REM", "Asleep"])), "core": union(spans(["Core"])), "deep": union(spans(["Deep"])),
                "rem": union(spans(["REM"])), "awake": union(spans(["Awake"])), "inBed": union(spans(["InBed"]))]
    }

    /// One night (by the evening it began, in Paris), its measures.
    struct Night {
        var evening: String
        var summaries: [Summary] = []
        var segments: [Segment] = []

        /// Two measures of one night: per stage the larger.
        var expected: [String: Double] {
            var result = segments.isEmpty ? [:] : SleepShapesTests.segmentMinutes(segments)
            for summary in summaries { result.merge(summary.minutes) { max($0, $1) } }
            return result
        }
    }

    static func at(_ day: Int, _ time: String) -> String { String(format: "2024-06-%02d %@:00 +0200", day, time) }

    static let nights: [Night] = [
        // The current shape: totalSleep, stages, inBed over its own window.
        Night(evening: "2024-06-01", summaries: [Summary(source: "Zoë’s Apple Watch", sleep: (at(1, "23:00"), at(2, "07:00")),
                                                         inBedWindow: (at(1, "22:50"), at(2, "07:10")), totalSleep: 7.5, asleep: 0,
                                                         core: 4.5, deep: 1, rem: 2, awake: 0.25, inBed: 8)]),
        // 2023: stages and the app's own asleep total, no totalSleep, no inBed.
        Night(evening: "2024-06-02", summaries: [Summary(source: "Zoë’s Apple Watch|AutoSleep", sleep: (at(2, "23:30"), at(3, "07:00")),
                                                         asleep: 6.5, core: 4, deep: 1, rem: 1.25, awake: 0.2)]),
        // totalSleep without inBed, an asleep without stage beside the stages.
        Night(evening: "2024-06-03", summaries: [Summary(source: "Zoë’s Apple Watch", sleep: (at(3, "22:00"), at(4, "06:30")),
                                                         totalSleep: 7, asleep: 0.5, core: 4, deep: 1, rem: 1.5)]),
        // The oldest shape: asleep and inBed, their own sources, no stages.
        Night(evening: "2024-06-04", summaries: [Summary(source: "iPhone", sleep: (at(4, "23:00"), at(5, "06:00")),
                                                         inBedWindow: (at(4, "22:30"), at(5, "06:30")), asleep: 7, inBed: 8, oldest: true)]),
        // Segments (Summarize Data off).
        Night(evening: "2024-06-05", segments: [
            Segment(value: "InBed", start: at(5, "22:45"), end: at(6, "07:00"), source: "iPhone"),
            Segment(value: "Core", start: at(5, "23:00"), end: at(6, "01:00"), source: "Zoë’s Apple Watch"),
            Segment(value: "Deep", start: at(6, "01:00"), end: at(6, "02:00"), source: "Zoë’s Apple Watch"),
            Segment(value: "REM", start: at(6, "02:00"), end: at(6, "03:00"), source: "Zoë’s Apple Watch"),
            Segment(value: "Awake", start: at(6, "03:00"), end: at(6, "03:15"), source: "Zoë’s Apple Watch"),
            Segment(value: "Core", start: at(6, "03:15"), end: at(6, "06:45"), source: "Zoë’s Apple Watch"),
        ]),
        // Summaries from two sources: the larger of each.
        Night(evening: "2024-06-06", summaries: [
            Summary(source: "Zoë’s Apple Watch", sleep: (at(6, "23:00"), at(7, "07:00")), totalSleep: 7, asleep: 0, core: 5, deep: 1, rem: 1),
            Summary(source: "AutoSleep", sleep: (at(6, "22:30"), at(7, "07:00")), inBedWindow: (at(6, "22:15"), at(7, "07:15")),
                    totalSleep: 7.5, asleep: 7.5, inBed: 8.25),
        ]),
        // Segments from one source and a summary from another, the segments inside its window.
        Night(evening: "2024-06-07", summaries: [Summary(source: "Zoë’s Apple Watch", sleep: (at(7, "23:10"), at(8, "07:00")),
                                                         totalSleep: 7, asleep: 0, core: 4.5, deep: 1, rem: 1.5)],
              segments: [Segment(value: "Asleep", start: at(7, "23:20"), end: at(8, "05:00"), source: "Sleep Cycle"),
                         Segment(value: "InBed", start: at(7, "22:40"), end: at(8, "07:20"), source: "Sleep Cycle")]),
        // A bed sensor whose sums are larger than its window (12 hours): each stays within it.
        Night(evening: "2024-06-08", summaries: [Summary(source: "Eight Sleep", sleep: (at(8, "20:00"), at(9, "08:00")),
                                                         inBedWindow: (at(8, "20:00"), at(9, "08:00")), totalSleep: 27, asleep: 27, core: 13,
                                                         deep: 4, rem: 10, awake: 1, inBed: 30)]),
    ]

    /// The nights as one Health Auto Export file: the summaries, then the segments, as pushes
    /// with Summarize Data on and off would send them.
    static var document: String {
        let points = nights.flatMap { $0.summaries.map(\.json) + $0.segments.map(\.json) }
        return #"{"data":{"metrics":[{"name":"sleep_analysis","units":"hr","data":[\#(points.joined(separator: ","))]}]}}"#
    }

    @Test func everyShapeGivesTheMinutesThePhoneMeasured() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        let file = try writeFile(Self.document, named: "HealthAutoExport-2024-06-01-2024-06-09.json", in: dir)
        let imported = try CLI.run(["import", file, "--store", store])
        #expect(imported.status == 0, "\(imported.stderr)")
        let expected = Dictionary(uniqueKeysWithValues: Self.nights.map { ($0.evening, $0.expected) })
        // Said plainly, the nights this test expects.
        #expect(expected["2024-06-01"]?["asleep"] == 450 && expected["2024-06-01"]?["inBed"] == 480)
        #expect(expected["2024-06-02"]?["asleep"] == 390 && expected["2024-06-06"]?["asleep"] == 450 && expected["2024-06-07"]?["asleep"] == 420)
        #expect(expected["2024-06-08"]?["asleep"] == 720 && expected["2024-06-08"]?["inBed"] == 720 && expected["2024-06-08"]?["core"] == 720)

        // aggregate: a row per night, asleep and in bed.
        let rows = try OneTruthTests.rows(try CLI.run(["aggregate", "--store", store, "--bucket", "day", "--types", "sleep", "--tz", "Europe/Paris",
                                                       "--format", "jsonl"]))
        var aggregated: [String: [String: Double]] = [:]
        for row in rows { aggregated[row["bucket"] as! String, default: [:]][row["category"] as! String] = (row["sum"] as! NSNumber).doubleValue }
        for (night, stages) in expected {
            for category in ["asleep", "inBed"] {
                #expect(abs((aggregated[night]?[category] ?? 0) - (stages[category] ?? 0)) < 0.01, "aggregate \(night) \(category)")
            }
        }
        #expect(Set(aggregated.keys) == Set(expected.keys))

        // The MCP sleep tool: every stage.
        let tool = try HealthAutoExportMCPTests.call(store, "sleep", ["start": "2024-06-01", "end": "2024-06-08", "timeZone": "Europe/Paris"])
        let said = try #require(tool["nights"] as? [[String: Any]])
        #expect(said.count == expected.count)
        for night in said {
            let name = night["night"] as! String
            for stage in ["asleep", "inBed", "core", "deep", "rem", "awake"] {
                let value = (night[stage] as? NSNumber)?.doubleValue ?? 0
                #expect(abs(value - (expected[name]?[stage] ?? 0)) < 0.1, "sleep tool \(name) \(stage): \(value)")
            }
        }

        // The sql tool's daily view.
        let daily = try HealthAutoExportMCPTests.call(store, "sql", ["query": "SELECT day, category, sum FROM daily WHERE type = 'HKCategoryTypeIdentifierSleepAnalysis' ORDER BY day, category",
                                                                     "timeZone": "Europe/Paris"])
        for row in try #require(daily["rows"] as? [[Any]]) {
            let night = row[0] as! String, category = row[1] as! String
            #expect(abs((row[2] as! NSNumber).doubleValue - (expected[night]?[category] ?? -1)) < 0.01, "daily \(night) \(category)")
        }

        // The report's table of nights: in bed, asleep, core, deep, REM, awake, rounded to minutes.
        let report = dir.appendingPathComponent("report.html").path
        let made = try CLI.run(["report", "--store", store, "--tz", "Europe/Paris", "--output", report])
        #expect(made.status == 0, "\(made.stderr)")
        let html = try String(contentsOfFile: report, encoding: .utf8)
        for (night, stages) in expected {
            let cells = ["inBed", "asleep", "core", "deep", "rem", "awake"].map { "<td>\(String(format: "%.0f", stages[$0] ?? 0))</td>" }.joined()
            #expect(html.contains("<td>\(night)</td>" + cells), "report \(night): \(cells)")
        }
    }

    /// The corpus's summarised sleep files: each night is what the file says of it (its total
    /// asleep, its time in bed), within a minute, and never more than its window. The zone of each
    /// file is the one its offsets are of.
    @Test(.enabled(if: Paths.haeCorpusExists, "needs the shared corpus at ../shared/corpus/hae"),
          arguments: [("daily-2010-2025-steps-sleep-hrv.json", "America/Los_Angeles"), ("daily-3-months-v1-workouts.json", "Australia/Sydney"),
                      ("daily-v2-workouts-medications.json", "America/Los_Angeles"), ("hourly-metric-units.json", "Europe/Paris")])
    func theCorpusNightsAreWhatTheFileSays(file: String, zone: String) throws {
        let path = Paths.haeCorpus.appendingPathComponent(file).path
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("store.sqlite").path
        #expect(try CLI.run(["import", path, "--store", store, "-q"]).status == 0)
        // What the file says, night by night (by the evening in its own offsets).
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let metrics = try #require((document["data"] as? [String: Any])?["metrics"] as? [[String: Any]])
        let points = try #require(metrics.first { $0["name"] as? String == "sleep_analysis" }?["data"] as? [[String: Any]])
        var expected: [String: [String: Double]] = [:]
        for point in points {
            guard let start = point["sleepStart"] as? String, let end = point["sleepEnd"] as? String else { continue }
            func hours(_ key: String) -> Double { (point[key] as? NSNumber)?.doubleValue ?? 0 }
            let stages = hours("core") + hours("deep") + hours("rem")
            let total = hours("totalSleep") > 0 ? hours("totalSleep")
                : point["totalSleep"] == nil && stages > 0 && hours("asleep") > 0 ? hours("asleep") : stages + hours("asleep")
            // The evening: noon-shifted local date of the written time.
            let local = Self.epoch(start) + Self.offset(start) - 12 * 3600
            let night = String(UTCDateFormatter.string(local - ((local % 86_400) + 86_400) % 86_400).prefix(10))
            let asleep = min(total * 60, Self.minutes(start, end))
            if asleep > 0 { expected[night, default: [:]]["asleep"] = max(expected[night]?["asleep"] ?? 0, asleep) }
            if hours("inBed") > 0 {
                let window = Self.minutes(point["inBedStart"] as? String ?? start, point["inBedEnd"] as? String ?? end)
                expected[night, default: [:]]["inBed"] = max(expected[night]?["inBed"] ?? 0, min(hours("inBed") * 60, window))
            }
        }
        let rows = try OneTruthTests.rows(try CLI.run(["aggregate", "--store", store, "--bucket", "day", "--types", "sleep", "--tz", zone,
                                                       "--format", "jsonl"]))
        var aggregated: [String: [String: Double]] = [:]
        for row in rows { aggregated[row["bucket"] as! String, default: [:]][row["category"] as! String] = (row["sum"] as! NSNumber).doubleValue }
        var wrong: [String] = []
        for (night, stages) in expected {
            for (category, minutes) in stages where abs((aggregated[night]?[category] ?? 0) - minutes) > 1 {
                wrong.append("\(night) \(category): the file \(minutes), aggregate \(aggregated[night]?[category] ?? 0)")
            }
        }
        #expect(!expected.isEmpty)
        #expect(wrong.isEmpty, "\(wrong.count) of \(expected.count) nights: \(wrong.prefix(5))")
        #expect(Set(aggregated.keys) == Set(expected.keys))
    }
}
