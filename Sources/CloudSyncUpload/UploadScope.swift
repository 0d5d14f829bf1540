import CloudSyncExport
import CloudSyncModel
import CloudSyncStore

/// Which of the store's metrics an upload to a target sends: the target's types and its window.
/// `upload`, `upload --dry-run` and `status` all ask this one place, so that what `status` calls
/// pending is what an upload would send.
public struct UploadScope: Sendable {
    /// The filter an upload applies: the user's, narrowed to the target's types and window.
    public var filter: MetricFilter
    /// For Flō: the start of the backfill window, as the server gave it (ISO 8601).
    public var windowStart: String?

    /// - Parameters:
    ///   - windowStart: Flō's `recommendedStartDate` (from the server, or recorded by an earlier run).
    ///   - allTypes: send CloudCare the types it does not take, too.
    public init(target: UploadTarget, userFilter: MetricFilter, windowStart: String?, allTypes: Bool) {
        filter = userFilter
        if let accepted = target.acceptedTypes, !(allTypes && target == .cloudcare) {
            filter.types = filter.types.map { $0.intersection(accepted) } ?? accepted
        }
        if let windowStart, let seconds = ISODate.seconds(windowStart) {
            filter.since = max(filter.since ?? .min, seconds)
            self.windowStart = windowStart
        }
    }

    /// Pending metrics of types the target does not take (CloudCare), per type: left out.
    public static func leftOut(target: UploadTarget, store: StagingStore, targetID: Int64?,
                               userFilter: MetricFilter) throws -> [String: Int] {
        guard target == .cloudcare, let accepted = target.acceptedTypes else { return [:] }
        return try store.ledger.pendingByType(targetID: targetID, filter: userFilter)
            .filter { !accepted.contains(MetricFilter.shortName($0.key)) }
    }
}

extension UploadTarget {
    /// The types the target keeps, as short names; nil for all. CloudCare drops the others
    /// silently (wire-contracts.md: its reply's `total_metrics` counts only what it took).
    public var acceptedTypes: Set<String>? {
        switch self {
        case .cloudcare:
            return CloudCareContract.takenTypes
        case .steps:
            return ["stepCount"]
        case .flo:
            return nil
        }
    }
}
