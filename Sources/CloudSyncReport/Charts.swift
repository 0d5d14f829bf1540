import Foundation

/// Inline SVG charts. Each has a title, axes with units and dates (the labels come already in the
/// report's time zone), and draws at most about one point per pixel: longer series are averaged
/// into that many steps before they are drawn (the tables keep every value).
enum Charts {
    static let width = 900.0
    static let height = 240.0
    static let left = 60.0, right = 12.0, top = 12.0, bottom = 34.0

    struct Series {
        var name: String
        var values: [Double?]
        /// The CSS class that colours it.
        var style: String
    }

    /// Lines (or bars) over `labels`, with an optional band (minimum to maximum per label).
    static func lines(_ page: inout HTMLText, title: String, unit: String, labels: [String], series: [Series],
                      band: (low: [Double?], high: [Double?])? = nil, bars: Bool = false) {
        let all = series.flatMap { $0.values.compactMap { $0 } } + (band.map { $0.low.compactMap { $0 } + $0.high.compactMap { $0 } } ?? [])
        let (low, high) = yRange(all, fromZero: bars)
        figure(&page, title: title, unit: unit, labels: labels, low: low, high: high) { page, x, y in
            if let band {
                var upper: [String] = [], lower: [String] = []
                for i in labels.indices {
                    guard let l = band.low[i], let h = band.high[i] else { continue }
                    upper.append("\(f(x(i))),\(f(y(h)))")
                    lower.append("\(f(x(i))),\(f(y(l)))")
                }
                if !upper.isEmpty {
                    page.empty("polygon", ["class": "band", "points": (upper + lower.reversed()).joined(separator: " ")])
                }
            }
            for line in series {
                if bars {
                    let barWidth = min(40, max(1, (width - left - right) / Double(max(labels.count, 1)) - 1))
                    var path = ""
                    for (i, value) in line.values.enumerated() {
                        guard let value, value > 0 else { continue }
                        path += "M\(f(x(i) - barWidth / 2)) \(f(y(0)))V\(f(y(value)))h\(f(barWidth))V\(f(y(0)))Z"
                    }
                    page.empty("path", ["class": "bar \(line.style)", "d": path])
                } else {
                    page.empty("path", ["class": "line \(line.style)", "d": polyline(line.values, x: x, y: y)])
                    // A short series also gets its points (a single value draws no line).
                    if line.values.count <= 60 {
                        for (i, value) in line.values.enumerated() {
                            if let value { page.empty("circle", ["class": "dot \(line.style)", "cx": f(x(i)), "cy": f(y(value)), "r": "2.5"]) }
                        }
                    }
                }
            }
        }
        legend(&page, series.map { ($0.name, $0.style) } + (band == nil ? [] : [("monthly range (min–max)", "band")]))
    }

    /// Stacked bars: per label, the parts in order (sleep stages of a night).
    static func stacked(_ page: inout HTMLText, title: String, unit: String, labels: [String], parts: [(name: String, style: String, values: [Double])]) {
        let totals = labels.indices.map { i in parts.reduce(0) { $0 + $1.values[i] } }
        let (low, high) = yRange(totals, fromZero: true)
        figure(&page, title: title, unit: unit, labels: labels, low: low, high: high) { page, x, y in
            let barWidth = min(40, max(2, (width - left - right) / Double(max(labels.count, 1)) - 2))
            var base = [Double](repeating: 0, count: labels.count)
            for part in parts {
                var path = ""
                for i in labels.indices where part.values[i] > 0 {
                    path += "M\(f(x(i) - barWidth / 2)) \(f(y(base[i])))V\(f(y(base[i] + part.values[i])))h\(f(barWidth))V\(f(y(base[i])))Z"
                    base[i] += part.values[i]
                }
                page.empty("path", ["class": "bar \(part.style)", "d": path])
            }
        }
        legend(&page, parts.map { ($0.name, $0.style) })
    }

    /// The frame: title, axes, ticks and labels; `draw` gets the x of a label's index and the y of a value.
    private static func figure(_ page: inout HTMLText, title: String, unit: String, labels: [String], low: Double, high: Double,
                               draw: (inout HTMLText, (Int) -> Double, (Double) -> Double) -> Void) {
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let count = max(labels.count, 1)
        let x = { (i: Int) in left + (Double(i) + 0.5) * plotWidth / Double(count) }
        let y = { (v: Double) in top + plotHeight - (v - low) / (high - low) * plotHeight }
        page.element("figure", ["class": "chart"]) { page in
            page.element("figcaption", text: "\(title) (\(unit))")
            page.element("svg", ["xmlns": "http://www.w3.org/2000/svg", "viewBox": "0 0 \(Int(width)) \(Int(height))",
                                 "role": "img", "aria-label": title]) { page in
                for tick in ticks(low, high) {
                    page.empty("line", ["class": "grid", "x1": f(left), "x2": f(width - right), "y1": f(y(tick)), "y2": f(y(tick))])
                    page.element("text", ["class": "ytick", "x": f(left - 6), "y": f(y(tick) + 4)], text: formatted(tick, digits: 2))
                }
                let step = max(1, labels.count / 8)
                for i in stride(from: 0, to: labels.count, by: step) {
                    page.element("text", ["class": "xtick", "x": f(x(i)), "y": f(height - bottom + 18)], text: labels[i])
                }
                page.empty("line", ["class": "axis", "x1": f(left), "x2": f(width - right), "y1": f(top + plotHeight), "y2": f(top + plotHeight)])
                page.empty("line", ["class": "axis", "x1": f(left), "x2": f(left), "y1": f(top), "y2": f(top + plotHeight)])
                draw(&page, x, y)
            }
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

    /// A path through the values; a missing value breaks the line. Series longer than the plot's
    /// width are averaged into that many steps first.
    private static func polyline(_ values: [Double?], x: (Int) -> Double, y: (Double) -> Double) -> String {
        let stride = max(1, values.count / Int(width - left - right))
        var path = ""
        var pen = false
        var i = 0
        while i < values.count {
            let window = values[i..<min(i + stride, values.count)].compactMap { $0 }
            if window.isEmpty {
                pen = false
            } else {
                let mean = window.reduce(0, +) / Double(window.count)
                path += "\(pen ? "L" : "M")\(f(x(i + (min(i + stride, values.count) - i) / 2))) \(f(y(mean)))"
                pen = true
            }
            i += stride
        }
        return path
    }

    /// The value range with a little room, and nice tick values inside it.
    static func yRange(_ values: [Double], fromZero: Bool) -> (Double, Double) {
        guard var low = values.min(), var high = values.max() else { return (0, 1) }
        if fromZero { low = min(0, low) }
        if high == low { high = low + 1 }
        let room = (high - low) * 0.05
        return (fromZero && low == 0 ? 0 : low - room, high + room)
    }

    static func ticks(_ low: Double, _ high: Double) -> [Double] {
        let raw = (high - low) / 4
        let magnitude = pow(10, floor(log10(raw)))
        let step = [1.0, 2, 2.5, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? raw
        var ticks: [Double] = []
        var tick = ceil(low / step) * step
        while tick <= high + step * 1e-9 { ticks.append(tick); tick += step }
        return ticks
    }

    /// A coordinate with one decimal, as SVG takes it.
    static func f(_ value: Double) -> String { formatted(value, digits: 1) }
}
