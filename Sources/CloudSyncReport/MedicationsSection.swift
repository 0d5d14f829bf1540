import CloudSyncModel
import CloudSyncStore
import Foundation

/// The medications of the range: per drug, what was due, taken and missed, and when it was last
/// taken (the MCP `medications` tool's numbers), then each drug's weeks (in the report's zone). Missed is due and not
/// taken; a dose taken as needed is taken without being due.
enum MedicationsSection {
    static func render(_ page: inout HTMLText, _ data: ReportData, time: LocalTime) {
        let adherence = data.medications
        guard !adherence.drugs.isEmpty else { return }
        ReportPage.section(&page, id: "medications", title: "Medications") { page in
            let due = adherence.drugs.reduce(0) { $0 + $1.scheduled }, missed = adherence.drugs.reduce(0) { $0 + $1.missed }
            page.element("p", text: "\(counted(adherence.drugs.count, "medication")): \(counted(due, "dose")) due, \(missed) missed.")
            page.table(summary: "Per medication", columns: ["medication", "due", "taken", "as needed", "skipped", "missed", "last taken"],
                       rows: adherence.drugs.map { drug in
                           [drug.name, "\(drug.scheduled)", "\(drug.taken)", "\(drug.takenAsNeeded)", "\(drug.skipped)", "\(drug.missed)",
                            drug.lastTaken.map(time.minute) ?? ""]
                       }, id: "medications")
            page.table(summary: "Per week (Monday to Sunday)", columns: ["week", "medication", "due", "taken", "missed"],
                       rows: adherence.weeks.map { ["\($0.week)", $0.name, "\($0.scheduled)", "\($0.taken)", "\($0.missed)"] },
                       id: "medication-weeks")
        }
    }
}
