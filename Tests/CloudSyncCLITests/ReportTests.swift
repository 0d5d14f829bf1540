import CloudSyncTesting
import Foundation
import Testing

/// `cloudsync report`: the page is well-formed, escapes what the export holds, shows each section
/// only with its data, and its tables hold the numbers computed here, independently, from the
/// exported JSONL. Then Chromium renders it as a person would see it.
@Suite(.serialized) struct ReportTests {
    static let paris = TimeZone(identifier: "Europe/Paris")!
    /// A source name that must be shown, never run.
    static let hostileSource = "<script>alert(1)</script> & \"Co\""

    /// `2024-10-26 23:30:00 +0000` for an instant.
    static func stamp(_ seconds: Int) -> String {
        let c = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d +0000", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }

    static func escapedXML(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// Hourly steps around the night Paris leaves summer time (2024-10-27, 03:00 → 02:00), a night of
    /// sleep across midnight and that change, and a 5.25 km run.
    static func export(steps: Bool = true, sleep: Bool = true, workout: Bool = true) -> String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
        let source = escapedXML(hostileSource)
        if steps {
            let from = 1_729_807_200   // 2024-10-25 00:00 +0200
            for hour in 0..<(4 * 24 + 1) {
                let start = from + hour * 3600
                text += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"\(source)\" unit=\"count\" startDate=\"\(stamp(start))\" endDate=\"\(stamp(start + 1800))\" value=\"\(100 + hour)\"/>\n"
            }
        }
        if sleep {
            // 2024-10-26 23:30 +0200 in bed until 2024-10-27 07:00 +0100; core, deep, REM and awake inside.
            let bed = 1_729_978_200, getUp = 1_730_008_800
            text += " <Record type=\"HKCategoryTypeIdentifierSleepAnalysis\" sourceName=\"iPhone\" startDate=\"\(stamp(bed))\" endDate=\"\(stamp(getUp))\" value=\"HKCategoryValueSleepAnalysisInBed\"/>\n"
            var at = bed + 600
            for (stage, minutes) in [("AsleepCore", 150), ("AsleepDeep", 60), ("Awake", 10), ("AsleepREM", 90), ("AsleepCore", 140)] {
                text += " <Record type=\"HKCategoryTypeIdentifierSleepAnalysis\" sourceName=\"Watch\" startDate=\"\(stamp(at))\" endDate=\"\(stamp(at + minutes * 60))\" value=\"HKCategoryValueSleepAnalysis\(stage)\"/>\n"
                at += minutes * 60
            }
        }
        if workout {
            text += " <Workout workoutActivityType=\"HKWorkoutActivityTypeRunning\" duration=\"31.5\" durationUnit=\"min\" totalDistance=\"5.25\" totalDistanceUnit=\"km\" sourceName=\"Watch\" startDate=\"\(stamp(1_729_929_600))\" endDate=\"\(stamp(1_729_931_490))\"/>\n"
        }
        return text + "</HealthData>\n"
    }

    /// Imports `xml` into a new store, writes the report (Europe/Paris), returns its path and the store.
    static func report(_ xml: String, in dir: URL, name: String = "report") throws -> (html: URL, store: String) {
        let input = dir.appendingPathComponent("\(name).xml"), store = dir.appendingPathComponent("\(name).sqlite").path
        try Data(xml.utf8).write(to: input)
        let imported = try CLI.run(["import", input.path, "--store", store, "-q"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let html = dir.appendingPathComponent("\(name).html")
        let result = try CLI.run(["report", "--store", store, "--tz", "Europe/Paris", "--output", html.path])
        #expect(result.status == 0 && result.stdout.isEmpty, "\(result.stderr)")
        return (html, store)
    }

    /// The page parsed by Python's XML parser (strict: one unclosed tag or raw `&` fails), as the
    /// ids of its sections, the number of its SVGs and its tables by id.
    static func parse(_ html: URL) throws -> (sections: [String], svgs: Int, tables: [String: [[String]]]) {
        let script = """
            import json, sys, xml.etree.ElementTree as ET
            ns = {"h": "http://www.w3.org/1999/xhtml", "s": "http://www.w3.org/2000/svg"}
            root = ET.parse(sys.argv[1]).getroot()
            tables = {t.get("id"): [["".join(td.itertext()) for td in tr.findall("h:td", ns)] for tr in t.findall("h:tbody/h:tr", ns)]
                      for t in root.iter("{http://www.w3.org/1999/xhtml}table")}
            print(json.dumps({"sections": [s.get("id") for s in root.iter("{http://www.w3.org/1999/xhtml}section")],
                              "svgs": len(list(root.iter("{http://www.w3.org/2000/svg}svg"))), "tables": tables}))
            """
        let result = try CLI.run(["-c", script, html.path], tool: "/usr/bin/python3")
        guard result.status == 0, let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] else {
            throw ClusterError("the report is not well-formed XHTML: \(result.stderr)")
        }
        return (object["sections"] as? [String] ?? [], object["svgs"] as? Int ?? 0, object["tables"] as? [String: [[String]]] ?? [:])
    }

    /// The JSONL `cloudsync export` writes for `type`, as (startDate, endDate, value, metadata's category).
    static func exported(_ store: String, _ type: String) throws -> [(start: Date, end: Date, value: Double, category: String?)] {
        let result = try CLI.run(["export", "--store", store, "--types", type])
        #expect(result.status == 0, "\(result.stderr)")
        let iso = ISO8601DateFormatter()
        return result.lines.filter { !$0.isEmpty }.compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let start = (object["startDate"] as? String).flatMap(iso.date), let end = (object["endDate"] as? String).flatMap(iso.date)
            else { return nil }
            return (start, end, (object["value"] as? NSNumber)?.doubleValue ?? 0, (object["metadata"] as? [String: Any])?["category"] as? String)
        }
    }

    static func localDay(_ date: Date) -> String {
        let c = Calendar(identifier: .gregorian).dateComponents(in: paris, from: date)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    @Test func theTablesHoldTheNumbersComputedFromTheExportedJSONL() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (html, store) = try Self.report(Self.export(), in: dir)
        let page = try Self.parse(html)
        #expect(page.sections == ["overview", "activity", "sleep", "workouts"])
        #expect(page.svgs >= 4)

        // Daily steps in Paris, 2024-10-27 being 25 hours long.
        var expected: [String: Double] = [:]
        for sample in try Self.exported(store, "stepCount") { expected[Self.localDay(sample.start), default: 0] += sample.value }
        #expect(expected.count == 4)   // 25 to 28 October: 97 hours, one of the days 25 hours long
        let rows = try #require(page.tables["daily-steps"])
        #expect(rows.map { $0[0] } == expected.keys.sorted())
        for row in rows { #expect(Double(row[1]) == expected[row[0]], "\(row)") }
        #expect(rows.first { $0[0] == "2024-10-27" }.map { Double($0[1]) } == (48...72).reduce(0.0) { $0 + Double(100 + $1) })

        // The night began on the 26th; asleep is every asleep stage, in minutes.
        let sleep = try Self.exported(store, "sleepAnalysis")
        let asleep = sleep.filter { ["core", "deep", "rem", "asleepUnspecified"].contains($0.category ?? "") }
            .reduce(0) { $0 + $1.end.timeIntervalSince($1.start) / 60 }
        #expect(asleep == 440)
        let night = try #require(page.tables["nights"]?.first)
        #expect(night[0] == "2024-10-26" && Double(night[2]) == asleep, "\(night)")
        #expect(Double(night[1]) == 510)   // in bed, 23:30 to 07:00 across the change

        // The run's distance, in the month's row.
        let month = try #require(page.tables["workout-months"]?.first)
        #expect(month == ["2024-10", "running", "1", "32", "5.25"], "\(month)")
    }

    @Test func whatTheExportHoldsIsEscapedNeverRun() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (html, _) = try Self.report(Self.export(), in: dir)
        let text = try String(contentsOf: html, encoding: .utf8)
        #expect(!text.lowercased().contains("<script"))
        #expect(text.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Co&quot;"))
        let page = try Self.parse(html)
        #expect(page.tables["sources"]?.contains { $0.first == Self.hostileSource } == true)
        // Nothing is fetched: no URL but the XML namespaces.
        let urls = text.components(separatedBy: "://").dropFirst().map { String($0.prefix(30)) }
        #expect(!urls.isEmpty && urls.allSatisfy { $0.hasPrefix("www.w3.org/") }, "\(urls)")
    }

    @Test func anEmptyStoreAndAStoreWithOnlyStepsGiveValidPages() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (empty, _) = try Self.report(Self.export(steps: false, sleep: false, workout: false), in: dir, name: "empty")
        let emptyPage = try Self.parse(empty)
        #expect(emptyPage.sections == ["overview"])
        #expect(try String(contentsOf: empty, encoding: .utf8).contains("holds no samples"))
        let (steps, _) = try Self.report(Self.export(sleep: false, workout: false), in: dir, name: "steps")
        #expect(try Self.parse(steps).sections == ["overview", "activity"])
    }

