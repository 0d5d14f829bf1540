import CloudSyncModel
import CloudSyncStore
import Foundation

/// `cloudsync report`: one self-contained HTML page of what the store holds.
public enum HealthReport {
    /// The page for the samples starting in [since, until), dates in `zone` (UTC when nil).
    public static func html(store: StagingStore, since: Int64? = nil, until: Int64? = nil, zone: TimeZone? = nil) throws -> String {
        let data = try ReportData.load(store, .init(since: since, until: until, zone: zone))
        let generated = String(UTCDateFormatter.string(Int64(Date().timeIntervalSince1970)).prefix(10))
        return ReportPage.render(data, zoneName: zone?.identifier ?? "UTC", generated: generated)
    }
}
