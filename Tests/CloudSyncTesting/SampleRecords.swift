/// What samples/export.zip holds besides its 24 metrics: per kind of record, how many records, and
/// the CSV rows they give (a row per part for the series kinds).
public enum SampleRecords {
    public static let byKind: [String: (records: Int, csvRows: Int)] = [
        "beats": (1, 3), "correlations": (1, 2), "routes": (2, 2), "ecg": (1, 8), "clinical": (1, 1),
        "audiograms": (1, 3), "vision-prescriptions": (1, 2),
    ]
}
