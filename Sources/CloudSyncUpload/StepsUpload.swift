import CloudSyncModel
import CloudSyncStore
import Foundation

/// HealthStepsSync's mock API: the step counts as samples to `{base}/steps`. It takes no token;
/// one is sent when given (a server like `serve` with a token wants it on every route).
public enum StepsUpload: UploadContract {
    /// `200 {"saved":N,"message":"Success"}`.
    public struct Reply: Decodable, Sendable {
        public var saved: Int
    }

    public static let displayName = "steps API"
    public static var acceptedTypes: Set<String>? { ["stepCount"] }
    public static let batchPath = "/steps"
    public static let wantsToken = false

    /// `{"samples":[{count, endDate, sourceBundleId, sourceDeviceName, startDate, uuid}]}`, the keys
    /// sorted, dates with milliseconds, `count` an integer.
    public static func appendBody(_ batch: [PendingMetric], _ context: BatchContext, to out: inout ByteBuffer) {
        out.append("{\"samples\":[")
        for (i, metric) in batch.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append("{\"count\":")
            out.appendInteger(Int64(metric.value.rounded()))
            out.append(",\"endDate\":\"")
            UTCDateFormatter.appendMilliseconds(metric.endDate * 1000, to: &out)
            out.append("\",\"sourceBundleId\":")
            RecordJSON.appendString(metric.sourceApp, to: &out)
            out.append(",\"sourceDeviceName\":")
            RecordJSON.appendString(metric.device, to: &out)
            out.append(",\"startDate\":\"")
            UTCDateFormatter.appendMilliseconds(metric.startDate * 1000, to: &out)
            out.append("\",\"uuid\":\"")
            out.append(metric.stableUUID)
            out.append("\"}")
        }
        out.append("]}")
    }

    public static func receipt(_ reply: Reply, for batch: [PendingMetric]) -> BatchReceipt {
        BatchReceipt(stored: reply.saved)
    }
}
