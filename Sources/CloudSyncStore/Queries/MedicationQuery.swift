public import CloudSyncModel
public import Foundation

/// What became of a medication's doses over a time: per drug, and per drug and week.
public struct MedicationAdherence: Sendable, Codable, Equatable {
    /// One drug's doses.
    public struct Drug: Sendable, Codable, Equatable {
        public var name: String
        /// Every dose event (scheduled or taken as needed).
        public var doses = 0
        /// Doses that were due (a scheduled date).
        public var scheduled = 0
        public var taken = 0
        /// Taken without being due (as needed).
        public var takenAsNeeded = 0
        public var skipped = 0
        /// Due and not taken: skipped, not logged, not interacted with, snoozed, or a status not known.
        public var missed = 0
        /// When it was last taken (UTC).
        public var lastTaken: String?
    }

    /// One drug's week (Monday to Sunday in the zone asked): what was due, taken and missed.
    public struct Week: Sendable, Codable, Equatable {
        /// The Monday, `yyyy-MM-dd`.
        public var week: String
        public var name: String
        public var scheduled = 0
        public var taken = 0
        public var missed = 0
    }

    public var drugs: [Drug] = []
    public var weeks: [Week] = []

    public init(drugs: [Drug] = [], weeks: [Week] = []) {
        self.drugs = drugs
        self.weeks = weeks
    }
}

/// One stored dose: its drug, when it was due (else logged), whether it was due, its outcome, and
/// its JSON line as `convert --kind medications` writes it.
public struct MedicationDoseRow: Sendable {
    public var name: String
    public var date: Int64
    public var scheduled: Bool
    public var outcome: MedicationDose.Outcome?
    public var line: String
}

/// The medication doses (the `medications` kind's table): for the MCP `medications` tool and the
/// report. A dose is "missed" when it was due and not taken (docs/mcp.md).
public struct MedicationQuery: StoreQuery {
    let store: StagingStore
    public init(_ store: StagingStore) { self.store = store }

    /// The doses due (else logged) in [since, until), oldest first, of the drugs whose name holds
    /// `name` (any case).
    public func doses(since: Int64? = nil, until: Int64? = nil, name: String? = nil) throws -> [MedicationDoseRow] {
        try storeErrors {
            guard try database.hasTable("medication_dose") else { return [] }
            let rows = try database.prepare("""
                SELECT name, date, scheduled, outcome, line FROM medication_dose
                WHERE date >= ?1 AND date < ?2 \(name == nil ? "" : "AND " + database.dialect.contains("lower(name)", "lower(?3)"))
                ORDER BY date, id
                """)
            try rows.bind([.int(since ?? .min), .int(until ?? .max)] + (name.map { [.text($0)] } ?? []))
            var doses: [MedicationDoseRow] = []
            while try rows.step() {
                doses.append(MedicationDoseRow(name: rows.text(0) ?? "", date: rows.int64(1), scheduled: rows.int64(2) == 1,
                                               outcome: rows.text(3).flatMap(MedicationDose.Outcome.init(rawValue:)), line: rows.text(4) ?? "{}"))
            }
            return doses
        }
    }

    /// Per drug and per drug and week (weeks start on Monday in `zone`, UTC when nil).
    public static func adherence(_ doses: [MedicationDoseRow], zone: TimeZone?) -> MedicationAdherence {
        var drugs: [String: MedicationAdherence.Drug] = [:]
        var weeks: [String: MedicationAdherence.Week] = [:]
        for dose in doses {
            var drug = drugs[dose.name] ?? MedicationAdherence.Drug(name: dose.name)
            let taken = dose.outcome == .taken
            drug.doses += 1
            if dose.scheduled { drug.scheduled += 1 }
            if taken {
                drug.taken += 1
                if !dose.scheduled { drug.takenAsNeeded += 1 }
                drug.lastTaken = UTCDateFormatter.string(dose.date)
            }
            if dose.outcome == .skipped { drug.skipped += 1 }
            let missed = dose.scheduled && !taken
            if missed { drug.missed += 1 }
            drugs[dose.name] = drug
            let monday = Self.monday(of: dose.date, zone: zone)
            var week = weeks[monday + "|" + dose.name] ?? MedicationAdherence.Week(week: monday, name: dose.name)
            if dose.scheduled { week.scheduled += 1 }
            if taken { week.taken += 1 }
            if missed { week.missed += 1 }
            weeks[monday + "|" + dose.name] = week
        }
        return MedicationAdherence(drugs: drugs.values.sorted { $0.name < $1.name },
                                   weeks: weeks.values.sorted { ($0.week, $0.name) < ($1.week, $1.name) })
    }

    /// The local Monday of the week holding `instant`, `yyyy-MM-dd`.
    static func monday(of instant: Int64, zone: TimeZone?) -> String {
        let local = instant + Int64(zone?.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))) ?? 0)
        let day = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        // 1970-01-01 was a Thursday: days since a Monday are (day + 3) mod 7.
        let monday = day - ((day + 3) % 7 + 7) % 7
        return String(UTCDateFormatter.string(monday * 86_400).prefix(10))
    }
}
