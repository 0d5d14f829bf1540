@testable import CloudSyncMCP
import CloudSyncModel
import Foundation
import Testing

/// Days of a period as its dates name them, whatever the clock does.
@Suite struct CalendarDaysTests {
    func range(_ start: String, _ end: String, _ zone: TimeZone?) throws -> (Int64, Int64) {
        (try ToolArguments.instant(start, name: "start", zone: zone, isEnd: false), try ToolArguments.instant(end, name: "end", zone: zone, isEnd: true))
    }

    @Test func aWeekWithAClockChangeIsSevenDays() throws {
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        for (start, end, days) in [("2024-10-21", "2024-10-27", 7), ("2024-10-16", "2024-10-31", 16), ("2024-03-25", "2024-03-31", 7),
                                   ("2024-10-27", "2024-10-27", 1), ("2024-03-31", "2024-03-31", 1), ("2024-01-01", "2024-12-31", 366)] {
            let (since, until) = try range(start, end, paris)
            #expect(CalendarDays.count(since: since, until: until, zone: paris) == days, "\(start)…\(end)")
        }
        let santiago = try #require(TimeZone(identifier: "America/Santiago"))  // DST starts at midnight
        let (since, until) = try range("2023-09-01", "2023-09-07", santiago)
        #expect(CalendarDays.count(since: since, until: until, zone: santiago) == 7)
    }

    @Test func aDayPartlyCoveredCountsAsOne() throws {
        let (since, until) = try range("2024-03-01T08:00:00Z", "2024-03-02T08:00:00Z", nil)
        #expect(CalendarDays.count(since: since, until: until, zone: nil) == 2)
        let (start, end) = try range("2024-03-01T08:00:00Z", "2024-03-02T00:00:00Z", nil)
        #expect(CalendarDays.count(since: start, until: end, zone: nil) == 1)
    }
}
