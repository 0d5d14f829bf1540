import CloudSyncStore
import Foundation

/// The page: one section per kind of data the store holds (a section without data is left out),
/// each chart followed by the numbers behind it. Inline CSS and SVG only: no script, no font or
/// image from the network, nothing that calls home (the page holds health data).
enum ReportPage {
    static func render(_ data: ReportData, time: LocalTime, generated: String) -> String {
        var page = HTMLText()
        page.raw("<!DOCTYPE html>\n")
        page.element("html", ["xmlns": "http://www.w3.org/1999/xhtml", "lang": "en"]) { page in
            page.element("head") { page in
                page.empty("meta", ["charset": "utf-8"])
                page.empty("meta", ["http-equiv": "Content-Security-Policy", "content": "default-src 'none'; style-src 'unsafe-inline'; img-src data:"])
                page.empty("meta", ["name": "viewport", "content": "width=device-width, initial-scale=1"])
                page.element("title", text: "Health report")
                page.element("style") { page in page.raw(style) }
            }
            page.element("body") { page in
                page.element("h1", text: "Health report")
                // The zone is said once, here: every date and time below is in it.
                page.element("p", ["class": "note"], text: "Made by cloudsync on \(generated) from the staging store. Dates and times in \(time.name).")
                if let range = data.range {
                    page.element("p", ["class": "range"], text: "Range: \(range.describe(time)).")
                }
                if let note = data.late.note(time) { page.element("p", ["class": "late"], text: note) }
                OverviewSection.render(&page, data, time: time)
                activity(&page, data)
                heart(&page, data)
                sleep(&page, data)
                body(&page, data)
                WorkoutsSection.render(&page, data, time: time)
                ecg(&page, data, time: time)
                MedicationsSection.render(&page, data, time: time)
            }
        }
        return page.text
    }

    // MARK: sections

    static func section(_ page: inout HTMLText, id: String, title: String, _ content: (inout HTMLText) -> Void) {
        page.element("section", ["id": id]) { page in
            page.element("h2", text: title)
            content(&page)
        }
    }

    private static func activity(_ page: inout HTMLText, _ data: ReportData) {
        guard !data.dailySteps.isEmpty || !data.dailyEnergy.isEmpty else { return }
        section(&page, id: "activity", title: "Activity") { page in
            if !data.dailySteps.isEmpty {
                let values = data.dailySteps.map(\.value)
                let average = values.indices.map { i in values[max(0, i - 6)...i].reduce(0, +) / Double(i - max(0, i - 6) + 1) }
                // The average first, dashed and wider, the steps on top: where they coincide (a
                // constant series) both stay visible.
                Charts.lines(&page, title: "Daily steps, iPhone and Watch merged", unit: "steps", labels: data.dailySteps.map(\.day),
                             series: [.init(name: "7-day average", values: average, style: "s2", dots: false),
                                      .init(name: "steps", values: values, style: "s1")])
                page.table(summary: "Daily steps (every day of the range)", columns: ["day", "steps", "7-day average"],
                           rows: data.dailySteps.indices.map { [data.dailySteps[$0].day, formatted(values[$0], digits: 0), formatted(average[$0], digits: 0)] },
                           id: "daily-steps")
                Drawings.calendar(&page, days: data.dailySteps)
            }
            for (title, unit, daily, goals, id) in [("Active energy", "kcal", data.dailyEnergy, data.energyGoal, "active-energy"),
                                                    ("Exercise", "min", data.dailyExercise, data.exerciseGoal, "exercise")] where !daily.isEmpty {
                let days = ReportData.everyDay(daily.map { ($0.key, $0.value) })
                var series = [Charts.Series(name: title.lowercased(), values: days.map(\.value), style: "s1")]
                if !goals.isEmpty { series.append(.init(name: "goal", values: days.map { goals[$0.day] }, style: "goal")) }
                Charts.lines(&page, title: "\(title) per day\(goals.isEmpty ? "" : " against the goal")", unit: unit, labels: days.map(\.day), series: series)
                page.table(summary: "\(title) per day", columns: ["day", unit, "goal"],
                           rows: days.map { [$0.day, formatted($0.value, digits: 0), goals[$0.day].map { formatted($0, digits: 0) } ?? ""] }, id: id)
            }
        }
    }

