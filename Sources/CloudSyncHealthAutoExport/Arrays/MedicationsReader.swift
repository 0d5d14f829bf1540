import CloudSyncModel
/// One item of `medications[]`: a dose event (`displayText`, `start`, `end`, `scheduledDate`,
/// `scheduledDosage`, `dosage`, `units`, `form`, `status`, `isArchived`, `codings`, `nickname`) as a
/// `MedicationDose`. The status is kept as written (the phone writes it in its own language) and
/// read as an outcome where it is known.
enum MedicationsReader {
    static func read(_ cursor: inout JSONCursor) throws -> MedicationDose {
        var name: String?, nickname: String?, units: String?, form: String?, status: String?
        var start: LocalDate?, end: LocalDate?, scheduled: LocalDate?
        var scheduledDosage: Double?, dosage: Double?, isArchived: Bool?
        var codings: [MedicationDose.Coding] = []
        try cursor.object { cursor, key in
            switch key.string {
            case "displayText", "name": name = try cursor.text()?.trimmingSpaces
            case "nickname": nickname = try cursor.text()
            case "start", "date": start = try cursor.instant("start")
            case "end": end = try cursor.instant("end")
            case "scheduledDate": scheduled = try cursor.instant("scheduledDate")
            case "scheduledDosage": scheduledDosage = try cursor.looseNumber()
            case "dosage": dosage = try cursor.looseNumber()
            case "units": units = try cursor.text()
            case "form": form = try cursor.text()
            case "status", "logStatus": status = try cursor.text()
            case "isArchived": isArchived = try cursor.looseBool()
            case "codings": codings = try Self.codings(&cursor)
            default: try cursor.skipValue()
            }
        }
        guard let name, !name.isEmpty else { throw cursor.shape("a medication without displayText") }
        guard let start = start ?? scheduled else { throw cursor.shape("medication \(name) has no start or scheduledDate") }
        return MedicationDose(name: name, nickname: nickname, start: start.utc, end: end?.utc, scheduledDate: scheduled?.utc,
                              scheduledDosage: scheduledDosage, dosage: dosage, units: units, form: form, status: status,
                              isArchived: isArchived, codings: codings, offset: start.offsetText)
    }

    /// `[{"system", "code", "version"}]`.
    private static func codings(_ cursor: inout JSONCursor) throws -> [MedicationDose.Coding] {
        if try cursor.null() { return [] }
        var codings: [MedicationDose.Coding] = []
        try cursor.array { cursor, _ in
            var system: String?, code: String?, version: String?
            try cursor.object { cursor, key in
                switch key.string {
                case "system": system = try cursor.text()
                case "code": code = try cursor.text()
                case "version": version = try cursor.text()
                default: try cursor.skipValue()
                }
            }
            codings.append(.init(system: system, code: code, version: version))
        }
        return codings
    }
}
