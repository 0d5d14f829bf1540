/// One dose event of a medication (Health Auto Export's `medications` array, from HealthKit's
/// `HKMedicationDoseEvent`): what was due, when, and whether it was taken.
public struct MedicationDose: Sendable, Equatable {
    /// A code of the medication in a terminology (RxNorm, …).
    public struct Coding: Sendable, Equatable {
        public var system: String?
        public var code: String?
        public var version: String?
        public init(system: String?, code: String?, version: String?) {
            self.system = system
            self.code = code
            self.version = version
        }
    }

    /// What became of a dose, whatever language the phone wrote its status in (`status` keeps the
    /// words as written): HealthKit's `HKMedicationDoseEvent.LogStatus`.
    public enum Outcome: String, Sendable, CaseIterable {
        case taken, skipped, snoozed, notLogged, notInteracted, notificationNotSent, unspecified

        /// The status as the app writes it (English, or the few languages below); nil when not known.
        public init?(status: String) {
            let folded = status.lowercased().filter { $0.isLetter }
            guard let outcome = Self.spellings[folded] else { return nil }
            self = outcome
        }

        private static let spellings: [String: Outcome] = [
            "taken": .taken, "skipped": .skipped, "snoozed": .snoozed, "notlogged": .notLogged, "notinteracted": .notInteracted,
            "notificationnotsent": .notificationNotSent, "unspecified": .unspecified,
            // The app writes the status in the phone's language (Health Auto Export issue 66).
            "tomado": .taken, "tomada": .taken, "omitido": .skipped, "omitida": .skipped, "pospuesto": .snoozed,
            "pris": .taken, "prise": .taken, "ignoré": .skipped, "ignorée": .skipped, "reporté": .snoozed,
            "eingenommen": .taken, "übersprungen": .skipped, "preso": .taken, "presa": .taken, "saltato": .skipped,
        ]

        /// A scheduled dose with this outcome was missed: it was due and not taken.
        public var isMissed: Bool { self != .taken }
    }

    /// The medication's name as the person sees it (`displayText`).
    public var name: String
    public var nickname: String?
    /// When the dose was logged, seconds since 1970 UTC.
    public var start: Int64
    public var end: Int64?
    /// When it was due; nil for a dose taken as needed.
    public var scheduledDate: Int64?
    public var scheduledDosage: Double?
    public var dosage: Double?
    public var units: String?
    /// Capsule, Tablet, Injection, …
    public var form: String?
    /// As written (Taken, Skipped, Not Logged, …, or in the phone's language).
    public var status: String?
    public var isArchived: Bool?
    public var codings: [Coding]
    /// The UTC offset the dose was written with (`+01:00`), the person's time zone then.
    public var offset: String?

    public init(name: String, nickname: String? = nil, start: Int64, end: Int64? = nil, scheduledDate: Int64? = nil,
                scheduledDosage: Double? = nil, dosage: Double? = nil, units: String? = nil, form: String? = nil, status: String? = nil,
                isArchived: Bool? = nil, codings: [Coding] = [], offset: String? = nil) {
        self.name = name
        self.nickname = nickname
        self.start = start
        self.end = end
        self.scheduledDate = scheduledDate
        self.scheduledDosage = scheduledDosage
        self.dosage = dosage
        self.units = units
        self.form = form
        self.status = status
        self.isArchived = isArchived
        self.codings = codings
        self.offset = offset
    }

    public var outcome: Outcome? { status.flatMap(Outcome.init(status:)) }

    /// The instant the dose is about: when it was due, else when it was logged.
    public var date: Int64 { scheduledDate ?? start }

    /// One dose event: the medication and when it was due (else logged). The same dose pushed again
    /// later, its status changed (not interacted, then taken), is the same dose.
    public var key: String { "\(name)|\(scheduledDate.map { "due:\($0)" } ?? "at:\(start)")" }
}

/// The medications kind: dose events. JSON Lines: one dose per line, its codings in an array; CSV:
/// one row per dose, the codings joined (`system|code|version`, separated by `;`).
public enum MedicationKind: RecordKind {
    public typealias Record = MedicationDose
    public static let name = "medications"
    public static let noun = Noun("medication dose")
    public static func date(of dose: MedicationDose) -> Int64? { dose.date }

    /// `{"name","nickname","start","end","scheduledDate","scheduledDosage","dosage","units","form",
    /// "status","outcome","isArchived","codings":[{"system","code","version"}],"offset"}`.
    public static func appendJSONLines(_ dose: MedicationDose, to out: inout ByteBuffer) {
        out.append("{\"name\":")
        RecordJSON.appendString(dose.name, to: &out)
        out.append(",\"nickname\":")
        RecordJSON.appendString(dose.nickname, to: &out)
        out.append(",\"start\":")
        RecordJSON.appendDate(dose.start, to: &out)
        out.append(",\"end\":")
        RecordJSON.appendDate(dose.end, to: &out)
        out.append(",\"scheduledDate\":")
        RecordJSON.appendDate(dose.scheduledDate, to: &out)
        out.append(",\"scheduledDosage\":")
        RecordJSON.appendNumber(dose.scheduledDosage, to: &out)
        out.append(",\"dosage\":")
        RecordJSON.appendNumber(dose.dosage, to: &out)
        out.append(",\"units\":")
        RecordJSON.appendString(dose.units, to: &out)
        out.append(",\"form\":")
        RecordJSON.appendString(dose.form, to: &out)
        out.append(",\"status\":")
        RecordJSON.appendString(dose.status, to: &out)
        out.append(",\"outcome\":")
        RecordJSON.appendString(dose.outcome?.rawValue, to: &out)
        out.append(",\"isArchived\":")
        RecordJSON.appendBool(dose.isArchived, to: &out)
        out.append(",\"codings\":[")
        for (i, coding) in dose.codings.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append("{\"system\":")
            RecordJSON.appendString(coding.system, to: &out)
            out.append(",\"code\":")
            RecordJSON.appendString(coding.code, to: &out)
            out.append(",\"version\":")
            RecordJSON.appendString(coding.version, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append("],\"offset\":")
        RecordJSON.appendString(dose.offset, to: &out)
        out.append("}\n")
    }

    public static let csvColumns = ["name", "nickname", "start", "end", "scheduledDate", "scheduledDosage", "dosage", "units", "form",
                                    "status", "outcome", "isArchived", "codings", "offset"]

    public static func appendCSVRows(_ dose: MedicationDose, to out: inout ByteBuffer) {
        out.appendCSVCell(dose.name, first: true)
        out.appendCSVCell(dose.nickname)
        out.appendCSVCell(date: dose.start)
        out.appendCSVCell(date: dose.end)
        out.appendCSVCell(date: dose.scheduledDate)
        out.appendCSVCell(dose.scheduledDosage)
        out.appendCSVCell(dose.dosage)
        out.appendCSVCell(dose.units)
        out.appendCSVCell(dose.form)
        out.appendCSVCell(dose.status)
        out.appendCSVCell(dose.outcome?.rawValue)
        out.appendCSVCell(dose.isArchived.map { $0 ? "true" : "false" })
        out.appendCSVCell(dose.codings.isEmpty ? nil : dose.codings.map { [$0.system, $0.code, $0.version].map { $0 ?? "" }.joined(separator: "|") }
            .joined(separator: ";"))
        out.appendCSVCell(dose.offset)
        out.endCSVRow()
    }
}
