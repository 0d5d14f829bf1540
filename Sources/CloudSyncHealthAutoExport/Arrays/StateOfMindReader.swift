import CloudSyncModel
/// One item of `stateOfMind[]` (`id`, `start`, `end`, `kind`, `valence`, `valenceClassification`,
/// `labels`, `associations`, `metadata`) as a `StateOfMind`. Its dates are ISO 8601 in real files
/// (`2026-05-05T02:35:56Z`), unlike every other array; the app's format is read too. The
/// classification is a name in real files (`slightly_pleasant`) and a number in the documentation
/// (HealthKit's 1…7): both become the name.
enum StateOfMindReader {
    static func read(_ cursor: inout JSONCursor) throws -> StateOfMind {
        var id: String?, kind: String?, classification: String?
        var start: LocalDate?, end: LocalDate?, valence: Double?
        var labels: [String] = [], associations: [String] = []
        var metadata: [(key: String, value: String)] = []
        try cursor.object { cursor, key in
            switch key.string {
            case "id": id = try cursor.text()
            case "start", "date": start = try cursor.instant("start")
            case "end": end = try cursor.instant("end")
            case "kind": kind = try cursor.text()
            case "valence": valence = try cursor.looseNumber()
            case "valenceClassification":
                if try cursor.peekKind() == .number {
                    let number = try cursor.number()
                    classification = StateOfMind.classification(number: number) ?? NumberFormatting.string(number)
                } else {
                    classification = try cursor.text()
                }
            case "labels": labels = try cursor.strings()
            case "associations": associations = try cursor.strings()
            case "metadata":
                if try cursor.null() { break }
                try cursor.object { cursor, key in
                    let name = key.string
                    if let value = try cursor.text() { metadata.append((name, value)) }
                }
            default: try cursor.skipValue()
            }
        }
        guard let start else { throw cursor.shape("a State of Mind entry without start") }
        return StateOfMind(id: id, start: start.utc, end: end?.utc, kind: kind, valence: valence, classification: classification,
                           labels: labels, associations: associations, metadata: metadata)
    }
}
