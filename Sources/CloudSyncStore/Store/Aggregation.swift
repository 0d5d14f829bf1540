import CloudSyncExport
import CloudSyncModel
import Foundation

/// The buckets of `cloudsync aggregate`.
public enum AggregateBucket: String, Sendable, CaseIterable, Codable {
    case hour, day, week, month
}

/// One type in one bucket: what the iOS app's DataProcessor computes.
public struct AggregateRow: Sendable, Codable, Equatable {
    public var type: String
    /// `2024-11-02T07:00` (hour), `2024-11-02` (day), the Monday `2024-10-28` (week), `2024-11` (month),
    /// in the requested time zone.
    public var bucket: String
    public var unit: String
    public var count: Int
    public var sum: Double
    public var average: Double
    public var minimum: Double
    public var maximum: Double
}

public struct AggregateOptions: Sendable {
    public var bucket: AggregateBucket
    public var filter: MetricFilter
    /// An IANA zone (`Europe/Paris`); nil for UTC.
    public var timeZone: TimeZone?
    /// Do not double-count cumulative types recorded by several sources (see docs/aggregation.md).
    public var mergeSources: Bool
    /// Count repeats (samples alike but for their creation date) each time, not once.
    public var countRepeats: Bool

    public init(bucket: AggregateBucket, filter: MetricFilter = .all, timeZone: TimeZone? = nil, mergeSources: Bool = false,
                countRepeats: Bool = false) {
        self.bucket = bucket
        self.filter = filter
        self.timeZone = timeZone
        self.mergeSources = mergeSources
        self.countRepeats = countRepeats
    }
}

/// Which types are amounts that add up over time (steps, distance, energy…): the ones that
/// `--merge-sources` de-duplicates. Averages of discrete samples (heart rate) are left alone.
public enum CumulativeTypes {
    public static let markers = ["StepCount", "Distance", "EnergyBurned", "FlightsClimbed", "AppleExerciseTime",
                          "AppleStandTime", "AppleMoveTime", "PushCount", "SwimmingStrokeCount", "NikeFuel"]

    public static func contains(_ type: String) -> Bool { markers.contains { type.contains($0) } }
}

/// Turns instants into bucket labels in a time zone. The zone's offset is looked up once per UTC
/// hour (offsets only change on the hour), not per sample.
struct BucketLabeler {
    let bucket: AggregateBucket
    let zone: TimeZone?
    private var offsetHour = Int64.min
    private var offset: Int64 = 0

    init(bucket: AggregateBucket, zone: TimeZone?) {
        self.bucket = bucket
        self.zone = zone
    }

    /// A sortable key of the bucket holding `instant`.
    mutating func key(_ instant: Int64) -> Int64 {
        if let zone {
            let hour = instant >= 0 ? instant / 3600 : (instant - 3599) / 3600
            if hour != offsetHour {
                offsetHour = hour
                offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(hour * 3600))))
            }
        }
        let local = instant + offset
        return key(local: local)
    }

    /// Whether the offset of the last instant keyed is a whole number of hours, so that a UTC hour
    /// falls in one bucket (every zone but a few: India +5:30, Nepal +5:45, Newfoundland -3:30…).
    var offsetIsWholeHours: Bool { offset % 3600 == 0 }

    private func key(local: Int64) -> Int64 {
        let day = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        switch bucket {
        case .hour: return local >= 0 ? local / 3600 : (local - 3599) / 3600
        case .day: return day
        case .week: return day - ((day + 3) % 7 + 7) % 7  // the Monday (1970-01-01 was a Thursday)
        case .month:
            // Without formatting a date per sample.
            let (year, month, _) = UTCDateFormatter.civil(fromDays: day)
            return year * 12 + month - 1
        }
    }

    func label(_ key: Int64) -> String {
        switch bucket {
        case .hour: return String(UTCDateFormatter.string(key * 3600).prefix(16))
        case .day, .week: return String(UTCDateFormatter.string(key * 86_400).prefix(10))
        case .month: return String(format: "%04d-%02d", key / 12, key % 12 + 1)
        }
    }
}
