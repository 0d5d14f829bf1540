import CloudSyncKinds
import CloudSyncReceiver
import CloudSyncReport
import CloudSyncStore
import Foundation

/// `GET /report`'s page (`serve --store`, and each patient's with `serve --db FILE`).
enum ReportPage {
    /// `cloudsync report` of the store as it is now, with the query's options.
    static func make(store address: StoreAddress, _ query: ReportQuery) throws -> String {
        let zone: TimeZone?
        let since: Int64?, until: Int64?
        do {
            zone = try ZoneName.resolve(query.tz, option: "tz")
            since = try query.since.map { try FilterOptions.parseDate($0, option: "since", zone: zone) }
            until = try query.until.map { try FilterOptions.parseDate($0, option: "until", zone: zone) }
        } catch {
            throw ReportRequestError("\(error)")
        }
        if let since, let until, since >= until { throw ReportRequestError("since (\(query.since!)) is not before until (\(query.until!))") }
        let store = try address.open(.read, configuration: .standard)
        return try HealthReport.html(store: store, since: since, until: until, zone: zone)
    }
}
