import CloudSyncModel
import Foundation

/// Instants as the page shows them: wall-clock time in the report's zone (`--tz`). The page names
/// the zone once, at the top, so no time on it carries a zone of its own, and none is in UTC
/// unless the zone is UTC. The store answers in UTC (`2024-11-02T07:30:00Z`); every time goes
/// through here on its way to the page.
struct LocalTime {
    let zone: TimeZone

    init(_ zone: TimeZone?) { self.zone = zone ?? TimeZone(identifier: "UTC")! }

    var name: String { zone.identifier }

    /// `2024-11-02 08:30`.
    func minute(_ seconds: Int64) -> String {
        let text = wallClock(seconds)
        return "\(text.prefix(10)) \(text.dropFirst(11).prefix(5))"
    }

    /// `2024-11-02`.
    func day(_ seconds: Int64) -> String { String(wallClock(seconds).prefix(10)) }

    /// `2024-11`.
    func month(_ seconds: Int64) -> String { String(wallClock(seconds).prefix(7)) }

    /// The day alone when the instant is the zone's midnight (a range's bound), else to the minute.
    func bound(_ seconds: Int64) -> String {
        wallClock(seconds).hasSuffix("T00:00:00Z") ? day(seconds) : minute(seconds)
    }

    /// A store time (`2024-11-02T07:30:00Z`) to the minute; text that is not a time is kept as it is.
    func minute(_ utc: String) -> String { ReportData.epochSeconds(utc).map(minute) ?? utc }

    func day(_ utc: String) -> String { ReportData.epochSeconds(utc).map(day) ?? String(utc.prefix(10)) }

    func month(_ utc: String) -> String { ReportData.epochSeconds(utc).map(month) ?? String(utc.prefix(7)) }

    /// The wall clock as `UTCDateFormatter` writes it (the `Z` is not true of it; only its fields are used).
    private func wallClock(_ seconds: Int64) -> String {
        let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
        return UTCDateFormatter.string(seconds + Int64(offset))
    }
}