    @Test func tenYearsOfDataGiveAValidPageWithEveryDayInTheTable() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A walk a day at noon UTC, a weighing a week and a run a week, 2015-01-01 to 2024-12-31.
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
        let first = 1_420_113_600, days = 3653
        for day in 0..<days {
            let noon = first + day * 86_400
            text += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Watch\" unit=\"count\" startDate=\"\(Self.stamp(noon))\" endDate=\"\(Self.stamp(noon + 3600))\" value=\"\(5000 + day % 700)\"/>\n"
            if day % 7 == 0 {
                text += " <Record type=\"HKQuantityTypeIdentifierBodyMass\" sourceName=\"Scale\" unit=\"kg\" startDate=\"\(Self.stamp(noon))\" endDate=\"\(Self.stamp(noon))\" value=\"\(70 + Double(day % 50) / 10)\"/>\n"
                text += " <Workout workoutActivityType=\"HKWorkoutActivityTypeRunning\" duration=\"30\" durationUnit=\"min\" totalDistance=\"5\" totalDistanceUnit=\"km\" sourceName=\"Watch\" startDate=\"\(Self.stamp(noon + 7200))\" endDate=\"\(Self.stamp(noon + 9000))\"/>\n"
            }
        }
        let (html, _) = try Self.report(text + "</HealthData>\n", in: dir)
        let page = try Self.parse(html)
        #expect(page.sections == ["overview", "activity", "body", "workouts"])
        let steps = try #require(page.tables["daily-steps"])
        #expect(steps.count == days && steps.first?[0] == "2015-01-01" && steps.last?[0] == "2024-12-31")
        #expect(page.tables["workout-months"]?.count == 120)
        // Ten calendars, one a year.
        #expect(try String(contentsOf: html, encoding: .utf8).components(separatedBy: "aria-label=\"steps in ").count - 1 == 10)
    }

    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }

    static func chromiumArguments(_ dir: URL) -> [String] {
        ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--disable-extensions",
         "--user-data-dir=\(dir.appendingPathComponent("profile").path)", "--enable-logging=stderr", "--v=0"]
    }

    /// Chromium's screenshot of `html` as `.build/artifacts/<name>.png` (kept after the run, to be
    /// looked at), checked to be a 1000 × `height` PNG that is not blank, taken without a console error.
    static func screenshot(_ html: URL, name: String, height: Int, in dir: URL) throws {
        let artifacts = CLI.repository.appendingPathComponent(".build/artifacts")
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        let png = artifacts.appendingPathComponent("\(name).png")
        let shot = try CLI.run(chromiumArguments(dir) + ["--window-size=1000,\(height)", "--screenshot=\(png.path)", html.absoluteString], tool: chromium!)
        #expect(shot.status == 0, "\(shot.stderr.suffix(2000))")
        let consoleErrors = shot.stderr.split(separator: "\n").filter { $0.contains("CONSOLE") || $0.contains("Refused to") }
        #expect(consoleErrors.isEmpty, "\(consoleErrors)")
        let image = try Data(contentsOf: png)
        // PNG: the signature, then IHDR's width and height (big-endian).
        #expect(image.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let width = image[16..<20].reduce(0) { $0 << 8 | Int($1) }, shown = image[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 1000 && shown == height)
        // A blank page of that size compresses to a few KB; charts, tables and text do not.
        #expect(image.count > 40_000, "the screenshot is \(image.count) bytes: a blank page?")
    }

    /// `serve --store`'s `GET /report` is the store as it is now: a push of today's steps changes
    /// the page's today at once; Chromium renders it from the server (kept as
    /// `.build/artifacts/report-served.png`). With a token the page wants it, as pushes do.
    @Test(.enabled(if: chromium != nil, "Chromium is not installed (Debian: chromium)"))
    func theServedReportShowsTodayAfterAPush() throws {
        let dir = try makeTemporaryDirectory()
        let store = dir.appendingPathComponent("staging.sqlite").path
        #expect(try CLI.run(["import", CLI.sample, "--store", store, "-q"]).status == 0)
        let serve = try ServeProcess(["--store", store], directory: dir)
        defer { _ = serve.stop() }
        // The pushes are at 00:00 and 01:00 of the day: just after midnight UTC, 01:00 today is still
        // to come, and the report counts nothing after now, so the day is yesterday then.
        let now = Date()
        let day = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: now).hour! < 2
            ? now.addingTimeInterval(-86_400) : now
        let today = ISO8601DateFormatter.string(from: day, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])
        func push(_ steps: Int, at hour: Int) throws {
            let at = String(format: "%@ %02d:00:00 +0000", today, hour), end = String(format: "%@ %02d:30:00 +0000", today, hour)
            let body = #"{"data":{"metrics":[{"name":"step_count","units":"count","data":[{"date":"\#(at)","start":"\#(at)","end":"\#(end)","qty":\#(steps),"source":"Watch"}]}]}}"#
            #expect(try ServeProcess.request("POST", serve.url + "/health-auto-export", body: Data(body.utf8)).status == 200)
        }
        func todaysSteps() throws -> String? {
            let page = dir.appendingPathComponent("served.html")
            let fetched = try CLI.run(["-sS", "-o", page.path, "-w", "%{http_code}", serve.url + "/report?tz=UTC"], tool: "/usr/bin/curl")
            #expect(String(decoding: fetched.stdout, as: UTF8.self) == "200")
            return try Self.parse(page).tables["daily-steps"]?.first { $0[0] == today }?[1]
        }
        try push(1200, at: 0)
        #expect(try todaysSteps() == "1200")
        try push(800, at: 1)
        #expect(try todaysSteps() == "2000")
        try Self.screenshotOfURL(serve.url + "/report?tz=UTC", name: "report-served", in: dir)
        #expect(try CLI.run(["-sS", "-o", "/dev/null", "-w", "%{http_code}", serve.url + "/report?tz=Mars/Olympus"], tool: "/usr/bin/curl")
            .stdout == Data("400".utf8))
        // With a token: 401 without it.
        let guarded = try ServeProcess(["--store", store, "--token-file", try writeFile("a-token-of-enough-characters", named: "token", in: dir)],
                                       directory: dir, name: "guarded")
        defer { _ = guarded.stop() }
        #expect(try ServeProcess.request("GET", guarded.url + "/report").status == 401)
        #expect(try ServeProcess.request("GET", guarded.url + "/health").status == 200)
    }

    /// Chromium's screenshot of a page a server answers, checked as `screenshot` checks a file's.
    static func screenshotOfURL(_ url: String, name: String, in dir: URL) throws {
        try screenshot(URL(string: url)!, name: name, height: 2400, in: dir)
    }

    /// Headless Chromium renders the page of the sample export: a screenshot (kept as
    /// `.build/artifacts/report.png`) that is not blank, and a PDF print on A4 pages, with no
    /// console error.
    @Test(.enabled(if: chromium != nil, "Chromium is not installed (Debian: chromium)"))
    func chromiumRendersAndPrintsThePage() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (html, _) = try Self.report(Self.export(), in: dir)
        try Self.screenshot(html, name: "report", height: 3000, in: dir)
        let pdf = dir.appendingPathComponent("report.pdf")
        let common = Self.chromiumArguments(dir)
        let print = try CLI.run(common + ["--no-pdf-header-footer", "--print-to-pdf=\(pdf.path)", html.absoluteString], tool: Self.chromium!)
        #expect(print.status == 0, "\(print.stderr.suffix(2000))")
        // Printed on A4 (595 × 842 points), as the page's @page rule asks, on a plausible number of
        // pages: the four sections of this export, without the tables, fill two to six.
        let document = String(decoding: try Data(contentsOf: pdf), as: UTF8.self)
        #expect(document.hasPrefix("%PDF") && (document.contains("/MediaBox [0 0 594.9") || document.contains("/MediaBox [0 0 595")),
                "not a PDF on A4 pages")
        let pages = document.components(separatedBy: "/Type /Page").dropFirst().filter { !$0.hasPrefix("s") }.count
        #expect((2...6).contains(pages), "\(pages) pages")
        // The DOM Chromium built: every section and chart is there.
        let dom = try CLI.run(common + ["--dump-dom", html.absoluteString], tool: Self.chromium!)
        let text = String(decoding: dom.stdout, as: UTF8.self)
        for section in ["overview", "activity", "sleep", "workouts"] { #expect(text.contains("<section id=\"\(section)\">"), "\(section)") }
        #expect(text.components(separatedBy: "<svg").count - 1 >= 5)
    }

    /// The page of a 2019 export with a constant series (5000 steps a day, a constant weight) and
    /// two samples dated 2030, as Chromium shows it (`.build/artifacts/report-constant-late.png`).
    @Test(.enabled(if: chromium != nil, "Chromium is not installed (Debian: chromium)"))
    func chromiumRendersAConstantSeriesAndTheNoteOfLateSamples() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n <ExportDate value=\"2019-06-01 10:00:00 +0200\"/>\n"
        let may = 1_556_712_000   // 2019-05-01 12:00 UTC
        for day in 0..<31 {
            let noon = may + day * 86_400
            text += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Watch\" unit=\"count\" startDate=\"\(Self.stamp(noon))\" endDate=\"\(Self.stamp(noon + 3600))\" value=\"5000\"/>\n"
            if day % 3 == 0 {
                text += " <Record type=\"HKQuantityTypeIdentifierBodyMass\" sourceName=\"Scale\" unit=\"kg\" startDate=\"\(Self.stamp(noon))\" endDate=\"\(Self.stamp(noon))\" value=\"70\"/>\n"
            }
        }
        for late in [1_898_762_400, 1_902_736_800] {   // 2030-03-03 and 2030-04-18
            text += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Watch\" unit=\"count\" startDate=\"\(Self.stamp(late))\" endDate=\"\(Self.stamp(late + 3600))\" value=\"800\"/>\n"
        }
        let (html, _) = try Self.report(text + "</HealthData>\n", in: dir)
        try Self.screenshot(html, name: "report-constant-late", height: 1400, in: dir)
    }
}
