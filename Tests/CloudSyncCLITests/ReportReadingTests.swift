import CloudSyncTesting
import Foundation
import Testing
import ZIPFoundation

/// `cloudsync report` as a person reads it (issue 22, items 21 and 14): the tick labels of an axis,
/// where a point stands on a time axis, what a legend and a caption say, the times shown, the
/// notes at the top. Each test builds its export, imports it with the binary, renders the page in
/// Europe/Paris and reads the page back with Python's strict XML parser.
@Suite(.serialized) struct ReportReadingTests {
    /// A chart as drawn: its caption and legend, its tick labels, its dots and the classes of its
    /// paths in drawing order (a later path is drawn on top).
    struct Figure: Decodable {
        struct Tick: Decodable { var label: String; var x: Double }
        struct Dot: Decodable { var style: String; var cx: Double; var cy: Double }
        var caption: String
        var legend: String
        var yticks: [String]
        var xticks: [Tick]
        var dots: [Dot]
        var paths: [String]
    }

    struct Page: Decodable {
        struct Paragraph: Decodable { var text: String; var style: String }
        var sections: [String]
        var figures: [Figure]
        var paragraphs: [Paragraph]
        var tables: [String: [[String]]]
        /// Every text of the body, joined by spaces.
        var text: String

        func figure(_ caption: String) throws -> Figure {
            try #require(figures.first { $0.caption.hasPrefix(caption) }, "no figure '\(caption)' in \(figures.map(\.caption))")
        }
    }

    static func read(_ html: URL) throws -> Page {
        let script = """
            import json, sys, xml.etree.ElementTree as ET
            H, S = "{http://www.w3.org/1999/xhtml}", "{http://www.w3.org/2000/svg}"
            root = ET.parse(sys.argv[1]).getroot()
            text = lambda e: "" if e is None else "".join(e.itertext())
            figures = []
            for fig in root.iter(H + "figure"):
                f = {"caption": text(fig.find(H + "figcaption")), "legend": text(fig.find(H + "p")),
                     "yticks": [], "xticks": [], "dots": [], "paths": []}
                svg = fig.find(S + "svg")
                for e in ([] if svg is None else svg.iter()):
                    style = e.get("class", "")
                    if e.tag == S + "text" and style == "ytick": f["yticks"].append(e.text)
                    if e.tag == S + "text" and style == "xtick": f["xticks"].append({"label": e.text, "x": float(e.get("x"))})
                    if e.tag == S + "circle": f["dots"].append({"style": style, "cx": float(e.get("cx")), "cy": float(e.get("cy"))})
                    if e.tag == S + "path": f["paths"].append(style)
                figures.append(f)
            tables = {t.get("id"): [[text(td) for td in tr.findall(H + "td")] for tr in t.findall(H + "tbody/" + H + "tr")]
                      for t in root.iter(H + "table")}
            print(json.dumps({"sections": [s.get("id") for s in root.iter(H + "section")], "figures": figures,
                              "paragraphs": [{"text": text(p), "style": p.get("class", "")} for p in root.iter(H + "p")],
                              "tables": tables, "text": " ".join(root.find(H + "body").itertext())}))
            """
        let result = try CLI.run(["-c", script, html.path], tool: "/usr/bin/python3")
        guard result.status == 0 else { throw ClusterError("the report is not well-formed XHTML: \(result.stderr)") }
        return try JSONDecoder().decode(Page.self, from: result.stdout)
    }

