import CloudSyncModel
import Foundation
/// The bucket of a summarised point ("Summarize Data" on): the app dates it at the bucket's local
/// start and gives the sum or average of the bucket. The push names the bucket in its
/// `automation-aggregation` header; a file does not, so it is told by the dates (all at local
/// midnight: days; all on the hour: hours).
public enum Aggregation: String, Sendable, CaseIterable {
    case minute, hour, day, week, month, year

    /// The header's value (`Days`, `hours`, `minutes` …), or nil when it names no bucket.
    public init?(header: String) {
        let lower = header.lowercased().trimmingCharacters(in: .whitespaces)
        guard let found = Self.allCases.first(where: { lower.hasPrefix($0.rawValue) }) else { return nil }
        self = found
    }

    /// Whether a point dated `date` can be the start of such a bucket.
    func isAligned(_ date: LocalDate) -> Bool {
        let second = date.secondOfDay
        switch self {
        case .minute: return second % 60 == 0
        case .hour: return second % 3600 == 0
        case .day, .week, .month, .year: return second == 0
        }
    }

    /// The end of the bucket that starts at `start`, in the same offset (a bucket over a change of
    /// daylight saving time is an hour off: the app gives no other offset).
    func end(of start: LocalDate) -> Int64 {
        switch self {
        case .minute: return start.utc + 60
        case .hour: return start.utc + 3600
        case .day: return start.utc + 86_400
        case .week: return start.utc + 7 * 86_400
        case .month, .year:
            let localDays = (start.utc + start.offset).floorDivided(by: 86_400)
            let civil = UTCDateFormatter.civil(fromDays: localDays)
            let (year, month) = self == .month ? (civil.month == 12 ? (civil.year + 1, 1) : (civil.year, civil.month + 1))
                                               : (civil.year + 1, civil.month)
            let day = min(Int(civil.day), ExportDateParser.daysInMonth(year: Int(year), month: Int(month)))
            let days = ExportDateParser.daysFromCivil(year: Int(year), month: Int(month), day: day)
            return days * 86_400 + start.secondOfDay - start.offset
        }
    }

    /// The bucket the dates of one metric's date-only points show, or nil when they are not
    /// buckets (some date is off the hour: individual samples at an instant).
    static func inferred(from dates: [LocalDate]) -> Aggregation? {
        guard !dates.isEmpty else { return nil }
        if dates.allSatisfy({ $0.secondOfDay == 0 }) { return .day }
        if dates.allSatisfy({ $0.secondOfDay % 3600 == 0 }) { return .hour }
        return nil
    }
}

extension Int64 {
    func floorDivided(by divisor: Int64) -> Int64 {
        let q = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? q - 1 : q
    }
}
