import CloudSyncModel
/// Maps one entry of `metrics[]` (`{"name","units","data":[…]}`) to metrics. Its members come in
/// any order, so the data array is kept as bytes until the object is read, then read twice: once
/// for the dates (whether date-only points are buckets, when no header said so), once to map.
struct MetricArrayReader {
    let emitter: MetricEmitter
    let names: NamePool
    let arena: TextArena
    /// From the push's `automation-aggregation` header.
    let aggregation: Aggregation?

    func read(_ cursor: inout JSONCursor, report: inout HealthAutoExportReport) throws {
        var name: String?, units: String?
        var data: (bytes: ByteText, offset: Int, path: JSONPath)?
        try cursor.object { cursor, key in
            if key.equals("name") {
                name = try cursor.string().string
            } else if key.equals("units") {
                units = try cursor.optionalString()?.string
            } else if key.equals("data") {
                cursor.skipWhitespace()
                let offset = cursor.position, path = cursor.path
                data = (try cursor.captureValue(), offset, path)
            } else {
                try cursor.skipValue()
            }
        }
        guard let name, !name.isEmpty else { throw cursor.shape("a metric without a name") }
        guard let data else { throw cursor.shape("metric \(name) has no data array") }
        var points = JSONCursor(bytes: data.bytes, input: cursor.input, arena: arena, baseOffset: data.offset, path: data.path)
        let plan = try plan(name: name, units: units ?? "", points: &points)
        var counts = report.metrics[name] ?? HealthAutoExportReport.NameCount(units: units ?? "")
        if plan.entry == nil { report.unmapped.insert(name) }
        points = JSONCursor(bytes: data.bytes, input: cursor.input, arena: arena, baseOffset: data.offset, path: data.path)
        var skipped: [String: Int] = [:]
        try points.array { cursor, _ in
            arena.reset()
            let fields = try PointFields.read(&cursor)
            counts.points += 1
            let before = emitter.written
            if let reason = try map(fields, plan, &cursor) {
                skipped[reason, default: 0] += 1
            } else if plan.isSummary(fields) {
                counts.summarised += 1
            }
            counts.samples += emitter.written - before
        }
        try points.expectEnd()
        for (reason, count) in skipped { report.notKept(name, count, reason) }
        report.metrics[name] = counts
    }

    /// What is known of a metric before its points are mapped.
    struct Plan {
        var name: String
        var entry: HealthAutoExportNames.Entry?
        var type: ByteText
        var unit: HealthAutoExportUnits.Resolved
        /// The buckets of date-only points (nil: they are individual samples at an instant).
        var aggregation: Aggregation?

        func isSummary(_ fields: PointFields) -> Bool {
            if entry?.shape == .sleep { return fields.sleep.isPresent }
            return fields.start == nil && fields.startDate == nil && aggregation != nil
        }
    }

    private func plan(name: String, units: String, points: inout JSONCursor) throws -> Plan {
        let entry = HealthAutoExportNames.entry(name)
        let typeName = entry.map { $0.type.description } ?? name
        let conversion: UnitConversion
        var canonical: ByteText
        switch entry?.shape {
        case .categoryDuration?, .sleep?:
            conversion = HealthAutoExportUnits.minutes(units: units)
            canonical = ByteText(literal: "minutes")   // the unit export.xml's category samples get
        case .standHours?:
            conversion = .to("count")
            canonical = ByteText(literal: "count")
        default:
            conversion = entry == nil ? .unrecognised : HealthAutoExportUnits.conversion(units: units, type: typeName)
            canonical = conversion.canonicalUnit.map { ByteText(literal: $0) } ?? names.text(units)
        }
        if entry?.shape == .bloodPressure, conversion.canonicalUnit == nil { canonical = names.text(units) }
        var aggregation = self.aggregation
        if aggregation == nil, entry?.shape != .sleep {
            // The dates of the date-only points tell whether they are buckets. An array of
            // individual samples (its first point has start/end) is not read twice, and the reading
            // stops at the first date off the hour: that array holds no buckets.
            var dates: [LocalDate] = []
            var individual = false
            try points.array { cursor, index in
                if individual {
                    try cursor.skipValue()
                    return
                }
                arena.reset()
                let fields = try PointFields.read(&cursor)
                if fields.start != nil || fields.startDate != nil {
                    individual = index == 0
                } else if let date = fields.date {
                    let local = try cursor.date(date, "date")
                    if local.secondOfDay % 3600 != 0 { individual = true }
                    dates.append(local)
                }
            }
            aggregation = individual ? nil : Aggregation.inferred(from: dates)
        }
        return Plan(name: name, entry: entry, type: names.text(typeName),
                    unit: .init(conversion: conversion, canonical: canonical, written: names.text(units)), aggregation: aggregation)
    }

