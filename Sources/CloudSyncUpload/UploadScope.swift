package import CloudSyncModel
package import CloudSyncStore

/// Which of the store's metrics an upload to a target sends: the contract's types and its window.
/// `upload`, `upload --dry-run` and `status` all ask this one place, so that what `status` calls
/// pending is what an upload would send.
package struct UploadScope: Sendable {
    /// The filter an upload applies: the user's, narrowed to the contract's types and window.
    package var filter: MetricFilter
    /// For Flō: the start of the backfill window, as the server gave it (ISO 8601).
    package var windowStart: String?

    /// - Parameters:
    ///   - windowStart: Flō's `recommendedStartDate` (from the server, or recorded by an earlier run).
    ///   - allTypes: send the types the contract does not keep too, where it takes them (CloudCare).
    package init(contract: any UploadContract.Type, userFilter: MetricFilter, windowStart: String?, allTypes: Bool) {
        filter = userFilter
        if let accepted = contract.acceptedTypes, !(allTypes && contract.takesEveryTypeOnRequest) {
            filter.types = filter.types.map { $0.intersection(accepted) } ?? accepted
        }
        if let windowStart, let seconds = ExportDateParser.isoEpochSeconds(windowStart) {
            filter.since = max(filter.since ?? .min, seconds)
            self.windowStart = windowStart
        }
    }

    /// Pending metrics of types the contract does not keep but would take (CloudCare drops them
    /// silently), per type: left out, and said so.
    package static func leftOut(contract: any UploadContract.Type, store: StagingStore, targetID: Int64?,
                               userFilter: MetricFilter) throws -> [String: Int] {
        guard contract.takesEveryTypeOnRequest, let accepted = contract.acceptedTypes else { return [:] }
        return try store.ledger.pendingByType(targetID: targetID, filter: userFilter)
            .filter { !accepted.contains(MetricFilter.shortName($0.key)) }
    }
}
