/// Writes one HealthMetric object, the seven keys in the spec's order:
/// `{"type","startDate","endDate","value","unit","sourceApp","metadata"}`.
public enum MetricJSON {
    public static func append(_ metric: MappedMetric, to out: inout ByteBuffer) {
        out.append("{\"type\":")
        out.appendJSONString(metric.type)
        out.append(",\"startDate\":\"")
        out.appendInPlace(UTCDateFormatter.byteCount) { UTCDateFormatter.write(metric.startDate, to: $0) }
        out.append("\",\"endDate\":\"")
        out.appendInPlace(UTCDateFormatter.byteCount) { UTCDateFormatter.write(metric.endDate, to: $0) }
        out.append("\",\"value\":")
        if let text = metric.valueText {
            out.append(text)
        } else {
            NumberFormatting.append(metric.value, to: &out)
        }
        out.append(",\"unit\":")
        out.appendJSONString(metric.unit)
        out.append(",\"sourceApp\":")
        out.appendJSONString(metric.sourceApp)
        out.append(",\"metadata\":")
        if let encoded = metric.metadataJSON {
            out.append(encoded)
        } else {
            appendMetadata(metric, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The metadata object alone: `{"device":"Apple Watch",…}`.
    public static func appendMetadata(_ metric: MappedMetric, to out: inout ByteBuffer) {
        out.append(UInt8(ascii: "{"))
        appendMembers(metric.metadata[...], to: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// Object members without the braces: `"k":"v","k2":"v2"`.
    public static func appendMembers(_ entries: ArraySlice<(key: ByteText, value: ByteText)>, to out: inout ByteBuffer) {
        var first = true
        for entry in entries {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.appendJSONString(entry.key)
            out.append(UInt8(ascii: ":"))
            out.appendJSONString(entry.value)
        }
    }
}
