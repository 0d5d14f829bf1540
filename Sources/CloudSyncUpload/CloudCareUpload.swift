package import CloudSyncModel
package import CloudSyncStore
import Foundation

/// CloudCare: one `HealthDataExport` envelope per batch to `{base}/wearables/import/apple-health`,
/// written by the same envelope writer as `convert --format cloudcare`, the metrics byte for byte
/// what `convert` writes. The backend keeps only the types it knows, and says so only in its count.
package enum CloudCareUpload: UploadContract {
    /// `201 {"message","device_id","device_type","total_metrics","stored_count","duplicate_count","error_count","was_duplicate"}`.
    package struct Reply: Decodable, Sendable {
        package var totalMetrics: Int
        package var storedCount: Int?
        package var duplicateCount: Int?

        enum CodingKeys: String, CodingKey {
            case totalMetrics = "total_metrics", storedCount = "stored_count", duplicateCount = "duplicate_count"
        }
    }

    package static let displayName = "CloudCare"
    package static var acceptedTypes: Set<String>? { CloudCareContract.takenTypes }
    package static let takesEveryTypeOnRequest = true
    package static let batchPath = "/wearables/import/apple-health"

    package static func appendBody(_ batch: PendingBatch, _ context: BatchContext, to out: inout ByteBuffer) {
        let range = context.range.firstStart.map { ($0, context.range.lastEnd ?? $0) }
        CloudCareEnvelope.appendHead(identity: context.identity, range: range, to: &out)
        var first = true
        batch.forEach { metric in
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            MetricJSON.append(metric, to: &out)
        }
        CloudCareEnvelope.appendTail(to: &out)
    }

    /// `total_metrics` counts only the metrics of types CloudCare knows. The shortfall is put on the
    /// batch's types it does not take when they account for it exactly; otherwise it is recorded as
    /// not said by the server.
    package static func receipt(_ reply: Reply, for batch: PendingBatch) -> BatchReceipt {
        var receipt = BatchReceipt(stored: reply.storedCount ?? 0, duplicates: reply.duplicateCount ?? 0)
        guard reply.totalMetrics < batch.count else { return receipt }
        let byType = batch.countByType().filter { !CloudCareContract.takes($0.key) }
        let missing = batch.count - reply.totalMetrics
        receipt.notTaken = byType.values.reduce(0, +) == missing ? byType : [Uploader.unexplained: missing]
        return receipt
    }

    /// 403 is CloudCare's "device not paired", not a refused token. A 404 is its "paired patient
    /// missing" only when CloudCare says so (a JSON `detail` other than FastAPI's own "Not Found");
    /// any other 404 (an empty body, a web server's page) is a wrong URL: no such endpoint.
    package static func failure(status: Int, said: ServerSaid, url: String) -> UploadError? {
        switch status {
        case 403: return .notPaired(said.words)
        case 404 where said.isJSONDetail && said.words != "Not Found":
            return .rejected(status, said.words, what: "the batch (its paired patient is missing)")
        default: return nil
        }
    }
}
