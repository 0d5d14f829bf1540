/// A State of Mind entry (HealthKit's `HKStateOfMind`, Health Auto Export's `stateOfMind` array): a
/// momentary emotion or a daily mood, how pleasant it was, and what it was about.
public struct StateOfMind: Sendable, Equatable {
    /// The app's id (a UUID), when it gives one.
    public var id: String?
    /// Seconds since 1970 UTC.
    public var start: Int64
    public var end: Int64?
    /// `momentary_emotion` or `daily_mood`, as written.
    public var kind: String?
    /// From -1 (very unpleasant) to 1 (very pleasant).
    public var valence: Double?
    /// `very_unpleasant` … `very_pleasant` (HealthKit's seven classes), as the app's recent versions
    /// write it; a number of older versions is turned into the same names (`classification(number:)`).
    public var classification: String?
    /// The feelings named (`anxious`, `calm`, …) and what they were about (`work`, `family`, …).
    public var labels: [String]
    public var associations: [String]
    public var metadata: [(key: String, value: String)]

    public init(id: String? = nil, start: Int64, end: Int64? = nil, kind: String? = nil, valence: Double? = nil,
                classification: String? = nil, labels: [String] = [], associations: [String] = [],
                metadata: [(key: String, value: String)] = []) {
        self.id = id
        self.start = start
        self.end = end
        self.kind = kind
        self.valence = valence
        self.classification = classification
        self.labels = labels
        self.associations = associations
        self.metadata = metadata
    }

    /// HealthKit's `HKStateOfMind.ValenceClassification` raw values (1…7), as the app's documentation
    /// says it writes them.
    public static func classification(number: Double) -> String? {
        let names = ["very_unpleasant", "unpleasant", "slightly_unpleasant", "neutral", "slightly_pleasant", "pleasant", "very_pleasant"]
        guard number == number.rounded(), number >= 1, number <= 7 else { return nil }
        return names[Int(number) - 1]
    }

    /// The entry's id, else its kind and moment.
    public var key: String { id ?? "\(kind ?? "")|\(start)" }

    public static func == (a: StateOfMind, b: StateOfMind) -> Bool {
        a.id == b.id && a.start == b.start && a.end == b.end && a.kind == b.kind && a.valence == b.valence
            && a.classification == b.classification && a.labels == b.labels && a.associations == b.associations
            && a.metadata.map(\.key) == b.metadata.map(\.key) && a.metadata.map(\.value) == b.metadata.map(\.value)
    }
}

/// The State of Mind kind. JSON Lines: one entry per line; CSV: one row per entry, its labels and
/// associations joined by `;`.
public enum StateOfMindKind: RecordKind {
    public typealias Record = StateOfMind
    public static let name = "state-of-mind"
    public static let noun = Noun("State of Mind entry", "State of Mind entries")
    public static func date(of entry: StateOfMind) -> Int64? { entry.start }

    /// `{"id","start","end","kind","valence","classification","labels":[…],"associations":[…],"metadata":{…}}`.
    public static func appendJSONLines(_ entry: StateOfMind, to out: inout ByteBuffer) {
        out.append("{\"id\":")
        RecordJSON.appendString(entry.id, to: &out)
        out.append(",\"start\":")
        RecordJSON.appendDate(entry.start, to: &out)
        out.append(",\"end\":")
        RecordJSON.appendDate(entry.end, to: &out)
        out.append(",\"kind\":")
        RecordJSON.appendString(entry.kind, to: &out)
        out.append(",\"valence\":")
        RecordJSON.appendNumber(entry.valence, to: &out)
        out.append(",\"classification\":")
        RecordJSON.appendString(entry.classification, to: &out)
        out.append(",\"labels\":")
        RecordJSON.appendStrings(entry.labels, to: &out)
        out.append(",\"associations\":")
        RecordJSON.appendStrings(entry.associations, to: &out)
        out.append(",\"metadata\":")
        RecordJSON.appendObject(entry.metadata, to: &out)
        out.append("}\n")
    }

    public static let csvColumns = ["id", "start", "end", "kind", "valence", "classification", "labels", "associations"]

    public static func appendCSVRows(_ entry: StateOfMind, to out: inout ByteBuffer) {
        out.appendCSVCell(entry.id, first: true)
        out.appendCSVCell(date: entry.start)
        out.appendCSVCell(date: entry.end)
        out.appendCSVCell(entry.kind)
        out.appendCSVCell(entry.valence)
        out.appendCSVCell(entry.classification)
        out.appendCSVCell(entry.labels.joined(separator: ";"))
        out.appendCSVCell(entry.associations.joined(separator: ";"))
        out.endCSVRow()
    }
}
