/// One beat of an HRV record's beat-to-beat list: when (milliseconds since 1970, UTC) and the
/// instantaneous heart rate.
public struct Beat: Sendable, Equatable {
    public var time: Int64
    public var bpm: Int

    public init(time: Int64, bpm: Int) {
        self.time = time
        self.bpm = bpm
    }
}

/// The beat-to-beat series of one HRV record (`HeartRateVariabilityMetadataList`).
public struct BeatSeries: Sendable, Equatable {
    public var type: String
    public var startDate: Int64
    public var endDate: Int64
    public var sourceApp: String
    /// The record's HRV value, in ms.
    public var value: Double?
    public var beats: [Beat]

    public init(type: String, startDate: Int64, endDate: Int64, sourceApp: String, value: Double?, beats: [Beat]) {
        self.type = type
        self.startDate = startDate
        self.endDate = endDate
        self.sourceApp = sourceApp
        self.value = value
        self.beats = beats
    }
}

/// The beat-series kind: the beat-to-beat list of each HRV record. JSON Lines: one series per line;
/// CSV: one row per beat, the series' fields on each.
public enum BeatSeriesKind: RecordKind {
    public typealias Record = BeatSeries
    public static let name = "beats"
    public static let noun = Noun("beat series", "beat series")
    public static let part: Noun? = Noun("beat")
    public static func parts(of series: BeatSeries) -> Int { series.beats.count }
    public static func date(of series: BeatSeries) -> Int64? { series.startDate }

    /// `{"type","startDate","endDate","sourceApp","value","beats":[{"time","bpm"}]}`, the beat times
    /// in UTC with milliseconds.
    public static func appendJSONLines(_ series: BeatSeries, to out: inout ByteBuffer) {
        out.append("{\"type\":")
        RecordJSON.appendString(series.type, to: &out)
        out.append(",\"startDate\":")
        RecordJSON.appendDate(series.startDate, to: &out)
        out.append(",\"endDate\":")
        RecordJSON.appendDate(series.endDate, to: &out)
        out.append(",\"sourceApp\":")
        RecordJSON.appendString(series.sourceApp, to: &out)
        out.append(",\"value\":")
        RecordJSON.appendNumber(series.value, to: &out)
        out.append(",\"beats\":[")
        for (i, beat) in series.beats.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append("{\"time\":\"")
            UTCDateFormatter.appendMilliseconds(beat.time, to: &out)
            out.append("\",\"bpm\":")
            out.appendInteger(Int64(beat.bpm))
            out.append(UInt8(ascii: "}"))
        }
        out.append("]}\n")
    }

    /// `value` is the record's HRV (ms); `time` and `bpm` the beat's.
    public static let csvColumns = ["type", "startDate", "endDate", "sourceApp", "value", "time", "bpm"]

    public static func appendCSVRows(_ series: BeatSeries, to out: inout ByteBuffer) {
        for beat in series.beats {
            out.appendCSVCell(series.type, first: true)
            out.appendCSVCell(date: series.startDate)
            out.appendCSVCell(date: series.endDate)
            out.appendCSVCell(series.sourceApp)
            out.appendCSVCell(series.value)
            out.append(UInt8(ascii: ","))
            UTCDateFormatter.appendMilliseconds(beat.time, to: &out)
            out.appendCSVCell(Int64(beat.bpm))
            out.endCSVRow()
        }
    }
}
