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

extension RecordJSON {
    /// `{"type","startDate","endDate","sourceApp","value","beats":[{"time","bpm"}]}`, the beat times
    /// in UTC with milliseconds.
    public static func appendLine(_ series: BeatSeries, to out: inout ByteBuffer) {
        out.append("{\"type\":")
        appendString(series.type, to: &out)
        out.append(",\"startDate\":")
        appendDate(series.startDate, to: &out)
        out.append(",\"endDate\":")
        appendDate(series.endDate, to: &out)
        out.append(",\"sourceApp\":")
        appendString(series.sourceApp, to: &out)
        out.append(",\"value\":")
        appendNumber(series.value, to: &out)
        out.append(",\"beats\":[")
        for (i, beat) in series.beats.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append("{\"time\":\"")
            appendMilliseconds(beat.time, to: &out)
            out.append("\",\"bpm\":")
            out.appendInteger(Int64(beat.bpm))
            out.append(UInt8(ascii: "}"))
        }
        out.append("]}\n")
    }

    /// `2023-05-13T05:20:37.800Z`.
    static func appendMilliseconds(_ milliseconds: Int64, to out: inout ByteBuffer) {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let fraction = milliseconds - seconds * 1000
        out.appendInPlace(UTCDateFormatter.byteCount - 1) { pointer in
            // The 20-byte form without its `Z`, then the fraction.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: UTCDateFormatter.byteCount) { full in
                UTCDateFormatter.write(seconds, to: full.baseAddress!)
                pointer.update(from: full.baseAddress!, count: UTCDateFormatter.byteCount - 1)
            }
        }
        out.append(UInt8(ascii: "."))
        out.append(UInt8(48 + fraction / 100))
        out.append(UInt8(48 + fraction / 10 % 10))
        out.append(UInt8(48 + fraction % 10))
        out.append(UInt8(ascii: "Z"))
    }
}
