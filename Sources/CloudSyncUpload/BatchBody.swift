import CloudSyncExport
import CloudSyncModel
import CloudSyncStore
import Crypto
import Foundation
import NIOCore

/// The request bodies of the three contracts, built from pending metrics.
enum BatchBody {
    /// A CloudCare `HealthDataExport` envelope. The metrics' JSON is assembled from stored parts so
    /// that it is byte for byte what `convert` writes.
    static func cloudCare(_ batch: [PendingMetric], identity: CloudCareIdentity, range: PendingSummary) -> NIOCore.ByteBuffer {
        var out = CloudSyncModel.ByteBuffer(capacity: batch.count * 300 + 512)
        out.append("{\"userId\":")
        appendString(identity.userId, to: &out)
        out.append(",\"deviceId\":")
        appendString(identity.deviceId, to: &out)
        out.append(",\"exportTimestamp\":\"")
        out.append(UTCDateFormatter.string(Int64(Date().timeIntervalSince1970)))
        out.append("\",\"dataRange\":{\"startDate\":\"")
        out.append(UTCDateFormatter.string(range.firstStart ?? 0))
        out.append("\",\"endDate\":\"")
        out.append(UTCDateFormatter.string(range.lastEnd ?? 0))
        out.append("\"},\"metrics\":[")
        var metric = MappedMetric()
        for (i, pending) in batch.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            withMapped(pending, &metric) { MetricJSON.append($0, to: &out) }
        }
        out.append("]}")
        return requestBody(out)
    }

    /// Flō samples: `{"samples":[{dataType, deviceManufacturer, deviceModel, deviceName, endDate,
    /// metadata, sourceBundleId, sourceName, startDate, unit, uuid, value}]}`, the keys sorted. The
    /// stored metadata object goes in as it is (it is JSON already), not parsed and encoded again.
    static func flo(_ batch: [PendingMetric]) -> NIOCore.ByteBuffer {
        var out = CloudSyncModel.ByteBuffer(capacity: batch.count * 400 + 16)
        out.append("{\"samples\":[")
        for (i, metric) in batch.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            let isApple = metric.device.hasPrefix("Apple") || metric.device.hasPrefix("iPhone") || metric.device.hasPrefix("iPad")
            out.append("{\"dataType\":")
            appendString(metric.type, to: &out)
            out.append(isApple ? ",\"deviceManufacturer\":\"Apple Inc.\",\"deviceModel\":" : ",\"deviceManufacturer\":null,\"deviceModel\":")
            appendString(metric.device, to: &out)
            out.append(",\"deviceName\":")
            appendString(metric.device, to: &out)
            out.append(",\"endDate\":")
            appendString(isoMilliseconds(metric.endDate), to: &out)
            out.append(",\"metadata\":")
            out.append(metric.metadataJSON.first == "{" ? metric.metadataJSON : "{}")
            out.append(",\"sourceBundleId\":null,\"sourceName\":")
            appendString(metric.sourceApp, to: &out)
            out.append(",\"startDate\":")
            appendString(isoMilliseconds(metric.startDate), to: &out)
            out.append(",\"unit\":")
            appendString(metric.unit, to: &out)
            out.append(",\"uuid\":\"")
            out.append(stableUUID(metric))
            out.append("\",\"value\":")
            NumberFormatting.append(metric.value, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append("]}")
        return requestBody(out)
    }

    /// HealthStepsSync samples: `{"samples":[{count, endDate, sourceBundleId, sourceDeviceName,
    /// startDate, uuid}]}`, the keys sorted.
    static func steps(_ batch: [PendingMetric]) -> NIOCore.ByteBuffer {
        var out = CloudSyncModel.ByteBuffer(capacity: batch.count * 220 + 16)
        out.append("{\"samples\":[")
        for (i, metric) in batch.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append("{\"count\":")
            out.appendInteger(Int64(metric.value.rounded()))
            out.append(",\"endDate\":")
            appendString(isoMilliseconds(metric.endDate), to: &out)
            out.append(",\"sourceBundleId\":")
            appendString(metric.sourceApp, to: &out)
            out.append(",\"sourceDeviceName\":")
            appendString(metric.device, to: &out)
            out.append(",\"startDate\":")
            appendString(isoMilliseconds(metric.startDate), to: &out)
            out.append(",\"uuid\":\"")
            out.append(stableUUID(metric))
            out.append("\"}")
        }
        out.append("]}")
        return requestBody(out)
    }

    /// The built JSON, copied once into the buffer the request sends.
    private static func requestBody(_ out: borrowing CloudSyncModel.ByteBuffer) -> NIOCore.ByteBuffer {
        out.withBytes { bytes in
            var body = ByteBufferAllocator().buffer(capacity: bytes.count)
            body.writeBytes(UnsafeRawBufferPointer(bytes))
            return body
        }
    }

    /// A JSON string literal of `text`, escaped.
    private static func appendString(_ text: String, to out: inout CloudSyncModel.ByteBuffer) {
        var text = text
        text.withUTF8 { out.appendJSONString($0) }
    }

    /// A UUID that is the same on every run for the same metric: version 5 (SHA-1, RFC 4122) of
    /// the metric's identity `(type, startDate, endDate, sourceApp, value, unit)` and, for a category
    /// sample, its category value, so a server that deduplicates by uuid absorbs a batch sent twice
    /// but keeps an InBed and an Asleep sample of the same span apart.
    static func stableUUID(_ metric: PendingMetric) -> String {
        var name = "\(metric.type)|\(metric.startDate)|\(metric.endDate)|\(metric.sourceApp)|\(metric.value.bitPattern)|\(metric.unit)"
        if let category = metric.category { name += "|\(category)" }
        var hasher = Insecure.SHA1()
        hasher.update(data: namespace)
        hasher.update(data: Data(name.utf8))
        var bytes = Array(hasher.finalize().prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])).uuidString
    }

    /// The namespace of CloudSync's metric UUIDs (a fixed random UUID). An array, not `Data`:
    /// LeakSanitizer cannot see the spare-bit-tagged pointer of a global `Data` and calls it a leak.
    private static let namespace: [UInt8] = [0x6f, 0x0b, 0x7a, 0x1e, 0x43, 0x52, 0x4c, 0x8e, 0x9d, 0x21, 0x5a, 0x3f, 0xc4, 0x77, 0x10, 0x2b]

    static func isoMilliseconds(_ seconds: Int64) -> String {
        String(UTCDateFormatter.string(seconds).dropLast()) + ".000Z"
    }

    private static func withMapped(_ pending: PendingMetric, _ metric: inout MappedMetric, _ body: (MappedMetric) -> Void) {
        var type = pending.type, unit = pending.unit, source = pending.sourceApp, metadata = pending.metadataJSON
        type.withUTF8 { typeBytes in
            unit.withUTF8 { unitBytes in
                source.withUTF8 { sourceBytes in
                    metadata.withUTF8 { metadataBytes in
                        metric.type = typeBytes
                        metric.unit = unitBytes
                        metric.sourceApp = sourceBytes
                        metric.metadataJSON = metadataBytes
                        metric.startDate = pending.startDate
                        metric.endDate = pending.endDate
                        metric.value = pending.value
                        metric.valueText = nil
                        body(metric)
                    }
                }
            }
        }
    }
}
