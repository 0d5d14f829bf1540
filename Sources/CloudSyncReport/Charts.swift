import Foundation

/// Inline SVG charts over time. Each has a title, a value axis on round ticks (`ValueAxis`), a time
/// axis scaled by real time (`TimeAxis`; the labels come already in the report's zone), a legend
/// that names what each mark is, and draws at most about one point per pixel column: points that
/// fall in the same column are averaged before they are drawn (the tables keep every value).
enum Charts {
    static let width = 900.0
    static let height = 240.0
    static let left = 60.0, right = 30.0, top = 12.0, bottom = 34.0

    struct Series {
        var name: String
        var values: [Double?]
        /// The CSS class that colours it.
        var style: String
        /// Whether a short series marks its points (a measured series does; an average of it need not).
        var dots = true
    }

    /// Minimum to maximum per label, drawn as a shaded band; `name` says what it spans ("daily range").
    struct Band {
        var name: String
        var low: [Double?]
        var high: [Double?]
    }

    /// Lines (or bars) over `labels` (days `2024-10-27` or months `2024-10`), drawn in the order given:
    /// a series given later is drawn on top.
    static func lines(_ page: inout HTMLText, title: String, unit: String, labels: [String], series: [Series],
                      band: Band? = nil, bars: Bool = false) {
        let all = series.flatMap { $0.values.compactMap { $0 } } + (band.map { $0.low.compactMap { $0 } + $0.high.compactMap { $0 } } ?? [])
        let values = ValueAxis(all, fromZero: bars)
        // A band only where some bucket has a spread (one weigh-in a day has none): the legend names
        // no mark that is not drawn.
        let band = band.flatMap { band in zip(band.low, band.high).contains { low, high in (low ?? 0) < (high ?? 0) } ? band : nil }
        let keys = series.map { ($0.name, $0.style) } + (band.map { [($0.name, "band")] } ?? [])
        figure(&page, title: title, unit: unit, labels: labels, values: values, legend: keys) { page, x, y, barWidth in
            if let band {
                let high = binned(labels.indices.map { point(x, $0, band.high[$0]) }, combine: { $0.max() ?? 0 })
                let low = binned(labels.indices.map { point(x, $0, band.low[$0]) }, combine: { $0.min() ?? 0 })
                let upper = high.compactMap { $0 }, lower = low.compactMap { $0 }
                if !upper.isEmpty {
                    let points = upper.map { "\(f($0.x)),\(f(y($0.value)))" } + lower.reversed().map { "\(f($0.x)),\(f(y($0.value)))" }
                    page.empty("polygon", ["class": "band", "points": points.joined(separator: " ")])
                }
            }
            for line in series {
                if bars {
                    var path = ""
                    for (i, value) in line.values.enumerated() {
                        guard let value, value > 0, let x = x(i) else { continue }
                        path += "M\(f(x - barWidth(i) / 2)) \(f(y(0)))V\(f(y(value)))h\(f(barWidth(i)))V\(f(y(0)))Z"
                    }
                    page.empty("path", ["class": "bar \(line.style)", "d": path])
                } else {
                    page.empty("path", ["class": "line \(line.style)", "d": polyline(line.values, x: x, y: y)])
                    // A short series also gets its points (a single value draws no line).
                    if line.dots && line.values.count <= 60 {
                        for (i, value) in line.values.enumerated() {
                            guard let value, let x = x(i) else { continue }
                            page.empty("circle", ["class": "dot \(line.style)", "cx": f(x), "cy": f(y(value)), "r": "2.5"])
                        }
                    }
                }
            }
        }
    }

    /// Stacked bars: per label, the parts in order (sleep stages of a night).
    static func stacked(_ page: inout HTMLText, title: String, unit: String, labels: [String], parts: [(name: String, style: String, values: [Double])]) {
        let totals = labels.indices.map { i in parts.reduce(0) { $0 + $1.values[i] } }
        figure(&page, title: title, unit: unit, labels: labels, values: ValueAxis(totals, fromZero: true),
               legend: parts.map { ($0.name, $0.style) }) { page, x, y, barWidth in
            var base = [Double](repeating: 0, count: labels.count)
            for part in parts {
                var path = ""
                for i in labels.indices where part.values[i] > 0 {
                    guard let x = x(i) else { continue }
                    path += "M\(f(x - barWidth(i) / 2)) \(f(y(base[i])))V\(f(y(base[i] + part.values[i])))h\(f(barWidth(i)))V\(f(y(base[i])))Z"
                    base[i] += part.values[i]
                }
                page.empty("path", ["class": "bar \(part.style)", "d": path])
            }
        }
    }

