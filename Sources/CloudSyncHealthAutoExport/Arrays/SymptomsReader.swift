import CloudSyncModel
/// One item of `symptoms[]` (`start`, `end`, `name`, `severity`, `userEntered`, `source`): the
/// category sample export.xml writes for the same symptom (`HKCategoryTypeIdentifierHeadache`,
/// `HKCategoryValueSeverityModerate`, metadata `HKWasUserEntered`). The app writes names and
/// severities in the phone's language: a name it does not know is kept under its own name and said
/// (`unmapped`); a severity it does not know, as written.
struct SymptomsReader {
    let samples: CategorySamples

    func read(_ cursor: inout JSONCursor, report: inout HealthAutoExportReport) throws {
        var name: String?, severity: String?, source: String?, userEntered: Bool?
        var start: LocalDate?, end: LocalDate?
        try cursor.object { cursor, key in
            switch key.string {
            case "name": name = try cursor.text()?.trimmingSpaces
            case "severity", "value": severity = try cursor.text()
            case "start", "date": start = try cursor.instant("start")
            case "end": end = try cursor.instant("end")
            case "source": source = try cursor.sourceName()
            case "userEntered": userEntered = try cursor.looseBool()
            default: try cursor.skipValue()
            }
        }
        guard let name, !name.isEmpty else { throw cursor.shape("a symptom without name") }
        guard let start else { throw cursor.shape("symptom \(name) has no start") }
        let type = AppCategories.symptoms[AppCategories.folded(name)]
        if type == nil { report.unmapped.insert("symptoms: \(name)") }
        let value = severity.map { written in type.flatMap { AppCategories.symptomValue(type: $0, written: written) } ?? written }
        var metadata: [(key: StaticString, value: String)] = []
        if let userEntered { metadata.append(("HKWasUserEntered", userEntered ? "1" : "0")) }
        try samples.write(type: type ?? name, value: value, start: start, end: end, source: source, metadata: metadata)
    }
}
