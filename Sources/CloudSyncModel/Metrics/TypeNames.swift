/// The names a person gives a type, and the type each stands for. People (and assistants) write
/// `steps`, `stepcount`, `Heart rate` or `HKQuantityTypeIdentifierHeartRate`; all must find the
/// type, never a "never recorded" for a type the store has (docs/mcp.md, "Type names").
public enum TypeNames {
    /// Everyday names of the commonest types, by their `key`. Few on purpose: each is one
    /// unambiguous type (no `distance`: walking, cycling and swimming each have one). Documented in
    /// docs/mcp.md; the command line's `--types` is to use the same table.
    public static let aliases: [String: String] = [
        "steps": "stepCount",
        "sleep": "sleepAnalysis",
        "hr": "heartRate",
        "hrv": "heartRateVariabilitySDNN",
        "weight": "bodyMass",
    ]

    private static let identifierPrefixes = ["hkquantitytypeidentifier", "hkcategorytypeidentifier", "hkcorrelationtypeidentifier",
                                             "hkdatatype"]

    /// What names are compared on: the short form (no `HK…TypeIdentifier` prefix), lowercased,
    /// without spaces, `_` or `-`. `HKQuantityTypeIdentifierHeartRate`, `heartRate`, `heart rate`
    /// and `HEART_RATE` all give `heartrate`.
    public static func key(_ name: String) -> String {
        var key = Substring(name.lowercased().filter { $0 != " " && $0 != "_" && $0 != "-" })
        for prefix in identifierPrefixes where key.hasPrefix(prefix) && key.count > prefix.count {
            key = key.dropFirst(prefix.count)
            break
        }
        return String(key)
    }

    /// The short name (`KnownTypes`) that `name` stands for, by its key or an alias; nil when it is
    /// none of them.
    public static func canonical(_ name: String) -> String? {
        let wanted = key(name)
        if let alias = aliases[wanted] { return alias }
        return knownByKey[wanted]
    }

    private static let knownByKey: [String: String] = Dictionary(KnownTypes.all.map { (key($0), $0) }, uniquingKeysWith: { a, _ in a })
}
