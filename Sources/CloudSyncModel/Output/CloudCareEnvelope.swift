public import Foundation

/// The one writer of a CloudCare `HealthDataExport` envelope's frame, for `convert --format
/// cloudcare` and for `upload`: `{"userId","deviceId","exportTimestamp","dataRange":{…},"metrics":[`
/// … `]}`, the ids escaped as every JSON string is.
public enum CloudCareEnvelope {
    /// Everything before the first metric. `range` is the whole set's first start and last end
    /// (every envelope of one conversion or upload shares it); nil when there is no metric.
    public static func appendHead(identity: CloudCareIdentity, range: (first: Int64, last: Int64)?,
                                  exportTimestamp: Int64 = Int64(Date().timeIntervalSince1970), to out: inout ByteBuffer) {
        out.append("{\"userId\":")
        RecordJSON.appendString(identity.userId, to: &out)
        out.append(",\"deviceId\":")
        RecordJSON.appendString(identity.deviceId, to: &out)
        out.append(",\"exportTimestamp\":")
        RecordJSON.appendDate(exportTimestamp, to: &out)
        out.append(",\"dataRange\":{\"startDate\":")
        RecordJSON.appendDate(range?.first ?? 0, to: &out)
        out.append(",\"endDate\":")
        RecordJSON.appendDate(range?.last ?? 0, to: &out)
        out.append("},\"metrics\":[")
    }

    /// After the last metric.
    public static func appendTail(to out: inout ByteBuffer) { out.append("]}") }
}
