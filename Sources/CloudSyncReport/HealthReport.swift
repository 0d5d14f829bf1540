package import CloudSyncStore
package import Foundation

/// `cloudsync report`: one self-contained HTML page of what the store holds.
package enum HealthReport {
    /// The page for the samples starting in [since, until), every date and time in `zone` (UTC
    /// when nil). `now` (default: the clock) is the report's time, the limit of what is drawn when
    /// no import recorded an export date.
    package static func html(store: StagingStore, since: Int64? = nil, until: Int64? = nil, zone: TimeZone? = nil,
                            now: Int64 = Int64(Date().timeIntervalSince1970)) throws -> String {
        let data = try ReportData.load(store, .init(since: since, until: until, zone: zone, now: now))
        let time = LocalTime(zone)
        return ReportPage.render(data, time: time, generated: time.day(now))
    }
}
