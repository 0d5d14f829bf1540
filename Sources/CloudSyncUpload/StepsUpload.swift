package import CloudSyncModel
package import CloudSyncStore
import Foundation

/// HealthStepsSync's mock API: the step counts as samples to `{base}/steps`. It takes no token;
/// one is sent when given (a server like `serve` with a token wants it on every route).
package enum StepsUpload: UploadContract {
    /// `200 {"saved":N,"message":"Success"}`.
    package struct Reply: Decodable, Sendable {
        package var saved: Int
    }

    package static let displayName = "steps API"
    package static var acceptedTypes: Set<String>? { ["stepCount"] }
    package static let batchPath = "/steps"
    package static let wantsToken = false

    /// `{"samples":[{count, endDate, sourceBundleId, sourceDeviceName, startDate, uuid}]}`, the keys
    /// sorted, dates with milliseconds, `count` an integer.
    package static func appendBody(_ batch: PendingBatch, _ context: BatchContext, to out: inout ByteBuffer) {
        out.append("{\"samples\":[")
        var first = true
        batch.forEach { metric in
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append("{\"count\":")
            out.appendInteger(Int64(metric.value.rounded()))
            out.append(",\"endDate\":\"")
            UTCDateFormatter.appendMilliseconds(metric.endDate * 1000, to: &out)
            out.append("\",\"sourceBundleId\":")
            out.appendJSONString(metric.sourceApp)
            out.append(",\"sourceDeviceName\":")
            out.appendJSONString(metric.device)
            out.append(",\"startDate\":\"")
            UTCDateFormatter.appendMilliseconds(metric.startDate * 1000, to: &out)
            out.append("\",\"uuid\":\"")
            metric.appendStableUUID(to: &out)
            out.append("\"}")
        }
        out.append("]}")
    }

    package static func receipt(_ reply: Reply, for batch: PendingBatch) -> BatchReceipt {
        BatchReceipt(stored: reply.saved)
    }
}
