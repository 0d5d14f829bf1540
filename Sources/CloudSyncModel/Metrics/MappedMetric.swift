/// One HealthMetric as views of bytes: what the mapper produces and the writers consume.
/// Its views are valid until the mapper maps the next element.
public struct MappedMetric {
    public init() {}

    public var type: ByteText = .empty
    /// Seconds since 1970 UTC.
    public var startDate: Int64 = 0
    public var endDate: Int64 = 0
    public var value: Double = 0
    /// The value exactly as the file wrote it, when that is already its JSON form (saves formatting).
    public var valueText: ByteText?
    public var unit: ByteText = .empty
    public var sourceApp: ByteText = .empty
    /// Always starts with `device`; keys are unique.
    public var metadata: [(key: ByteText, value: ByteText)] = []
    /// The metadata object already encoded as JSON (metrics read back from the store); when set,
    /// writers use it instead of `metadata`.
    public var metadataJSON: ByteText?
    /// False when the unit is outside the table (kept as written).
    public var unitRecognised = true
    /// The unit as the file wrote it.
    public var writtenUnit: ByteText = .empty
    /// The record's `creationDate` as written (parsed only by the store, which needs it for the
    /// identity; conversion never looks at it).
    public var creationDateText: ByteText?
    /// `creationDateText` in seconds since 1970 UTC, when the mapper had it parsed already (export.xml's
    /// parser thread does); the store parses the text when this is nil.
    public var creationDate: Int64?
    /// A category sample's value as written (`HKCategoryValueSleepAnalysisInBed`): part of its
    /// identity in the store, since its `value` is only the duration.
    public var categoryValue: ByteText?
    /// A summary of its interval (`startDate`…`endDate`: an hour, a day, a night) rather than one
    /// sample: what Health Auto Export writes with "Summarize Data" on. The store lets a summary
    /// count only where no sample of its type does (docs/store.md, "Two sources").
    public var isSummary = false
    /// The device name in `metadata`.
    public var device: ByteText = .empty
    /// Line of the element in the input.
    public var line: Int = 0
}

/// Why a record could not become a valid metric. It is skipped and counted.
public enum InvalidRecordReason: String, CaseIterable, Sendable, Codable {
    case missingType = "no type"
    /// A quantity record with neither a `value` nor (iOS 8's daily summaries) an `average`.
    case missingValue = "no value"
    case valueNotFinite = "value is not a finite number"
    case startDateUnparsable = "startDate does not parse"
    case endDateUnparsable = "endDate does not parse"
    case endBeforeStart = "endDate is before startDate"
}

/// The HealthMetric of the spec as plain Swift values, for programs that use the library.
public struct HealthMetric: Sendable, Equatable, Codable {
    public var type: String
    public var startDate: Int64
    public var endDate: Int64
    public var value: Double
    public var unit: String
    public var sourceApp: String
    public var metadata: [String: String]

    public init(type: String, startDate: Int64, endDate: Int64, value: Double, unit: String,
                sourceApp: String, metadata: [String: String]) {
        self.type = type
        self.startDate = startDate
        self.endDate = endDate
        self.value = value
        self.unit = unit
        self.sourceApp = sourceApp
        self.metadata = metadata
    }

    public init(_ mapped: MappedMetric) {
        self.init(type: mapped.type.string, startDate: mapped.startDate, endDate: mapped.endDate,
                  value: mapped.value, unit: mapped.unit.string, sourceApp: mapped.sourceApp.string,
                  metadata: Dictionary(mapped.metadata.map { ($0.key.string, $0.value.string) },
                                       uniquingKeysWith: { first, _ in first }))
    }
}
