import CloudSyncModel
import Foundation

/// The x axis of a chart over time, scaled by real time: a bucket's x is the start of its day or
/// month, so two weigh-ins a day apart stand closer than two a month apart, and a month without
/// workouts is a gap, not a bar's width. Positions are in local days (days since 1970-01-01 of the
/// labels, which are already in the report's zone).
struct TimeAxis {
    /// The domain, in local days: the first and last bucket, with half a bucket of room on each side.
    let from: Double, to: Double
    /// Months are the finest ticks of monthly buckets: a month's bar stands on its month's label,
    /// not among weekly ones.
    let monthly: Bool

    /// The day a bucket label starts on, and its length in days: `2024-10-27` (1) or `2024-10` (its month's).
    static func span(_ label: String) -> (start: Double, days: Double)? {
        let parts = label.split(separator: "-").map { Int($0) }
        guard parts.count >= 2, parts.count <= 3, let year = parts[0], let month = parts[1], (1...12).contains(month) else { return nil }
        if parts.count == 3 {
            guard let day = parts[2] else { return nil }
            return (Double(ExportDateParser.daysFromCivil(year: year, month: month, day: day)), 1)
        }
        let first = ExportDateParser.daysFromCivil(year: year, month: month, day: 1)
        let next = month == 12 ? ExportDateParser.daysFromCivil(year: year + 1, month: 1, day: 1)
            : ExportDateParser.daysFromCivil(year: year, month: month + 1, day: 1)
        return (Double(first), Double(next - first))
    }

    /// The axis of these buckets (by their label's start and length).
    init(_ spans: [(start: Double, days: Double)]) {
        let shortest = spans.map(\.days).min() ?? 1
        let room = shortest / 2
        monthly = shortest >= 28
        from = (spans.map(\.start).min() ?? 0) - room
        to = Swift.max((spans.map(\.start).max() ?? 0) + room, from + 1)
    }

    /// Where `day` falls between 0 (the domain's start) and 1 (its end).
    func fraction(_ day: Double) -> Double { (day - from) / (to - from) }

    /// At most about eight labelled ticks on round dates: days (every 1, 2, 7 or 14, weeks from a
    /// Monday), months (every 1, 2, 3 or 6, from January), or years (every 1, 2, 5, 10…).
    var ticks: [(day: Double, label: String)] {
        let span = to - from, most = 8.0
        for step in [1, 2, 7, 14] where !monthly && span / Double(step) <= most {
            var day = Int(ceil(from))
            if step >= 7 { while ((day + 3) % 7 + 7) % 7 != 0 { day += 1 } }   // 1970-01-01 was a Thursday
            return stride(from: day, through: Int(floor(to)), by: step).map { (Double($0), Self.label(day: $0, length: 10)) }
        }
        for step in [1, 2, 3, 6] where span / 30.44 / Double(step) <= most {
            return starts(stepMonths: step).map { (Double($0), Self.label(day: $0, length: 7)) }
        }
        let years = [1, 2, 5, 10, 20, 50, 100].first { span / 365.25 / Double($0) <= most } ?? 1000
        return starts(stepMonths: 12 * years).map { (Double($0), Self.label(day: $0, length: 4)) }
    }

    /// First days of months inside the domain whose month number (January = 0, counted from year 0)
    /// is a multiple of `stepMonths`.
    private func starts(stepMonths: Int) -> [Int] {
        let first = UTCDateFormatter.civil(fromDays: Int64(floor(from)))
        var month = Int(first.year) * 12 + Int(first.month) - 1
        month = (month + stepMonths - 1) / stepMonths * stepMonths
        var result: [Int] = []
        while true {
            let day = Int(ExportDateParser.daysFromCivil(year: month / 12, month: month % 12 + 1, day: 1))
            if Double(day) > to { return result }
            if Double(day) >= from { result.append(day) }
            month += stepMonths
        }
    }

    private static func label(day: Int, length: Int) -> String {
        String(UTCDateFormatter.string(Int64(day) * 86_400).prefix(length))
    }
}