    /// One chart per type: the average of each bucket (`period`: "monthly", "daily") as a line, its
    /// minimum to maximum as the band, each named for the bucket it really is.
    private static func trends(_ page: inout HTMLText, _ series: [String: [ReportData.Point]], names: [String: (String, String)], order: [String],
                               period: String) {
        for type in order {
            guard let points = series[type], !points.isEmpty, let (title, unit) = names[type] else { continue }
            Charts.lines(&page, title: title, unit: unit, labels: points.map(\.label),
                         series: [.init(name: "\(period) average", values: points.map(\.value), style: "s1")],
                         band: .init(name: "\(period) range (min–max)", low: points.map(\.minimum), high: points.map(\.maximum)))
            page.table(summary: "\(title), the numbers", columns: ["period", "average", "minimum", "maximum", "samples"],
                       rows: points.map { [$0.label, formatted($0.value), formatted($0.minimum), formatted($0.maximum), "\($0.count)"] },
                       id: "trend-\(type)")
        }
    }

    private static func heart(_ page: inout HTMLText, _ data: ReportData) {
        guard !data.heart.isEmpty else { return }
        section(&page, id: "heart", title: "Heart") { page in
            trends(&page, data.heart, names: [
                "restingHeartRate": ("Resting heart rate per month", "bpm"), "heartRateVariabilitySDNN": ("Heart rate variability (SDNN) per month", "ms"),
                "walkingHeartRateAverage": ("Walking heart rate average per month", "bpm"), "vo2Max": ("VO2 max per month", "mL/kg·min"),
            ], order: ReportData.heartTypes, period: "monthly")
        }
    }

    private static func body(_ page: inout HTMLText, _ data: ReportData) {
        guard !data.body.isEmpty else { return }
        section(&page, id: "body", title: "Body") { page in
            trends(&page, data.body, names: ["bodyMass": ("Weight", "kg"), "bodyFatPercentage": ("Body fat", "%")],
                   order: ReportData.bodyTypes, period: "daily")
        }
    }

    private static func sleep(_ page: inout HTMLText, _ data: ReportData) {
        guard !data.nights.isEmpty else { return }
        section(&page, id: "sleep", title: "Sleep") { page in
            let last = Array(data.nights.suffix(30))
            let stages: [(String, String, KeyPath<SleepNight, Double>)] = [("core", "core", \.core), ("deep", "deep", \.deep),
                                                                            ("REM", "rem", \.rem), ("awake", "awake", \.awake)]
            Charts.stacked(&page, title: "\(last.count == 1 ? "The last night" : "The last \(last.count) nights") by stage (a night is the evening it began)", unit: "hours",
                           labels: last.map(\.night), parts: stages.map { name, style, path in (name, style, last.map { $0[keyPath: path] / 60 }) })
            page.table(summary: "\(last.count == 1 ? "The last night" : "The last \(last.count) nights"), in minutes", columns: ["night", "in bed", "asleep", "core", "deep", "REM", "awake"],
                       rows: last.map { [$0.night, formatted($0.inBed, digits: 0), formatted($0.asleep, digits: 0), formatted($0.core, digits: 0),
                                         formatted($0.deep, digits: 0), formatted($0.rem, digits: 0), formatted($0.awake, digits: 0)] },
                       id: "nights")
            let months = Dictionary(grouping: data.nights) { String($0.night.prefix(7)) }.sorted { $0.key < $1.key }
            let asleep = months.map { month in month.value.reduce(0) { $0 + $1.asleep } / Double(month.value.count) / 60 }
            Charts.lines(&page, title: "Average sleep per night, by month", unit: "hours", labels: months.map(\.key),
                         series: [.init(name: "asleep", values: asleep, style: "s1")], bars: true)
            page.table(summary: "Monthly averages, in hours", columns: ["month", "nights", "asleep"],
                       rows: months.indices.map { [months[$0].key, "\(months[$0].value.count)", formatted(asleep[$0], digits: 2)] }, id: "sleep-months")
        }
    }

