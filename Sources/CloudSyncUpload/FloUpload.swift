package import CloudSyncModel
package import CloudSyncStore
import Foundation
import NIOCore
import NIOHTTP1

/// Flō's historical backfill: the server's sync-status says where the window starts; samples go in
/// batches to `{base}/api/healthkit/samples`; a backfill whose every batch succeeded is marked complete.
package enum FloUpload: UploadContract {
    /// `{"inserted","duplicates","total"}`.
    package struct Reply: Decodable, Sendable {
        package var inserted: Int
        package var duplicates: Int?
        package var total: Int?
    }

    /// `GET /api/healthkit/sync-status`.
    struct SyncStatus: Decodable {
        var needsHistoricalSync: Bool?
        var recommendedStartDate: String?
    }

    /// `POST /api/healthkit/mark-backfill-complete` → `{"success","backfillDate"}`.
    struct Marked: Decodable {
        var success: Bool?
        var backfillDate: String?
    }

    package static let displayName = "Flō"
    package static var acceptedTypes: Set<String>? { nil }
    package static let batchPath = "/api/healthkit/samples"

    /// `{"samples":[{dataType, deviceManufacturer, deviceModel, deviceName, endDate, metadata,
    /// sourceBundleId, sourceName, startDate, unit, uuid, value}]}`, the keys sorted. The stored
    /// metadata object goes in as it is (it is JSON already).
    package static func appendBody(_ batch: PendingBatch, _ context: BatchContext, to out: inout CloudSyncModel.ByteBuffer) {
        out.append("{\"samples\":[")
        var first = true
        batch.forEach { metric in
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            let device = metric.device
            let isApple = device.hasPrefix("Apple") || device.hasPrefix("iPhone") || device.hasPrefix("iPad")
            out.append("{\"dataType\":")
            out.appendJSONString(metric.type)
            out.append(isApple ? ",\"deviceManufacturer\":\"Apple Inc.\",\"deviceModel\":" : ",\"deviceManufacturer\":null,\"deviceModel\":")
            out.appendJSONString(device)
            out.append(",\"deviceName\":")
            out.appendJSONString(device)
            out.append(",\"endDate\":\"")
            UTCDateFormatter.appendMilliseconds(metric.endDate * 1000, to: &out)
            out.append("\",\"metadata\":")
            let metadata = metric.metadataJSON ?? .empty
            if metadata.first == UInt8(ascii: "{") { out.append(metadata) } else { out.append("{}") }
            out.append(",\"sourceBundleId\":null,\"sourceName\":")
            out.appendJSONString(metric.sourceApp)
            out.append(",\"startDate\":\"")
            UTCDateFormatter.appendMilliseconds(metric.startDate * 1000, to: &out)
            out.append("\",\"unit\":")
            out.appendJSONString(metric.unit)
            out.append(",\"uuid\":\"")
            metric.appendStableUUID(to: &out)
            out.append("\",\"value\":")
            NumberFormatting.append(metric.value, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append("]}")
    }

    package static func receipt(_ reply: Reply, for batch: PendingBatch) -> BatchReceipt {
        BatchReceipt(stored: reply.inserted, duplicates: reply.duplicates ?? 0)
    }

    /// The window starts at the server's recommended date: a backfill sends everything from there;
    /// later runs send, inside the same window, what this server has not acknowledged yet. A dry run
    /// asks no server and uses the window an earlier upload recorded.
    package static func window(recorded: String?, transport: HTTPTransport?) async throws -> UploadWindow {
        guard let transport else { return UploadWindow(start: recorded, unknown: recorded == nil) }
        let status = try await transport.send(.GET, "/api/healthkit/sync-status", body: nil, what: "the sync-status request",
                                              decoding: SyncStatus.self)
        let start = status.recommendedStartDate ?? recorded
        return UploadWindow(start: start, isBackfill: status.needsHistoricalSync == true && start != nil)
    }

    /// Marks the backfill complete, only now that every batch of it succeeded.
    package static func afterBatches(_ window: UploadWindow, sent: SentSummary, transport: HTTPTransport) async throws -> String? {
        guard window.isBackfill, let start = window.start else { return nil }
        var body = CloudSyncModel.ByteBuffer(capacity: 256)
        body.append("{\"sampleCount\":")
        body.appendInteger(Int64(sent.acknowledged))
        body.append(",\"startDate\":")
        RecordJSON.appendString(start, to: &body)
        body.append(",\"endDate\":\"")
        UTCDateFormatter.appendMilliseconds((sent.lastEnd ?? Int64(Date().timeIntervalSince1970)) * 1000, to: &body)
        body.append("\"}")
        let marked = try await transport.send(.POST, "/api/healthkit/mark-backfill-complete", body: HTTPTransport.requestBody(body),
                                              what: "mark-backfill-complete", decoding: Marked.self)
        return marked.backfillDate
    }
}
