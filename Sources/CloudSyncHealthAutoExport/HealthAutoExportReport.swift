public import CloudSyncModel
/// What reading one Health Auto Export document did: per name, the points read and the samples
/// kept; the names with no mapping (kept under their own name, reported); what was not kept, and why.
public struct HealthAutoExportReport: Sendable {
    public struct NameCount: Sendable, Equatable {
        /// Data points read.
        public var points = 0
        /// Samples written (a blood-pressure point gives two, a summarised night up to six).
        public var samples = 0
        /// Of the points, the summarised ones (buckets).
        public var summarised = 0
        /// The unit the file wrote.
        public var units = ""
    }

    public var input: String
    public var metrics: [String: NameCount] = [:]
    /// Names with no mapping: kept under their own name and unit.
    public var unmapped: Set<String> = []
    /// Points, arrays or members not kept, by name (`step_count`, `medications`, `workouts.heartRateData`),
    /// with why.
    public var notKept: [String: NotKept] = [:]
    public var workouts = 0
    public var routes = 0
    public var routePoints = 0
    /// Items read per array besides metrics and workouts (`medications`, `symptoms`, `ecg`, …).
    public var items: [String: Int] = [:]
    /// Records written per kind (`medications`, `state-of-mind`, `ecg`, `series`), and their parts.
    public var records: [String: RecordCount] = [:]
    /// Samples written from those arrays (symptoms, cycle tracking, heart-rate notifications).
    public var arraySamples = 0
    public var seconds = 0.0

    public struct NotKept: Sendable, Equatable {
        public var count = 0
        public var reason = ""
        public init(count: Int = 0, reason: String = "") {
            self.count = count
            self.reason = reason
        }
    }

    public init(input: String) { self.input = input }

    /// Samples written: metrics (and workouts, which are metrics of type `workout`, and the samples of
    /// the other arrays).
    public var samples: Int { metrics.values.reduce(0) { $0 + $1.samples } + workouts + arraySamples }
    public var points: Int { metrics.values.reduce(0) { $0 + $1.points } }

    mutating func notKept(_ name: String, _ count: Int = 1, _ reason: String) {
        notKept[name, default: NotKept(count: 0, reason: reason)].count += count
    }
}
