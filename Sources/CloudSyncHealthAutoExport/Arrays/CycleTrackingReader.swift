import CloudSyncModel
/// One item of `cycleTracking[]` (`start`, `end`, `name`, `value`, `isCycleStart`, `units`): the
/// sample export.xml writes for it. Menstrual flow, cervical mucus, ovulation, pregnancy and
/// progesterone tests, contraceptives, sexual activity, spotting, pregnancy, lactation and the
/// cycle deviations are category samples (`HKMenstrualCycleStart` on a flow that starts a cycle,
/// `HKSexualActivityProtectionUsed` from "Protection Used"); basal body temperature is a quantity.
/// A name not known is kept under its own name and said (`unmapped`).
struct CycleTrackingReader {
    let samples: CategorySamples
    let emitter: MetricEmitter
    let arena: TextArena

    func read(_ cursor: inout JSONCursor, report: inout HealthAutoExportReport) throws {
        var name: String?, value: String?, units: String?, source: String?, isCycleStart: Bool?
        var number: Double?
        var start: LocalDate?, end: LocalDate?
        try cursor.object { cursor, key in
            switch key.string {
            case "name", "type": name = try cursor.text()?.trimmingSpaces
            case "value", "qty":
                if try cursor.peekKind() == .number { number = try cursor.number() } else { value = try cursor.text() }
            case "units", "unit": units = try cursor.text()
            case "start", "date": start = try cursor.instant("start")
            case "end": end = try cursor.instant("end")
            case "source": source = try cursor.sourceName()
            case "isCycleStart": isCycleStart = try cursor.looseBool()
            default: try cursor.skipValue()
            }
        }
        guard let name, !name.isEmpty else { throw cursor.shape("a cycle-tracking sample without name") }
        guard let start else { throw cursor.shape("cycle-tracking sample \(name) has no start") }
        let folded = AppCategories.folded(name)
        if folded.contains("basalbodytemperature") || folded == "bbt" {
            try temperature(number ?? value.flatMap { Double($0.trimmingSpaces) }, units: units, start: start, end: end, source: source)
            return
        }
        // "Cycle Irregularities": the deviation is named in the value.
        var cycleType = AppCategories.cycleTypes[folded]
        var written = value ?? number.map(NumberFormatting.string)
        if folded == AppCategories.cycleIrregularities, let deviation = written.flatMap({ AppCategories.cycleTypes[AppCategories.folded($0)] }) {
            cycleType = deviation
            written = nil
        }
        guard let cycleType else {
            report.unmapped.insert("cycleTracking: \(name)")
            try samples.write(type: name, value: written, start: start, end: end, source: source, metadata: [])
            return
        }
        var metadata: [(key: StaticString, value: String)] = []
        if cycleType.type == "HKCategoryTypeIdentifierMenstrualFlow" { metadata.append(("HKMenstrualCycleStart", isCycleStart == true ? "1" : "0")) }
        if cycleType.type == "HKCategoryTypeIdentifierSexualActivity", let written {
            let protection = AppCategories.folded(written)
            if protection == "protectionused" { metadata.append(("HKSexualActivityProtectionUsed", "1")) }
            if protection == "protectionnotused" { metadata.append(("HKSexualActivityProtectionUsed", "0")) }
        }
        let categoryValue = AppCategories.cycleValue(cycleType, written: written) ?? written
        try samples.write(type: cycleType.type, value: categoryValue, start: start, end: end, source: source, metadata: metadata)
    }

    /// Basal body temperature in `degC`: in the unit written, else by its size (a body is 35–42 °C,
    /// 95–108 °F).
    private func temperature(_ value: Double?, units: String?, start: LocalDate, end: LocalDate?, source: String?) throws {
        guard let value else { return }
        let written = units ?? (value > 50 ? "degF" : "degC")
        let type = "HKQuantityTypeIdentifierBasalBodyTemperature"
        let conversion = HealthAutoExportUnits.conversion(units: written, type: type)
        let canonical = conversion.canonicalUnit.map { ByteText(literal: $0) } ?? arena.copy(written)
        emitter.begin(type: ByteText(literal: "HKQuantityTypeIdentifierBasalBodyTemperature"), start: start.utc,
                      end: max(end?.utc ?? start.utc, start.utc), unit: .init(conversion: conversion, canonical: canonical, written: arena.copy(written)),
                      source: SourceNames(source.map { arena.copy($0) }, arena: arena), offset: start.offset, bucket: nil)
        try emitter.emit(value: conversion.apply(value))
    }
}
