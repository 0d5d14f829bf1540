package import CloudSyncModel
import Foundation

/// A `Correlation` element as a `CorrelationRecord`: its members' values in the canonical units of
/// the unit table, as their metrics have them; nil when it has no member with a value (reported).
package enum CorrelationMembers {
    package static func record(_ correlation: Correlation) -> CorrelationRecord? {
        guard let start = correlation.attributes["startDate"]?.epochSeconds else { return nil }
        var members: [CorrelationRecord.Member] = []
        for record in correlation.records {
            guard let text = record.value, let written = Double(text), written.isFinite else { continue }
            var unit = record.unit ?? ""
            var type = record.type
            let conversion = unit.withUTF8 { unitBytes in type.withUTF8 { UnitTable.conversion(unit: unitBytes, type: $0) } }
            let value = conversion.apply(written)
            if let canonical = conversion.canonicalUnit { unit = canonical.description }
            members.append(.init(type: record.type, value: value, unit: unit))
        }
        guard !members.isEmpty else { return nil }
        var metadata: [(key: String, value: String)] = []
        if let device = correlation.attributes["device"] { metadata.append(("device", device)) }
        if let version = correlation.attributes["sourceVersion"] { metadata.append(("sourceVersion", version)) }
        metadata += correlation.metadata.map { ($0.key, $0.value) }
        return CorrelationRecord(type: MetricFilter.shortName(correlation.type), startDate: start,
                                 endDate: correlation.attributes["endDate"]?.epochSeconds ?? start,
                                 sourceApp: correlation.attributes["sourceName"] ?? correlation.attributes["source"] ?? "", metadata: metadata, members: members)
    }
}
