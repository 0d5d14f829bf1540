public import CloudSyncModel
public import Foundation

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
    /// Sleep only: `asleep` (every asleep stage of every source, merged) or `inBed`; each night counts
    /// once (docs/aggregation.md, "Sleep: a night counted once").
    public var category: String? = nil
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
    public static let markers: [StaticString] = ["StepCount", "Distance", "EnergyBurned", "FlightsClimbed", "AppleExerciseTime",
                                                 "AppleStandTime", "AppleMoveTime", "PushCount", "SwimmingStrokeCount", "NikeFuel"]

    public static func contains(_ type: String) -> Bool {
        var type = type
        return type.withUTF8 { contains($0) }
    }

    /// Searched in the name's bytes: each received batch asks for each of its types, and
    /// Foundation's `String.contains` (a `CFStringFind` per marker) was 2% of `serve`'s CPU on the
    /// PostgreSQL receiver (perf).
    public static func contains(_ type: ByteText) -> Bool { markers.contains { type.contains($0) } }
}

/// Turns instants into bucket labels in a time zone. An instant takes the offset of the start of
/// its UTC hour (offsets change on the hour), looked up when the zone's offset may have changed: at
/// its next transition, not once per hour. Per hour, the lookups were most of a series over years
/// read from the hour summary (ICU's `getOffset` and `dayToFields` for each of 187,000 hours).
struct BucketLabeler {
    let bucket: AggregateBucket
    let zone: TimeZone?
    /// `offset` holds for the instants from `offsetFrom` to before `offsetUntil`.
    private var offsetFrom = Int64.max, offsetUntil = Int64.min
    private var offset: Int64 = 0

    init(bucket: AggregateBucket, zone: TimeZone?) {
        self.bucket = bucket
        self.zone = zone
    }

    /// A sortable key of the bucket holding `instant`.
    mutating func key(_ instant: Int64) -> Int64 {
        if let zone, instant < offsetFrom || instant >= offsetUntil {
            let hourStart = Self.hour(of: instant) * 3600
            let date = Date(timeIntervalSince1970: TimeInterval(hourStart))
            offset = Int64(zone.secondsFromGMT(for: date))
            // Up to the start of the first hour that starts at or after the transition.
            offsetFrom = hourStart
            offsetUntil = zone.nextDaylightSavingTimeTransition(after: date).map {
                (Self.hour(of: Int64($0.timeIntervalSince1970.rounded(.up)) - 1) + 1) * 3600
            } ?? .max
            if offsetUntil <= offsetFrom { offsetUntil = offsetFrom + 3600 }
        }
        let local = instant + offset
        return key(local: local)
    }

    private static func hour(of instant: Int64) -> Int64 { instant >= 0 ? instant / 3600 : (instant - 3599) / 3600 }

    /// Whether the offset of the last instant keyed is a whole number of hours, so that a UTC hour
    /// falls in one bucket (every zone but a few: India +5:30, Nepal +5:45, Newfoundland -3:30…).
    var offsetIsWholeHours: Bool { offset % 3600 == 0 }

    /// The key of the bucket holding a local date (days since 1970): a night's, by its evening.
    func key(localDay day: Int64) -> Int64 { key(local: day * 86_400) }

    /// The local instant of `instant` (its offset looked up as `key` does).
    mutating func local(_ instant: Int64) -> Int64 {
        _ = key(instant)
        return instant + offset
    }

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
