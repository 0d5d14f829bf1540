/// `--types`, `--since`, `--until`: which metrics a conversion keeps.
public struct MetricFilter: Sendable {
    /// Accepted types in their short form (see `shortName`); nil accepts every type.
    public var types: Set<String>?
    /// Inclusive lower bound on `startDate`, seconds since 1970 UTC.
    public var since: Int64?
    /// Exclusive upper bound on `startDate`.
    public var until: Int64?

    public init(types: [String]? = nil, since: Int64? = nil, until: Int64? = nil) {
        self.types = types.map { Set($0.map(Self.shortName)) }
        self.since = since
        self.until = until
    }

    public static let all = MetricFilter()

    public var isEmpty: Bool { types == nil && since == nil && until == nil }
    /// `--since` or `--until` is given.
    public var hasDateBounds: Bool { since != nil || until != nil }

    /// `HKQuantityTypeIdentifierHeartRate` and `heartRate` both name the heart-rate type; so do
    /// `HKCategoryTypeIdentifierSleepAnalysis` and `sleepAnalysis`. Matching is on this short form.
    public static func shortName(_ type: String) -> String {
        var name = Substring(type)
        for prefix in ["HKQuantityTypeIdentifier", "HKCategoryTypeIdentifier", "HKCorrelationTypeIdentifier", "HKDataType"]
        where name.hasPrefix(prefix) {
            name = name.dropFirst(prefix.count)
            break
        }
        guard let first = name.first else { return type }
        return first.lowercased() + name.dropFirst()
    }

    package func acceptsDate(_ start: Int64) -> Bool {
        if let since, start < since { return false }
        if let until, start >= until { return false }
        return true
    }
}

/// Remembers the decision for the last type: export.xml groups records by type.
package struct TypeFilterCache {
    private var lastType: [UInt8] = []
    private var lastDecision = true

    package init() {}

    package mutating func accepts(_ type: ByteText, _ filter: MetricFilter) -> Bool {
        guard let types = filter.types else { return true }
        if !lastType.isEmpty, lastType.withUnsafeBufferPointer({ $0.equals(type) }) { return lastDecision }
        lastType = Array(type)
        lastDecision = types.contains(MetricFilter.shortName(type.string))
        return lastDecision
    }
}
