/// What the samples hold besides their metrics: per kind of record, how many records, and the CSV
/// rows they give (a row per part for the series kinds). Most kinds come with the export
/// (samples/export.zip); those only the phone's app sends, with Health Auto Export's arrays
/// (samples/health-auto-export-arrays.json).
public enum SampleRecords {
    public static let byKind: [String: (records: Int, csvRows: Int)] = [
        "beats": (1, 3), "correlations": (1, 2), "routes": (2, 2), "ecg": (1, 8), "clinical": (1, 1),
        "audiograms": (1, 3), "vision-prescriptions": (1, 2),
        "medications": (4, 4), "state-of-mind": (2, 2), "series": (5, 8),
    ]

    /// The kinds only Health Auto Export sends (export.xml holds none).
    public static let phoneOnly: Set<String> = ["medications", "state-of-mind", "series"]

    /// The sample that holds `kind`.
    public static func input(of kind: String) -> String {
        phoneOnly.contains(kind) ? Paths.samplePhoneArrays : Paths.sampleZip
    }
}
