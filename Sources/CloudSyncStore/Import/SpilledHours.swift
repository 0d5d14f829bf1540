/// The types an import left to the rebuild whose counted rows it also kept in its spill
/// (`MergeSpill`): their hours are counted from there after the import's commit, in the first
/// rebuild, instead of from their rows in the store. Only while the store is as the import left it:
/// rows of the type another connection added since would be missing from the spill, so a commit of
/// another connection (`othersCommits`) sends every type back to its rows.
package struct SpilledHours {
    let spill: MergeSpill
    let types: Set<Int64>
    /// `othersCommits` as of the import's last commit.
    private let asCommitted: Int64

    init(spill: MergeSpill, types: Set<Int64>, asCommitted: Int64) {
        self.spill = spill
        self.types = types
        self.asCommitted = asCommitted
    }

    /// The type's rows from the spill, in the identity index's order; nil when they are to be read
    /// from the store: not spilled, or another connection has committed since the import. Throws
    /// `MergeSpill.SpillError` when the spill cannot be read back (the caller reads the store).
    func rows(of typeID: Int64, in database: any StoreDatabase) throws -> SpilledRows? {
        guard types.contains(typeID), try database.othersCommits() == asCommitted else { return nil }
        return SpilledRows(rows: try spill.rows(of: typeID))
    }
}

/// A type's spilled rows as `TypeRows`.
struct SpilledRows: TypeRows {
    fileprivate var rows: MergedRows
    private var row = MergeSpill.Row(start: 0, end: 0, source: 0, value: 0, unit: 0, rank: 0)

    fileprivate init(rows: MergedRows) { self.rows = rows }

    mutating func step() throws -> Bool {
        guard let next = try rows.next() else { return false }
        row = next
        return true
    }
    var unit: Int64 { row.unit }
    var start: Int64 { row.start }
    var end: Int64 { row.end }
    var value: Double { row.value }
    mutating func rank() -> Int64 { row.rank }
}
