/// A bulk load's hours (`OnlineHourSummary`), written as they are counted. An hour written for the
/// first time is copied straight into the patient's new hour table. One that may have been written
/// before is staged, and added to its twin through the table's key once the table is attached
/// (`BulkLoad.attachHours`). An hour is written again when the next source's rows open it again,
/// when held hours are written before the commit and the hour goes on, or when a decided repeat is
/// taken out of it: 108 of the 1 GB export's 558,967 written hours, and the filter's "maybe" is
/// wrong for about 1 in 1,000 more.
///
/// Why: staged whole and added up by one `GROUP BY` when the rows were in, the hours cost 2.4 s of
/// the 1 GB upload's 26 s, on one core: the aggregate spilled to disk (85 batches, 60 MB) and its
/// 558,889 hours were then inserted.
final class BulkHours {
    /// The hours written, by (type, unit, hour). Fixed size, so memory stays flat: 2 MiB, a word to
    /// about two hours of the 1 GB export.
    private var written: BlockedBloomFilter
    private static let mostWords = 1 << 18
    /// The rows copied into the hour table, and those staged.
    private let table, staged: any RowBatch
    /// The types with hours in the table: a type left to the rebuild from its rows has them removed.
    private(set) var typesInTable: Set<Int64> = []

    /// `hours`: how many the input may write, when it says (the samples of a received batch).
    init(table: any RowBatch, staged: any RowBatch, hours: Int?) {
        self.table = table
        self.staged = staged
        written = BlockedBloomFilter(keys: hours, most: Self.mostWords)
    }

    /// Where the hour's statistics go.
    func rows(type: Int64, unit: Int64, hour: Int64) -> any RowBatch {
        var hash = FilterHash()
        hash.mix(type)
        hash.mix(unit)
        hash.mix(hour)
        if written.insert(hash) { return staged }
        typesInTable.insert(type)
        return table
    }

    /// Writes the hours given so far (the few staged first, the table's copy left to PostgreSQL
    /// while the import goes on when `waiting` is false).
    func flush(waiting: Bool) throws {
        try staged.flush()
        if waiting { try table.flush() } else { try table.send() }
    }
}
