import CloudSyncModel

/// A push's look at the samples stored (issue 35, a clinic on PostgreSQL): whether a row alike a
/// pushed sample (but for its creation date) is there, answered from a day of the type's rows read
/// at once, not from a statement per sample. On PostgreSQL a statement is a round trip: a push of
/// 4,320 samples looked each up and inserted each, 1.2 s a push with the server on the same machine,
/// and 50 phones at once queued behind one another. The rule is the same (`MetricWriter.add`);
/// only where the answer comes from differs. The push holds the patient's write turn throughout
/// (the owner's lock), so no row of that patient comes or goes while it runs, and the rows it adds
/// are noted here as it adds them.
final class StoredSampleWindows {
    private struct Sample: Hashable {
        var type, start, end, source: Int64
        var value: UInt64
        var unit, category: Int64

        init(type: Int64, start: Int64, end: Int64, source: Int64, value: Double, unit: Int64, category: Int64) {
            (self.type, self.start, self.end, self.source, self.unit, self.category) = (type, start, end, source, unit, category)
            self.value = value == 0 ? 0 : value.bitPattern   // -0 is 0, as SQL compares them
        }
    }

    private struct Window: Hashable { var type, day: Int64 }

    /// A window's length: a push's samples of a type span a day or so.
    static let span: Int64 = 86_400

    private let select: any StoreStatement
    private var loaded: Set<Window> = []
    /// Each stored sample of the windows read: the import that wrote it.
    private var imports: [Sample: Int64] = [:]

    init(database: any StoreDatabase) throws {
        select = try database.prepare("""
            SELECT start_date, end_date, source_id, value, unit_id, category_id, import_id FROM metric
            WHERE type_id = ? AND start_date >= ? AND start_date < ?
            """)
    }

    private static func day(of instant: Int64) -> Int64 { instant >= 0 ? instant / span : (instant - span + 1) / span }

    /// The import that wrote a stored row alike the sample but for its creation date; nil when none is.
    func importOfAlike(type: Int64, start: Int64, end: Int64, source: Int64, value: Double, unit: Int64, category: Int64) throws -> Int64? {
        let window = Window(type: type, day: Self.day(of: start))
        if loaded.insert(window).inserted {
            defer { select.reset() }
            try select.bind([.int(type), .int(window.day * Self.span), .int((window.day + 1) * Self.span)])
            while try select.step() {
                let stored = Sample(type: type, start: select.int64(0), end: select.int64(1), source: select.int64(2), value: select.double(3),
                                    unit: select.int64(4), category: select.int64(5))
                if imports[stored] == nil { imports[stored] = select.int64(6) }
            }
        }
        return imports[Sample(type: type, start: start, end: end, source: source, value: value, unit: unit, category: category)]
    }

    /// A sample this import adds (after its look: its window is read).
    func add(type: Int64, start: Int64, end: Int64, source: Int64, value: Double, unit: Int64, category: Int64, importID: Int64) {
        let sample = Sample(type: type, start: start, end: end, source: source, value: value, unit: unit, category: category)
        if imports[sample] == nil { imports[sample] = importID }
    }
}