    /// Imports `input` (export.xml or export.zip) into a new store, writes the report in
    /// Europe/Paris with `arguments`, and reads it.
    static func report(_ input: URL, in dir: URL, name: String, _ arguments: [String] = []) throws -> (page: Page, store: String) {
        let store = dir.appendingPathComponent("\(name).sqlite").path
        let imported = try CLI.run(["import", input.path, "--store", store, "-q"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let html = dir.appendingPathComponent("\(name).html")
        let result = try CLI.run(["report", "--store", store, "--tz", "Europe/Paris", "--output", html.path] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return (try read(html), store)
    }

    static func xml(_ body: String, exportDate: String? = nil) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
            + (exportDate.map { " <ExportDate value=\"\($0)\"/>\n" } ?? "") + body + "</HealthData>\n"
    }

    static func write(_ text: String, to dir: URL, name: String) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// An export.zip as Apple lays it out: export.xml and the other entries beside it.
    static func archive(_ entries: [(path: String, text: String)], in dir: URL) throws -> URL {
        let url = dir.appendingPathComponent("export.zip")
        let archive = try Archive(url: url, accessMode: .create)
        for (path, text) in entries {
            let data = Data(text.utf8)
            try archive.addEntry(with: "apple_health_export/\(path)", type: .file, uncompressedSize: Int64(data.count),
                                 compressionMethod: .deflate) { position, size in data.subdata(in: Int(position)..<Int(position) + size) }
        }
        return url
    }

    static func steps(at seconds: Int, _ value: Double) -> String {
        " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Watch\" unit=\"count\" startDate=\"\(ReportTests.stamp(seconds))\" "
            + "endDate=\"\(ReportTests.stamp(seconds + 3600))\" value=\"\(value)\"/>\n"
    }

    static func workout(at seconds: Int, minutes: Int, route: String? = nil) -> String {
        " <Workout workoutActivityType=\"HKWorkoutActivityTypeRunning\" duration=\"\(minutes)\" durationUnit=\"min\" totalDistance=\"5\" "
            + "totalDistanceUnit=\"km\" sourceName=\"Watch\" startDate=\"\(ReportTests.stamp(seconds))\" endDate=\"\(ReportTests.stamp(seconds + minutes * 60))\">\n"
            + (route.map { "  <WorkoutRoute sourceName=\"Watch\" startDate=\"\(ReportTests.stamp(seconds))\" endDate=\"\(ReportTests.stamp(seconds + minutes * 60))\">"
                + "<FileReference path=\"/workout-routes/\($0)\"/></WorkoutRoute>\n" } ?? "")
            + " </Workout>\n"
    }

    static func gpx(from seconds: Int, points: Int) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"Apple Health Export\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n"
            + (0..<points).map { i in
                "<trkpt lon=\"\(2.35 + Double(i) * 0.001)\" lat=\"\(48.85 + Double(i % 3) * 0.001)\"><time>"
                    + "\(ReportTests.stamp(seconds + i * 60).prefix(19).replacingOccurrences(of: " ", with: "T"))Z</time></trkpt>\n"
            }.joined() + "</trkseg></trk></gpx>\n"
    }

    /// Local day number (days since 1970-01-01) of a `YYYY-MM-DD` or `YYYY-MM` label.
    static func dayNumber(_ label: String) -> Double? {
        let parts = label.split(separator: "-").compactMap { Int($0) }
        guard parts.count >= 2 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let date = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts.count == 3 ? parts[2] : 1))!
        return (date.timeIntervalSince1970 / 86_400).rounded()
    }

    /// Tick labels that step evenly by 1, 2 or 5 × 10ⁿ.
    static func areRound(_ labels: [String]) -> Bool {
        let values = labels.compactMap(Double.init)
        guard values.count == labels.count, values.count >= 2 else { return false }
        let step = values[1] - values[0]
        let magnitude = pow(10, floor(log10(step)))
        return [1.0, 2, 5].contains { abs(step - $0 * magnitude) < 1e-9 * magnitude }
            && zip(values, values.dropFirst()).allSatisfy { abs(($1 - $0) - step) < 1e-9 * magnitude }
            && values.allSatisfy { abs(($0 / step).rounded() * step - $0) < 1e-9 * magnitude }
    }

    // MARK: the items

    /// 5000 steps every day: the axis is 4500, 5000, 5500 (not 5000 to 5001 with a 5000.5 tick),
    /// and the steps are drawn over their 7-day average (dashed), which they coincide with.
    @Test func aConstantSeriesGetsRoundTicksAroundItAndStaysOverItsAverage() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let noon = 1_717_243_200   // 2024-06-01 12:00 UTC
        let input = try Self.write(Self.xml((0..<20).map { Self.steps(at: noon + $0 * 86_400, 5000) }.joined()), to: dir, name: "export.xml")
        let (page, _) = try Self.report(input, in: dir, name: "constant")
        let chart = try page.figure("Daily steps")
        #expect(chart.yticks == ["4500", "5000", "5500"])
        // Both lines are there, the average first: the steps are drawn on top of it.
        let average = try #require(chart.paths.firstIndex(of: "line s2")), steps = try #require(chart.paths.firstIndex(of: "line s1"))
        #expect(average < steps, "\(chart.paths)")
        #expect(chart.legend.contains("7-day average") && chart.legend.contains("steps"))
        // The steps' points lie on the 5000 line, in the middle of the plot.
        let dots = chart.dots.filter { $0.style == "dot s1" }
        #expect(dots.count == 20 && Set(dots.map(\.cy)).count == 1)
        #expect(abs(dots[0].cy - (12 + (240 - 12 - 34) / 2)) < 0.1, "\(dots[0].cy)")
        // The average is dashed (the page's style), so it shows beside and between the steps' line.
        #expect(try String(contentsOf: dir.appendingPathComponent("constant.html"), encoding: .utf8).contains(".line.s2 { stroke-width: 4; stroke-dasharray: 8 5; }"))
    }

    /// Weigh-ins on uneven days: each point's x is proportional to its date (and so are the date
    /// ticks'), the value ticks are round, and the band is named for what it is, a day's range.
    @Test func theWeightChartSpacesDatesByTimeAndNamesItsDailyBand() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let morning = 1_709_276_400   // 2024-03-01 07:00 UTC, 08:00 in Paris
        let days = [0, 1, 2, 9, 30, 31, 45]
        var body = ""
        for (i, day) in days.enumerated() {
            let at = morning + day * 86_400
            for (hour, kg) in [(0, 70 + Double(i) * 0.3), (10, 70.6 + Double(i) * 0.3)] {
                body += " <Record type=\"HKQuantityTypeIdentifierBodyMass\" sourceName=\"Scale\" unit=\"kg\" startDate=\"\(ReportTests.stamp(at + hour * 3600))\" "
                    + "endDate=\"\(ReportTests.stamp(at + hour * 3600))\" value=\"\(kg)\"/>\n"
            }
        }
        let (page, _) = try Self.report(try Self.write(Self.xml(body), to: dir, name: "export.xml"), in: dir, name: "weight")
        let chart = try page.figure("Weight")
        let dots = chart.dots.filter { $0.style == "dot s1" }
        #expect(dots.count == days.count)
        // x = a + b·day: the gaps between points are the gaps between their dates.
        let pixelsPerDay = (dots.last!.cx - dots[0].cx) / Double(days.last!)
        for (dot, day) in zip(dots, days) {
            #expect(abs(dot.cx - (dots[0].cx + Double(day) * pixelsPerDay)) < 0.3, "day \(day) at \(dot.cx)")
        }
        let first = try #require(Self.dayNumber("2024-03-01"))
        #expect(!chart.xticks.isEmpty)
        for tick in chart.xticks {
            let day = try #require(Self.dayNumber(tick.label), "\(tick.label)")
            #expect(abs(tick.x - (dots[0].cx + (day - first) * pixelsPerDay)) < 0.3, "\(tick.label) at \(tick.x)")
        }
        #expect(Self.areRound(chart.yticks), "\(chart.yticks)")
        #expect(chart.legend.contains("daily range (min–max)") && !chart.legend.contains("monthly"), "\(chart.legend)")
        // The table keeps the day's average, minimum and maximum.
        #expect(page.tables["trend-bodyMass"]?.first == ["2024-03-01", "70.3", "70", "70.6", "2"])
    }

    /// Three routes, two of them a single point: the overview counts 3 and the caption says
    /// 3, 1 drawn, and why the other 2 are not.
    @Test func routesAreCountedAsTheOverviewCountsThem() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let starts = [1_720_940_400, 1_721_026_800, 1_721_113_200]   // 2024-07-14, 15 and 16, 07:00 UTC
        let names = starts.indices.map { "route_\($0).gpx" }
        let xml = Self.xml(zip(starts, names).map { Self.workout(at: $0, minutes: 30, route: $1) }.joined())
        let input = try Self.archive([("export.xml", xml)] + zip(starts, names).enumerated().map { i, route in
            ("workout-routes/\(route.1)", Self.gpx(from: route.0, points: i == 0 ? 12 : 1))
        }, in: dir)
        let (page, _) = try Self.report(input, in: dir, name: "routes")
        let overview = try #require(page.paragraphs.first { $0.text.contains("workouts,") })
        #expect(overview.text.contains("3 workouts, 3 routes"), "\(overview.text)")
        let map = try page.figure("3 routes")
        #expect(map.caption == "3 routes, 1 drawn: 2 have a single point. North up.")
        #expect(page.figures.filter { $0.caption.hasPrefix("running, ") }.count == 1)
    }

    /// A run at 06:30 UTC shows at 08:30, an ECG recorded at 09:15 +0200 shows at 09:15, a run at
    /// 22:30 UTC on 30 June belongs to July; the zone is named once and no time is in UTC.
    @Test func ecgAndWorkoutTimesAreInThePagesZone() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let morning = 1_720_938_600   // 2024-07-14 06:30 UTC
        let midnight = 1_719_786_600  // 2024-06-30 22:30 UTC, 2024-07-01 00:30 in Paris
        let xml = Self.xml(Self.workout(at: morning, minutes: 45, route: "route_a.gpx") + Self.workout(at: midnight, minutes: 20))
        let ecg = "Name,Test\nRecorded Date,2024-07-14 09:15:00 +0200\nClassification,Sinus Rhythm\nSymptoms,\nSoftware Version,2\n"
            + "Device,\"Watch7,2\"\nSample Rate,512 hertz\n\n\nLead,Lead I\nUnit,µV\n\n" + (0..<1024).map { "\($0 % 64 * 10 - 300)" }.joined(separator: "\n") + "\n"
        let input = try Self.archive([("export.xml", xml), ("workout-routes/route_a.gpx", Self.gpx(from: morning, points: 10)),
                                  ("electrocardiograms/ecg_2024-07-14.csv", ecg)], in: dir)
        let (page, _) = try Self.report(input, in: dir, name: "times")
        #expect(try page.figure("2024-07-14 09:15: Sinus Rhythm").caption == "2024-07-14 09:15: Sinus Rhythm, Lead I")
        #expect(page.tables["workout-notable"]?.first?[2] == "2024-07-14 08:30", "\(page.tables["workout-notable"] ?? [])")
        #expect(page.tables["workout-months"]?.map { $0[0] } == ["2024-07"])
        #expect(page.figures.contains { $0.caption == "running, 2024-07-14, 5 km" })
        // The zone once, at the top; no UTC time anywhere (text or tables).
        #expect(page.text.components(separatedBy: "Europe/Paris").count == 2)
        #expect(page.paragraphs.first?.text.hasSuffix("Dates and times in Europe/Paris.") == true)
        let everything = page.text + page.tables.values.flatMap { $0.flatMap { $0 } }.joined(separator: " ")
        #expect(!everything.contains("UTC") && everything.range(of: #"\d{4}-\d\d-\d\dT\d\d:\d\d"#, options: .regularExpression) == nil)
    }

    /// A range without data is named at the top and said to be empty (the whole store's numbers
    /// are said to be the whole store's); a range with data counts what it holds.
    @Test func aRangeIsNamedAndAnEmptyOneSaidToBeEmpty() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Self.write(ReportTests.export(), to: dir, name: "export.xml")
        let (empty, store) = try Self.report(input, in: dir, name: "empty", ["--since", "2023-01-01", "--until", "2023-02-01"])
        #expect(empty.paragraphs.contains { $0.style == "range" && $0.text == "Range: 2023-01-01 (included) to 2023-02-01 (excluded)." })
        #expect(empty.paragraphs.contains { $0.text == "There is no data in this range: no sample, workout, route or ECG starts in it." })
        #expect(empty.paragraphs.contains { $0.text.hasPrefix("The whole store holds ") })
        #expect(empty.sections == ["overview"] && empty.tables.isEmpty)

        // 26 October in Paris: the samples starting that day, counted here from the exported JSONL.
        let (day, _) = try Self.report(input, in: dir, name: "day", ["--since", "2024-10-26", "--until", "2024-10-27"])
        var expected = 0
        for type in ["stepCount", "sleepAnalysis", "workout"] {
            expected += try ReportTests.exported(store, type).filter { ReportTests.localDay($0.start) == "2024-10-26" }.count
        }
        #expect(expected == 24 + 2 + 1)
        #expect(day.paragraphs.contains { $0.style == "range" && $0.text == "Range: 2024-10-26 (included) to 2024-10-27 (excluded)." })
        let counts = try #require(day.paragraphs.first { $0.text.hasPrefix("In this range:") })
        #expect(counts.text == "In this range: \(expected) samples of 3 types on 2024-10-26; 1 workout, 0 routes, 0 ECGs.")
        #expect(day.tables["daily-steps"]?.map { $0[0] } == ["2024-10-26"])
    }

    /// A 2019 export holding two samples dated 2030: counted in the overview, named in a note,
    /// and left out of the charts and the calendar. Without an export date, the report's time is
    /// the limit.
    @Test func samplesDatedAfterTheExportAreCountedButNotDrawn() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let may = 1_556_712_000   // 2019-05-01 12:00 UTC
        var body = (0..<31).map { Self.steps(at: may + $0 * 86_400, Double(4000 + $0 * 100)) }.joined()
        body += Self.steps(at: 1_898_762_400, 700) + Self.steps(at: 1_902_736_800, 800)   // 2030-03-03 and 2030-04-18, 10:00 UTC
        let input = try Self.write(Self.xml(body, exportDate: "2019-06-01 10:00:00 +0200"), to: dir, name: "export.xml")
        let (page, _) = try Self.report(input, in: dir, name: "late")
        let note = try #require(page.paragraphs.first { $0.style == "late" })
        #expect(note.text == "2 samples dated after the export (2030-03-03 to 2030-04-18) are not drawn: the export was made on 2019-06-01 10:00.")
        #expect(page.paragraphs.contains { $0.text.hasPrefix("33 samples of 1 type from 2019-05-01 to 2030-04-18") })
        let steps = try #require(page.tables["daily-steps"])
        #expect(steps.count == 31 && steps.last?[0] == "2019-05-31")
        let chart = try page.figure("Daily steps")
        #expect(!chart.xticks.isEmpty && chart.xticks.allSatisfy { $0.label.hasPrefix("2019") }, "\(chart.xticks.map(\.label))")
        #expect(page.figures.allSatisfy { $0.xticks.allSatisfy { !$0.label.hasPrefix("2030") } })
        #expect(page.figures.filter { $0.caption.hasPrefix("Daily steps, year by year") }.count == 1)
        let calendars = try String(contentsOf: dir.appendingPathComponent("late.html"), encoding: .utf8).components(separatedBy: "aria-label=\"steps in ").dropFirst()
        #expect(calendars.map { $0.prefix(4) } == ["2019"])

        // No export date: nothing after the report's own time is drawn.
        let (undated, _) = try Self.report(try Self.write(Self.xml(Self.steps(at: may, 4000) + Self.steps(at: 4_070_944_800, 900)), to: dir, name: "undated.xml"),
                                           in: dir, name: "undated")
        let undatedNote = try #require(undated.paragraphs.first { $0.style == "late" })
        #expect(undatedNote.text.hasPrefix("1 sample dated after the report was made (2099-01-01) is not drawn"), "\(undatedNote.text)")
        #expect(undated.tables["daily-steps"]?.map { $0[0] } == ["2019-05-01"])
    }
}
