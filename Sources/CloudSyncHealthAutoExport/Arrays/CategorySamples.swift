import CloudSyncModel
/// Symptoms, cycle tracking and heart-rate notifications are the samples export.xml writes as
/// category records, and become the same metrics (docs/mapping.md, "The app's other arrays"): the
/// type, the value as minutes between start and end (unit `minutes`), metadata `category` and
/// `categoryValue`, and the record's metadata keys as export.xml names them.
struct CategorySamples {
    let emitter: MetricEmitter
    let arena: TextArena

    /// One sample. `type` is a HealthKit category type, or the app's own name when it has none (kept
    /// under it, reported as unmapped); `value` a `HKCategoryValue…`, or the words as written.
    func write(type: String, value: String?, start: LocalDate, end: LocalDate?, source: String?,
               metadata: [(key: StaticString, value: String)]) throws {
        let end = max(end?.utc ?? start.utc, start.utc)
        let unit = HealthAutoExportUnits.Resolved(conversion: .to("min"), canonical: ByteText(literal: "minutes"), written: .empty)
        emitter.begin(type: arena.copy(type), start: start.utc, end: end, unit: unit,
                      source: SourceNames(source.map { arena.copy($0) }, arena: arena), offset: start.offset, bucket: nil)
        if let value {
            let typeText = arena.copy(type), valueText = arena.copy(value)
            var category = ByteBuffer(capacity: 64)
            CategoryRules.appendCategory(value: valueText, type: typeText, to: &category)
            emitter.add("category", category.withBytes { arena.copy($0) })
            emitter.add("categoryValue", valueText)
            emitter.setCategory(valueText)
        }
        for (key, text) in metadata { emitter.add(key, arena.copy(text)) }
        try emitter.emit(value: Double(end - start.utc) / 60)
    }
}
