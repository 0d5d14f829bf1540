import CloudSyncModel
import CloudSyncStore
import Foundation
import MCP

extension HealthTools {
    /// `medications`: per drug, what was due, taken, skipped and missed over the range; per drug and
    /// week (Monday to Sunday in the zone); and the doses themselves, as `convert --kind medications`
    /// writes them, up to `limit` (the latest kept when there are more).
    func medications(_ arguments: ToolArguments) throws -> (Value, String) {
        struct Answer: Codable {
            var drugs: [MedicationAdherence.Drug]
            var weeks: [MedicationAdherence.Week]
            var doses: [Value]
            var truncated: Bool
            var note: String?
        }
        let zone = try arguments.timeZone("timeZone")
        let range = try arguments.range(zone: zone)
        let limit = try arguments.int("limit", default: 100, in: 0...1000)
        let doses = try MedicationQuery(store).doses(since: range.since, until: range.until, name: try arguments.string("name"))
        let adherence = MedicationQuery.adherence(doses, zone: zone)
        let listed = doses.suffix(limit).map { (try? JSONDecoder().decode(Value.self, from: Data($0.line.utf8))) ?? .null }
        let note = doses.isEmpty ? "no medication doses in that range" : nil
        var text = note ?? "\(counted(doses.count, "dose")) of \(counted(adherence.drugs.count, "medication"))"
        text += TextList.lines(adherence.drugs, noun: "medication") { drug in
            "\(drug.name): \(drug.taken) taken, \(drug.missed) missed of \(drug.scheduled) due"
                + (drug.takenAsNeeded > 0 ? ", \(drug.takenAsNeeded) as needed" : "") + (drug.lastTaken.map { "; last taken \($0)" } ?? "")
        }
        let answer = Answer(drugs: adherence.drugs, weeks: adherence.weeks, doses: Array(listed), truncated: doses.count > limit, note: note)
        return (try Value(answer), text)
    }
}
