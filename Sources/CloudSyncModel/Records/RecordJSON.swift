/// JSON of routes and ECGs, written from bytes into a reused buffer (no encoder per record).
public enum RecordJSON {
    /// One line per point: `{"workoutType","workoutStart","file","time","latitude","longitude",
    /// "elevation","speed","course","horizontalAccuracy","verticalAccuracy"}`.
    public static func appendPointLines(_ route: Route, to out: inout ByteBuffer) {
        for point in route.points {
            out.append("{\"workoutType\":")
            appendString(route.workoutType, to: &out)
            out.append(",\"workoutStart\":")
            appendDate(route.workoutStart, to: &out)
            out.append(",\"file\":")
            appendString(route.file, to: &out)
            out.append(",\"time\":")
            appendDate(point.time, to: &out)
            out.append(",\"latitude\":")
            NumberFormatting.append(point.latitude, to: &out)
            out.append(",\"longitude\":")
            NumberFormatting.append(point.longitude, to: &out)
            out.append(",\"elevation\":")
            appendNumber(point.elevation, to: &out)
            out.append(",\"speed\":")
            appendNumber(point.speed, to: &out)
            out.append(",\"course\":")
            appendNumber(point.course, to: &out)
            out.append(",\"horizontalAccuracy\":")
            appendNumber(point.horizontalAccuracy, to: &out)
            out.append(",\"verticalAccuracy\":")
            appendNumber(point.verticalAccuracy, to: &out)
            out.append("}\n")
        }
    }

    /// One GeoJSON `Feature` (RFC 7946): a `LineString` of `[longitude, latitude, elevation]`
    /// (a `Point` for a route of one point), with the workout and the file as properties.
    public static func appendFeature(_ route: Route, to out: inout ByteBuffer) {
        out.append("{\"type\":\"Feature\",\"geometry\":{\"type\":")
        out.append(route.points.count == 1 ? "\"Point\",\"coordinates\":" : "\"LineString\",\"coordinates\":[")
        for (i, point) in route.points.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "["))
            NumberFormatting.append(point.longitude, to: &out)
            out.append(UInt8(ascii: ","))
            NumberFormatting.append(point.latitude, to: &out)
            if let elevation = point.elevation {
                out.append(UInt8(ascii: ","))
                NumberFormatting.append(elevation, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        if route.points.count != 1 { out.append(UInt8(ascii: "]")) }
        out.append("},\"properties\":{\"workoutType\":")
        appendString(route.workoutType, to: &out)
        out.append(",\"workoutStart\":")
        appendDate(route.workoutStart, to: &out)
        out.append(",\"workoutEnd\":")
        appendDate(route.workoutEnd, to: &out)
        out.append(",\"start\":")
        appendDate(route.points.first?.time, to: &out)
        out.append(",\"end\":")
        appendDate(route.points.last?.time, to: &out)
        out.append(",\"file\":")
        appendString(route.file, to: &out)
        out.append(",\"points\":")
        out.appendInteger(Int64(route.points.count))
        out.append("}}")
    }

    /// One recording per line: `{"recordedAt","classification","symptoms","sampleRateHz","lead",
    /// "unit","device","softwareVersion","file","samples":[…]}`.
    public static func appendLine(_ ecg: ECGRecording, to out: inout ByteBuffer) {
        out.append("{\"recordedAt\":")
        appendDate(ecg.recordedAt, to: &out)
        out.append(",\"classification\":")
        appendString(ecg.classification, to: &out)
        out.append(",\"symptoms\":")
        appendString(ecg.symptoms, to: &out)
        out.append(",\"sampleRateHz\":")
        appendNumber(ecg.sampleRateHz, to: &out)
        out.append(",\"lead\":")
        appendString(ecg.lead, to: &out)
        out.append(",\"unit\":")
        appendString(ecg.unit, to: &out)
        out.append(",\"device\":")
        appendString(ecg.device, to: &out)
        out.append(",\"softwareVersion\":")
        appendString(ecg.softwareVersion, to: &out)
        out.append(",\"file\":")
        appendString(ecg.file, to: &out)
        out.append(",\"samples\":[")
        for (i, sample) in ecg.samples.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            NumberFormatting.append(sample, to: &out)
        }
        out.append("]}\n")
    }

    static func appendString(_ text: String?, to out: inout ByteBuffer) {
        guard var text else { out.append("null"); return }
        text.withUTF8 { out.appendJSONString($0) }
    }

    static func appendDate(_ seconds: Int64?, to out: inout ByteBuffer) {
        guard let seconds else { out.append("null"); return }
        out.append(UInt8(ascii: "\""))
        out.appendInPlace(UTCDateFormatter.byteCount) { UTCDateFormatter.write(seconds, to: $0) }
        out.append(UInt8(ascii: "\""))
    }

    static func appendNumber(_ value: Double?, to out: inout ByteBuffer) {
        guard let value, value.isFinite else { out.append("null"); return }
        NumberFormatting.append(value, to: &out)
    }
}

/// Routes, ECGs, beat series, correlations and clinical records as JSON Lines (`convert --kind
/// routes|ecg|beats|correlations|clinical`): a route gives one line per point, the others one line each.
public final class RecordLinesSink: RecordSink {
    private let output: OutputFile
    public init(output: OutputFile) { self.output = output }
    public func write(_ route: Route) throws {
        RecordJSON.appendPointLines(route, to: &output.buffer)
        try output.flushIfFull()
    }
    public func write(_ ecg: ECGRecording) throws {
        RecordJSON.appendLine(ecg, to: &output.buffer)
        try output.flushIfFull()
    }
    public func write(_ series: BeatSeries) throws {
        RecordJSON.appendLine(series, to: &output.buffer)
        try output.flushIfFull()
    }
    public func write(_ correlation: CorrelationRecord) throws {
        RecordJSON.appendLine(correlation, to: &output.buffer)
        try output.flushIfFull()
    }
    public func write(_ clinical: ClinicalResource) throws {
        RecordJSON.appendLine(clinical, to: &output.buffer)
        try output.flushIfFull()
    }
    public func finish() throws { try output.finish() }
}

/// Routes as one GeoJSON `FeatureCollection`, written feature by feature (flat memory).
public final class GeoJSONSink: RecordSink {
    private let output: OutputFile
    private var features = 0
    public init(output: OutputFile) {
        self.output = output
        output.buffer.append("{\"type\":\"FeatureCollection\",\"features\":[")
    }
    public func write(_ route: Route) throws {
        guard !route.points.isEmpty else { return }
        output.buffer.append(features == 0 ? "\n" : ",\n")
        RecordJSON.appendFeature(route, to: &output.buffer)
        features += 1
        try output.flushIfFull()
    }
    public func finish() throws {
        output.buffer.append("\n]}\n")
        try output.finish()
    }
}
