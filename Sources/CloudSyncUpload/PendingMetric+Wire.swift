import CloudSyncModel
import CloudSyncStore
import Crypto
import Foundation

/// What the contracts' body writers need of a pending metric beyond its stored columns.
extension PendingMetric {
    /// A UUID that is the same on every run for the same metric: version 5 (SHA-1, RFC 4122) of
    /// the metric's identity `(type, startDate, endDate, sourceApp, value, unit)` and, for a category
    /// sample, its category value, so a server that deduplicates by uuid absorbs a batch sent twice
    /// but keeps an InBed and an Asleep sample of the same span apart.
    var stableUUID: String {
        var name = "\(type)|\(startDate)|\(endDate)|\(sourceApp)|\(value.bitPattern)|\(unit)"
        if let category { name += "|\(category)" }
        var hasher = Insecure.SHA1()
        hasher.update(data: uuidNamespace)
        hasher.update(data: Data(name.utf8))
        var bytes = Array(hasher.finalize().prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])).uuidString
    }

    /// The metric as the mapper hands it to `MetricJSON`, so that an uploaded metric is byte for
    /// byte what `convert` writes. The view lives only inside `body`.
    func withMapped(_ metric: inout MappedMetric, _ body: (MappedMetric) -> Void) {
        var type = type, unit = unit, source = sourceApp, metadata = metadataJSON
        type.withUTF8 { typeBytes in
            unit.withUTF8 { unitBytes in
                source.withUTF8 { sourceBytes in
                    metadata.withUTF8 { metadataBytes in
                        metric.type = typeBytes
                        metric.unit = unitBytes
                        metric.sourceApp = sourceBytes
                        metric.metadataJSON = metadataBytes
                        metric.startDate = startDate
                        metric.endDate = endDate
                        metric.value = value
                        metric.valueText = nil
                        body(metric)
                    }
                }
            }
        }
    }
}

/// The namespace of CloudSync's metric UUIDs (a fixed random UUID). An array, not `Data`:
/// LeakSanitizer cannot see the spare-bit-tagged pointer of a global `Data` and calls it a leak.
private let uuidNamespace: [UInt8] = [0x6f, 0x0b, 0x7a, 0x1e, 0x43, 0x52, 0x4c, 0x8e, 0x9d, 0x21, 0x5a, 0x3f, 0xc4, 0x77, 0x10, 0x2b]
