import Foundation

/// Calendar days in a time zone: what `compare_periods` divides by for `dailyAverage`. Counted by
/// local date, not by elapsed time, so that the week of a clock change (167 or 169 hours) is seven
/// days and a 23- or 25-hour day is one.
enum CalendarDays {
    /// The local day (days since 1970-01-01) holding `instant` in `zone` (UTC when nil).
    static func day(of instant: Int64, zone: TimeZone?) -> Int64 {
        let local = instant + Int64(zone?.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))) ?? 0)
        return local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
    }

    /// The calendar days that [since, until) touches: a range of dates (an `end` date is inclusive,
    /// so `until` is the next day's midnight) counts its dates; a day partly covered counts as one.
    static func count(since: Int64, until: Int64, zone: TimeZone?) -> Int {
        guard until > since else { return 0 }
        return Int(day(of: until - 1, zone: zone) - day(of: since, zone: zone) + 1)
    }
}
