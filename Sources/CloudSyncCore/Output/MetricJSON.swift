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
        out.append(",\"metadata\":{")
        for (i, entry) in metric.metadata.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.appendJSONString(entry.key)
            out.append(UInt8(ascii: ":"))
            out.appendJSONString(entry.value)
        }
        out.append("}}")
    }
}
