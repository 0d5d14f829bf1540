import CloudSyncModel
/// `sleep_analysis` in its six shapes (docs/mapping.md):
/// - a segment (`startDate`, `endDate`, `value` Core/Deep/REM/Awake/InBed/Asleep): one sample of
///   `HKCategoryTypeIdentifierSleepAnalysis`, as export.xml writes it (the value its duration in
///   minutes, the category and categoryValue in metadata), so that the same segment in both is one;
/// - a summarised night (`sleepStart`…`sleepEnd`, hours per stage): what the phone measured, one
///   sample per stage with time in it, its value the stage's minutes, over the window it was
///   measured in (`inBed` over `inBedStart`…`inBedEnd`). The span is where the night was, not how
///   long: the night's rule reads the minutes (SleepQuery). The night's own total asleep, where the
///   file gives one, is metadata `totalSleep` of each of its samples.
struct SleepMapping {
    let emitter: MetricEmitter
    let unit: HealthAutoExportUnits.Resolved
    let type: ByteText

    func map(_ fields: PointFields, source: SourceNames, cursor: inout JSONCursor) throws -> String? {
        if let value = fields.value {
            return try segment(fields, value: value, source: source, cursor: &cursor)
        }
        let sleep = fields.sleep
        guard sleep.isPresent else { return "neither a segment nor a summarised night" }
        let night = try span(sleep.sleepStart, sleep.sleepEnd, "sleepStart", "sleepEnd", fields, cursor: &cursor)
        let inBedOwn = try span(sleep.inBedStart, sleep.inBedEnd, "inBedStart", "inBedEnd", fields, cursor: &cursor)
        let inBedSpan = inBedOwn ?? night
        // The oldest files give a night only its date: the night then starts there.
        var dated: (LocalDate, Int64)?
        if night == nil, inBedSpan == nil, let date = fields.date {
            let start = try cursor.date(date, "date")
            let hours = max(sleep.inBed ?? 0, sleep.totalSleep ?? 0, sleep.asleep ?? 0, (sleep.core ?? 0) + (sleep.deep ?? 0) + (sleep.rem ?? 0))
            dated = (start, start.utc + Int64((hours * 3600).rounded()))
        }
        guard let night = night ?? inBedSpan ?? dated else { return "no sleepStart, inBedStart or date" }
        let nightSource = sleep.sleepSource.map { SourceNames($0, arena: emitter.arenaForSources) } ?? source
        let measured = SummarisedNight(sleep)
        for stage in measured.stages {
            try write(category: stage.category, value: stage.value, hours: stage.hours, span: night, source: nightSource,
                      totalSleep: measured.totalSleep)
        }
        if let hours = sleep.inBed, hours > 0 {
            let inBedSource = sleep.inBedSource.map { SourceNames($0, arena: emitter.arenaForSources) } ?? source
            try write(category: "inBed", value: "HKCategoryValueSleepAnalysisInBed", hours: hours, span: inBedSpan ?? night,
                      source: inBedSource, totalSleep: measured.totalSleep)
        }
        return nil
    }

    private func write(category: StaticString, value: StaticString, hours: Double, span: (LocalDate, Int64), source: SourceNames,
                       totalSleep: Double?) throws {
        emitter.begin(type: type, start: span.0.utc, end: span.1, unit: unit, source: source, offset: span.0.offset, bucket: "night")
        emitter.add("category", ByteText(literal: category))
        emitter.add("categoryValue", ByteText(literal: value))
        if let totalSleep { emitter.add("totalSleep", number: unit.conversion.apply(totalSleep)) }
        emitter.setCategory(ByteText(literal: value))
        try emitter.emit(value: unit.conversion.apply(hours))
    }

    private func span(_ start: ByteText?, _ end: ByteText?, _ startName: String, _ endName: String, _ fields: PointFields,
                      cursor: inout JSONCursor) throws -> (LocalDate, Int64)? {
        guard let start, let end else { return nil }
        let from = try cursor.date(start, startName), to = try cursor.date(end, endName)
        return to.utc >= from.utc ? (from, to.utc) : nil
    }

    private func segment(_ fields: PointFields, value: ByteText, source: SourceNames, cursor: inout JSONCursor) throws -> String? {
        guard let (category, categoryValue) = Self.stage(value) else { return "sleep value \(value.string) is not a stage" }
        guard let startText = fields.startDate ?? fields.start ?? fields.date else { return "no startDate" }
        let start = try cursor.date(startText, "startDate")
        let end: Int64
        if let endText = fields.endDate ?? fields.end {
            end = try cursor.date(endText, "endDate").utc
        } else if let hours = fields.qty {
            end = start.utc + Int64((hours * 3600).rounded())
        } else {
            return "no endDate"
        }
        guard end >= start.utc else { return "end before start" }
        emitter.begin(type: type, start: start.utc, end: end, unit: unit, source: source, offset: start.offset, bucket: nil)
        emitter.add("category", ByteText(literal: category))
        emitter.add("categoryValue", ByteText(literal: categoryValue))
        emitter.setCategory(ByteText(literal: categoryValue))
        // As export.xml's category samples: the value is the duration.
        try emitter.emit(value: Double(end - start.utc) / 60)
        return nil
    }

    static func stage(_ value: ByteText) -> (StaticString, StaticString)? {
        if value.equals("Core") { return ("core", "HKCategoryValueSleepAnalysisAsleepCore") }
        if value.equals("Deep") { return ("deep", "HKCategoryValueSleepAnalysisAsleepDeep") }
        if value.equals("REM") { return ("rem", "HKCategoryValueSleepAnalysisAsleepREM") }
        if value.equals("Awake") { return ("awake", "HKCategoryValueSleepAnalysisAwake") }
        if value.equals("InBed") || value.equals("In Bed") { return ("inBed", "HKCategoryValueSleepAnalysisInBed") }
        if value.equals("Asleep") || value.equals("Unspecified") { return ("asleep", "HKCategoryValueSleepAnalysisAsleepUnspecified") }
        return nil
    }
}
