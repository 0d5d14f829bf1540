/// A series of samples kept with what it belongs to: a workout's minute-by-minute heart rate, its
/// heart rate recovery, energy, steps and distances (Health Auto Export's workout series), or the
/// heart rates of a heart-rate notification. In a summarised file (the app's default) they exist
/// nowhere else: the day's heart rate is one Min/Avg/Max point. The store keeps a series unless the
/// same samples are in it (docs/mapping.md, "Workout series").
public struct SampleSeries: Sendable, Equatable {
    /// One sample: its moment, its value (`Avg` for a heart rate), and its range when it is a bucket.
    public struct Point: Sendable, Equatable {
        public var time: Int64
        public var value: Double
        public var minimum: Double?
        public var maximum: Double?
        public init(time: Int64, value: Double, minimum: Double? = nil, maximum: Double? = nil) {
            self.time = time
            self.value = value
            self.minimum = minimum
            self.maximum = maximum
        }
    }

    /// `workout` or `heartRateNotification`.
    public var owner: String
    /// The workout's activity type (`running`), the notification's kind (`high_heart_rate_notification`).
    public var ownerName: String?
    /// The owner's span, seconds since 1970 UTC.
    public var ownerStart: Int64
    public var ownerEnd: Int64
    /// The series' name as the app writes it (`heartRateData`, `heartRateRecovery`, `stepCount`).
    public var name: String
    /// The HealthKit type of its samples (`HKQuantityTypeIdentifierHeartRate`), nil when not known.
    public var type: String?
    /// The unit of the values: canonical where the unit table knows the written one.
    public var unit: String?
    public var source: String?
    public var points: [Point]

    public init(owner: String, ownerName: String?, ownerStart: Int64, ownerEnd: Int64, name: String, type: String?, unit: String?,
                source: String?, points: [Point]) {
        self.owner = owner
        self.ownerName = ownerName
        self.ownerStart = ownerStart
        self.ownerEnd = ownerEnd
        self.name = name
        self.type = type
        self.unit = unit
        self.source = source
        self.points = points
    }

    /// The owner and the series: a workout has one series of each name.
    public var key: String { "\(owner)|\(ownerStart)|\(ownerEnd)|\(name)" }
}

/// The sample-series kind. JSON Lines: one series per line, its points in an array; CSV: one row per
/// point, the series' own fields repeated on each.
public enum SampleSeriesKind: RecordKind {
    public typealias Record = SampleSeries
    public static let name = "series"
    public static let noun = Noun("sample series", "sample series")
    public static let part: Noun? = Noun("point")
    public static func parts(of series: SampleSeries) -> Int { series.points.count }
    public static func date(of series: SampleSeries) -> Int64? { series.ownerStart }

    /// `{"owner","ownerName","ownerStart","ownerEnd","name","type","unit","source","points":[{"time","value","minimum","maximum"}]}`;
    /// a point's `minimum` and `maximum` only when it has them.
    public static func appendJSONLines(_ series: SampleSeries, to out: inout ByteBuffer) {
        out.append("{\"owner\":")
        RecordJSON.appendString(series.owner, to: &out)
        out.append(",\"ownerName\":")
        RecordJSON.appendString(series.ownerName, to: &out)
        out.append(",\"ownerStart\":")
        RecordJSON.appendDate(series.ownerStart, to: &out)
        out.append(",\"ownerEnd\":")
        RecordJSON.appendDate(series.ownerEnd, to: &out)
        out.append(",\"name\":")
        RecordJSON.appendString(series.name, to: &out)
        out.append(",\"type\":")
        RecordJSON.appendString(series.type, to: &out)
        out.append(",\"unit\":")
        RecordJSON.appendString(series.unit, to: &out)
        out.append(",\"source\":")
        RecordJSON.appendString(series.source, to: &out)
        out.append(",\"points\":[")
        for (i, point) in series.points.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append("{\"time\":")
            RecordJSON.appendDate(point.time, to: &out)
            out.append(",\"value\":")
            RecordJSON.appendNumber(point.value, to: &out)
            if let minimum = point.minimum {
                out.append(",\"minimum\":")
                RecordJSON.appendNumber(minimum, to: &out)
            }
            if let maximum = point.maximum {
                out.append(",\"maximum\":")
                RecordJSON.appendNumber(maximum, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append("]}\n")
    }

    public static let csvColumns = ["owner", "ownerName", "ownerStart", "ownerEnd", "name", "type", "unit", "source", "time", "value",
                                    "minimum", "maximum"]

    public static func appendCSVRows(_ series: SampleSeries, to out: inout ByteBuffer) {
        var head = ByteBuffer(capacity: 256)
        head.appendCSVCell(series.owner, first: true)
        head.appendCSVCell(series.ownerName)
        head.appendCSVCell(date: series.ownerStart)
        head.appendCSVCell(date: series.ownerEnd)
        for text in [series.name, series.type, series.unit, series.source] { head.appendCSVCell(text) }
        for point in series.points {
            head.withBytes { out.append($0) }
            out.appendCSVCell(date: point.time)
            out.appendCSVCell(point.value)
            out.appendCSVCell(point.minimum)
            out.appendCSVCell(point.maximum)
            out.endCSVRow()
        }
    }
}