    private static func ecg(_ page: inout HTMLText, _ data: ReportData, time: LocalTime) {
        guard !data.ecgs.isEmpty else { return }
        section(&page, id: "ecg", title: "ECG") { page in
            page.element("p", ["class": "note"], text: "At the standard paper scale: 25 mm/s, 10 mm/mV; small squares 1 mm, large 5 mm.")
            for recording in data.ecgs {
                page.element("figure", ["class": "chart"]) { page in
                    page.element("figcaption", text: "\(time.minute(recording.recordedAt)): \(recording.classification ?? "unclassified")"
                        + (recording.lead.map { ", \($0)" } ?? ""))
                    // Apple writes the voltages in µV (the CSV's header); a file in mV says so.
                    let unit = recording.unit ?? "µV"
                    Drawings.ecgStrip(&page, samples: recording.samples ?? [], sampleRate: recording.samplesRateHz ?? 0,
                                      microvolts: unit.hasPrefix("µ") || unit.lowercased().hasPrefix("u"), label: "ECG \(time.minute(recording.recordedAt))")
                }
            }
        }
    }

    static let style = """
        body { font: 14px/1.45 system-ui, sans-serif; color: #222; max-width: 960px; margin: 2em auto; padding: 0 1em; }
        h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; } .note { color: #666; }
        .range { font-weight: 600; } .late { background: #fff4e0; border-left: 3px solid #e8a33d; padding: .3em .6em; }
        figure { margin: 1em 0; } figcaption { font-weight: 600; margin-bottom: .3em; }
        svg { width: 100%; height: auto; } svg text { font-size: 11px; fill: #555; }
        .ytick { text-anchor: end; } .xtick { text-anchor: middle; } .grid { stroke: #eee; } .axis { stroke: #999; }
        .line { fill: none; stroke-width: 1.3; } .dot { fill: currentColor; stroke: none; } .s1 { stroke: #2a7de1; color: #2a7de1; } .s2 { stroke: #e8871e; color: #e8871e; }
        .line.s2 { stroke-width: 4; stroke-dasharray: 8 5; }
        .goal { stroke: #3a3; color: #3a3; stroke-dasharray: 4 3; } .band { fill: #2a7de1; opacity: .15; color: #9cc3f2; }
        .bar.s1 { fill: #2a7de1; stroke: none; } .bar { stroke: none; }
        .core { fill: #5b8def; color: #5b8def; } .deep { fill: #2c3e9e; color: #2c3e9e; } .rem { fill: #8ec9f0; color: #8ec9f0; } .awake { fill: #f4a261; color: #f4a261; }
        .calendar { max-width: 760px; } .calendar .year { font-weight: 600; }
        .level0 { fill: #eee; } .level1 { fill: #c6e0f7; } .level2 { fill: #8bbcec; } .level3 { fill: #4f95de; } .level4 { fill: #2a6fc0; } .level5 { fill: #17457d; }
        .routes { display: flex; flex-wrap: wrap; gap: 8px; } figure.route { width: 150px; margin: 0; font-size: 11px; }
        figure.route figcaption { font-weight: normal; } svg.route { background: #f6f6f2; } path.route { fill: none; stroke: #d1495b; stroke-width: 1.5; }
        svg.ecg { width: 250mm; max-width: 100%; background: #fff; } .minor { stroke: #f6c6c6; stroke-width: .1; } .major { stroke: #e88; stroke-width: .2; }
        .trace { fill: none; stroke: #111; stroke-width: .25; }
        .legend { margin: .2em 0 0; } .legend .key { font-size: 1.2em; } .legend .band { opacity: 1; } details.numbers { margin: .3em 0 1.2em; } details summary { cursor: pointer; color: #2a7de1; }
        table { border-collapse: collapse; font-size: 12px; margin-top: .4em; } td, th { border-bottom: 1px solid #eee; padding: 2px 8px; text-align: right; }
        td:first-child, th:first-child { text-align: left; }
        @media print { body { max-width: none; margin: 0; } details.numbers { display: none; } section { break-inside: avoid-page; } figure { break-inside: avoid; } }
        @page { size: A4; margin: 15mm; }

        """
}
