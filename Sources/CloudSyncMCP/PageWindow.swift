import CloudSyncModel
import CloudSyncStore
import Foundation

/// Where a page of `series` buckets ends: `buckets` whole buckets of local time after the one that
/// holds `start`, as an instant (local midnights, Mondays and months in the zone, DST included).
enum PageWindow {
    static func end(from start: Int64, buckets: Int, bucket: AggregateBucket, zone: TimeZone?) -> Int64 {
        let offset = Int64(zone?.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(start))) ?? 0)
        let local = start + offset
        let day = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        switch bucket {
        case .hour:
            let hour = local >= 0 ? local / 3600 : (local - 3599) / 3600
            return (hour + Int64(buckets)) * 3600 - offset
        case .day:
            return ToolArguments.localMidnight(utcDay: (day + Int64(buckets)) * 86_400, zone: zone)
        case .week:
            let monday = day - ((day + 3) % 7 + 7) % 7
            return ToolArguments.localMidnight(utcDay: (monday + 7 * Int64(buckets)) * 86_400, zone: zone)
        case .month:
            let (year, month, _) = UTCDateFormatter.civil(fromDays: day)
            let months = Int(year * 12 + month - 1) + buckets
            let firstOfMonth = ExportDateParser.daysFromCivil(year: months / 12, month: months % 12 + 1, day: 1)
            return ToolArguments.localMidnight(utcDay: firstOfMonth * 86_400, zone: zone)
        }
    }
}