    /// The frame: title, axes, ticks and labels, and the legend under it. `draw` gets the x of a label's index (nil for a
    /// label that is not a date), the y of a value, and the width a bar of that label may take.
    private static func figure(_ page: inout HTMLText, title: String, unit: String, labels: [String], values: ValueAxis,
                               legend keys: [(String, String)], draw: (inout HTMLText, (Int) -> Double?, (Double) -> Double, (Int) -> Double) -> Void) {
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let spans = labels.map(TimeAxis.span)
        let time = TimeAxis(spans.compactMap { $0 })
        let x = { (i: Int) in spans[i].map { left + time.fraction($0.start) * plotWidth } }
        let y = { (v: Double) in top + plotHeight - (v - values.low) / (values.high - values.low) * plotHeight }
        // A bar fills four fifths of its day's or month's width: neighbours never touch.
        let barWidth = { (i: Int) in min(40, max(1, (spans[i]?.days ?? 1) / (time.to - time.from) * plotWidth * 0.8)) }
        page.element("figure", ["class": "chart"]) { page in
            page.element("figcaption", text: "\(title) (\(unit))")
            page.element("svg", ["xmlns": "http://www.w3.org/2000/svg", "viewBox": "0 0 \(Int(width)) \(Int(height))",
                                 "role": "img", "aria-label": title]) { page in
                for tick in values.ticks {
                    page.empty("line", ["class": "grid", "x1": f(left), "x2": f(width - right), "y1": f(y(tick)), "y2": f(y(tick))])
                    page.element("text", ["class": "ytick", "x": f(left - 6), "y": f(y(tick) + 4)], text: values.label(tick))
                }
                for tick in time.ticks {
                    let tx = left + time.fraction(tick.day) * plotWidth
                    page.empty("line", ["class": "axis", "x1": f(tx), "x2": f(tx), "y1": f(top + plotHeight), "y2": f(top + plotHeight + 4)])
                    page.element("text", ["class": "xtick", "x": f(tx), "y": f(height - bottom + 18)], text: tick.label)
                }
                page.empty("line", ["class": "axis", "x1": f(left), "x2": f(width - right), "y1": f(top + plotHeight), "y2": f(top + plotHeight)])
                page.empty("line", ["class": "axis", "x1": f(left), "x2": f(left), "y1": f(top), "y2": f(top + plotHeight)])
                draw(&page, x, y, barWidth)
            }
            legend(&page, keys)
        }
    }

    private static func legend(_ page: inout HTMLText, _ entries: [(String, String)]) {
        guard entries.count > 1 else { return }
        page.element("p", ["class": "legend"]) { page in
            for (name, style) in entries {
                page.element("span", ["class": "key \(style)"], text: "■")
                page.text(" \(name)  ")
            }
        }
    }

    /// A path through the values; a missing value breaks the line. Points in one pixel column are
    /// averaged into one.
    private static func polyline(_ values: [Double?], x: (Int) -> Double?, y: (Double) -> Double) -> String {
        var path = ""
        var pen = false
        for point in binned(values.indices.map { point(x, $0, values[$0]) }, combine: { $0.reduce(0, +) / Double($0.count) }) {
            guard let point else { pen = false; continue }
            path += "\(pen ? "L" : "M")\(f(point.x)) \(f(y(point.value)))"
            pen = true
        }
        return path
    }

    /// The `i`th value where it is drawn; nil when it is missing (or its label is not a date).
    private static func point(_ x: (Int) -> Double?, _ i: Int, _ value: Double?) -> (x: Double, value: Double)? {
        guard let value, let x = x(i) else { return nil }
        return (x, value)
    }

    /// Points in x order grouped by pixel column: each group becomes one point at its mean x with
    /// `combine` of its values; a nil (a missing value) ends the group and is kept as a break.
    private static func binned(_ points: [(x: Double, value: Double)?], combine: ([Double]) -> Double) -> [(x: Double, value: Double)?] {
        var result: [(x: Double, value: Double)?] = []
        var xs: [Double] = [], group: [Double] = []
        func close() {
            guard !xs.isEmpty else { return }
            result.append((xs.reduce(0, +) / Double(xs.count), combine(group)))
            xs.removeAll(keepingCapacity: true)
            group.removeAll(keepingCapacity: true)
        }
        for point in points {
            guard let point else { close(); result.append(nil); continue }
            if let last = xs.last, floor(last) != floor(point.x) { close() }
            xs.append(point.x)
            group.append(point.value)
        }
        close()
        return result
    }

    /// A coordinate with one decimal, as SVG takes it.
    static func f(_ value: Double) -> String { formatted(value, digits: 1) }
}
