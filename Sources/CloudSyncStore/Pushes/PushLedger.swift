
/// What is Health Auto Export's own in the store: the ledger of its documents (`hae_push`), one row
/// per push or file, written in the document's transaction: when, how it came (the app's headers),
/// what it added. Its rows themselves are metrics like any other (`metric.origin` 1), written
/// through the same import session; what counts of them is the same one definition.
struct PushLedger {
    let database: any StoreDatabase

    /// The document's row, in its import's (open) transaction.
    func record(runID: Int64, details: PushDetails, firstRow: Int64, counts: MetricWriter.Counts, notKept: Int) throws {
        let lastRow = try database.scalarInt("SELECT coalesce(max(id), 0) FROM metric") ?? 0
        let added: [StoreValue] = lastRow >= firstRow ? [.int(firstRow), .int(lastRow)] : [.null, .null]
        try database.prepare("""
            INSERT INTO hae_push(run_id, received_at, via, automation_name, automation_id, aggregation, period, session_id,
                                 first_metric_id, last_metric_id, stored, already, not_kept) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).run([.int(runID), .int(StoreClock.now), .text(details.via), Self.optional(details.automationName),
                      Self.optional(details.automationID), Self.optional(details.aggregation), Self.optional(details.period),
                      Self.optional(details.sessionID)] + added
                     + [.int(Int64(counts.new)), .int(Int64(counts.already)), .int(Int64(notKept))])
    }

    private static func optional(_ text: String?) -> StoreValue { text.map { .text($0) } ?? .null }
}
