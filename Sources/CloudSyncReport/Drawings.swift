import CloudSyncModel
import Foundation

/// The drawings that are not charts over time: a year's calendar of daily steps, workout routes
/// and ECG strips.
enum Drawings {
    /// One row per year, one square per day (weeks as columns, Monday on top), shaded by the day's
    /// steps in five levels (the levels' limits are the quintiles of the days drawn).
    static func calendar(_ page: inout HTMLText, days: [(day: String, value: Double)]) {
        let values = days.map(\.value).filter { $0 > 0 }.sorted()
        let limits = values.isEmpty ? [] : (1...4).map { values[min(values.count - 1, values.count * $0 / 5)] }
        let byYear = Dictionary(grouping: days) { String($0.day.prefix(4)) }
        let cell = 11.0
        page.element("figure", ["class": "chart"]) { page in
            page.element("figcaption", text: "Daily steps, year by year (darker: more steps)")
            for year in byYear.keys.sorted() {
                let entries = byYear[year]!
                page.element("svg", ["xmlns": "http://www.w3.org/2000/svg", "viewBox": "0 0 \(Int(54 * cell + 40)) \(Int(7 * cell + 4))",
                                     "class": "calendar", "role": "img", "aria-label": "steps in \(year)"]) { page in
                    page.element("text", ["class": "year", "x": "0", "y": Charts.f(4 * cell)], text: year)
                    for entry in entries {
                        guard let (week, weekday) = position(entry.day) else { continue }
                        let level = entry.value <= 0 ? 0 : 1 + limits.filter { entry.value > $0 }.count
                        page.element("rect", ["class": "level\(level)", "x": Charts.f(40 + Double(week) * cell),
                                              "y": Charts.f(Double(weekday) * cell), "width": Charts.f(cell - 1), "height": Charts.f(cell - 1)]) { page in
                            page.element("title", text: "\(entry.day): \(formatted(entry.value, digits: 0)) steps")
                        }
                    }
                }
            }
        }
    }

    /// The week of the year (0…53, weeks starting on Monday) and the weekday (0 = Monday) of `YYYY-MM-DD`.
    static func position(_ day: String) -> (week: Int, weekday: Int)? {
        let parts = day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        let days = Int(ExportDateParser.daysFromCivil(year: parts[0], month: parts[1], day: parts[2]))
        let january1 = Int(ExportDateParser.daysFromCivil(year: parts[0], month: 1, day: 1))
        let weekday = ((days + 3) % 7 + 7) % 7            // 1970-01-01 was a Thursday
        let firstWeekday = ((january1 + 3) % 7 + 7) % 7
        return ((days - january1 + firstWeekday) / 7, weekday)
    }

    /// Routes drawn in one local projection (equirectangular around their centre, which keeps
    /// shapes true at a city's scale), fitted into a `size`-wide square; north is up.
    static func routes(_ page: inout HTMLText, _ routes: [Route], size: Double, label: String) {
        let points = routes.flatMap(\.points)
        guard let first = points.first else { return }
        var minLat = first.latitude, maxLat = first.latitude, minLon = first.longitude, maxLon = first.longitude
        for point in points {
            minLat = min(minLat, point.latitude); maxLat = max(maxLat, point.latitude)
            minLon = min(minLon, point.longitude); maxLon = max(maxLon, point.longitude)
        }
        let scaleX = cos((minLat + maxLat) / 2 * .pi / 180)
        let spanX = max((maxLon - minLon) * scaleX, 1e-9), spanY = max(maxLat - minLat, 1e-9)
        let scale = (size - 8) / max(spanX, spanY)
        page.element("svg", ["xmlns": "http://www.w3.org/2000/svg", "viewBox": "0 0 \(Int(size)) \(Int(size))", "class": "route",
                             "role": "img", "aria-label": label]) { page in
            for route in routes {
                var path = ""
                for (i, point) in route.points.enumerated() {
                    let x = 4 + (point.longitude - minLon) * scaleX * scale + (size - 8 - spanX * scale) / 2
                    let y = 4 + (maxLat - point.latitude) * scale + (size - 8 - spanY * scale) / 2
                    path += "\(i == 0 ? "M" : "L")\(Charts.f(x)) \(Charts.f(y))"
                }
                page.empty("path", ["class": "route", "d": path])
            }
        }
    }

    /// An ECG at the standard paper scale, 25 mm/s and 10 mm/mV, in rows of 10 s on a 1 mm / 5 mm grid.
    static func ecgStrip(_ page: inout HTMLText, samples: [Double], sampleRate: Double, microvolts: Bool, label: String) {
        guard sampleRate > 0, !samples.isEmpty else { return }
        let rowSeconds = 10.0, rowHeight = 30.0
        let duration = Double(samples.count) / sampleRate
        let rows = max(1, Int(ceil(duration / rowSeconds)))
        let width = rowSeconds * 25
        page.element("svg", ["xmlns": "http://www.w3.org/2000/svg", "viewBox": "0 0 \(Int(width)) \(Int(Double(rows) * rowHeight))",
                             "width": "\(Int(width))mm", "height": "\(Int(Double(rows) * rowHeight))mm", "class": "ecg",
                             "role": "img", "aria-label": label]) { page in
            page.element("defs") { page in
                page.element("pattern", ["id": "ecg-grid", "width": "5", "height": "5", "patternUnits": "userSpaceOnUse"]) { page in
                    page.empty("path", ["d": "M1 0V5M2 0V5M3 0V5M4 0V5M0 1H5M0 2H5M0 3H5M0 4H5", "class": "minor"])
                    page.empty("path", ["d": "M0 0V5M0 0H5", "class": "major"])
                }
            }
            page.empty("rect", ["width": "\(Int(width))", "height": "\(Int(Double(rows) * rowHeight))", "fill": "url(#ecg-grid)"])
            for row in 0..<rows {
                let from = Int(Double(row) * rowSeconds * sampleRate), to = min(samples.count, Int(Double(row + 1) * rowSeconds * sampleRate))
                guard from < to else { continue }
                let baseline = Double(row) * rowHeight + rowHeight / 2
                var path = ""
                for i in from..<to {
                    let millivolts = microvolts ? samples[i] / 1000 : samples[i]
                    let x = Double(i - from) / sampleRate * 25
                    let y = baseline - millivolts * 10
                    path += "\(i == from ? "M" : "L")\(Charts.f(x)) \(formatted(y, digits: 2))"
                }
                page.empty("path", ["class": "trace", "d": path])
            }
        }
    }
}