    /// Writes the samples of one point; returns why it was not kept, if it was not.
    private func map(_ fields: PointFields, _ plan: Plan, _ cursor: inout JSONCursor) throws -> String? {
        let source = SourceNames(fields.source, arena: arena)
        if plan.entry?.shape == .sleep {
            return try SleepMapping(emitter: emitter, unit: plan.unit, type: plan.type).map(fields, source: source, cursor: &cursor)
        }
        // The interval: start/end (individual samples), else the bucket of a summarised point, else an instant.
        let start: LocalDate, end: Int64
        var bucket: String?
        if let startText = fields.start ?? fields.startDate {
            start = try cursor.date(startText, fields.start != nil ? "start" : "startDate")
            let endText = fields.end ?? fields.endDate ?? startText
            end = try cursor.date(endText, fields.end != nil ? "end" : "endDate").utc
            guard end >= start.utc else { return "end before start" }
        } else if let dateText = fields.date {
            start = try cursor.date(dateText, "date")
            if let aggregation = plan.aggregation, aggregation.isAligned(start) {
                end = aggregation.end(of: start)
                bucket = aggregation.rawValue
            } else {
                end = start.utc
            }
        } else {
            return "no date"
        }
        let convert = plan.unit.conversion
        emitter.begin(type: plan.type, start: start.utc, end: end, unit: plan.unit, source: source, offset: start.offset, bucket: bucket)
        switch plan.entry?.shape {
        case .heartRate?:
            guard let value = fields.average ?? fields.qty ?? fields.maximum ?? fields.minimum else { return "no Avg or qty" }
            if let minimum = fields.minimum, let maximum = fields.maximum, minimum != maximum || bucket != nil {
                emitter.add("minimum", number: convert.apply(minimum))
                emitter.add("maximum", number: convert.apply(maximum))
            }
            if let context = fields.context, let motion = Self.motionContext(context) {
                emitter.add("HKMetadataKeyHeartRateMotionContext", ByteText(literal: motion))
            }
            try emitter.emit(value: convert.apply(value))
        case .bloodPressure?:
            guard fields.systolic != nil || fields.diastolic != nil else { return "no systolic or diastolic" }
            if let systolic = fields.systolic {
                try emitter.emit(type: ByteText(literal: "HKQuantityTypeIdentifierBloodPressureSystolic"), value: convert.apply(systolic))
            }
            if let diastolic = fields.diastolic {
                try emitter.emit(type: ByteText(literal: "HKQuantityTypeIdentifierBloodPressureDiastolic"), value: convert.apply(diastolic))
            }
        default:
            guard let value = fields.qty ?? fields.average else { return "no qty" }
            try emitter.emit(value: convert.apply(value))
        }
        return nil
    }

    /// HealthKit's `HKHeartRateMotionContext` raw values, as export.xml writes them.
    static func motionContext(_ context: ByteText) -> StaticString? {
        if context.equals("Sedentary") { return "1" }
        if context.equals("Active") { return "2" }
        if context.equals("Not Set") { return "0" }
        return nil
    }
}
