import CloudSyncModel
/// One item of `heartRateNotifications[]`: the event export.xml writes as a category record
/// (`HKCategoryTypeIdentifierHighHeartRateEvent`, `…LowHeartRateEvent`, `…IrregularHeartRhythmEvent`,
/// metadata `HKHeartRateEventThreshold` `120 count/min`), and the heart rates the app sends with it
/// as a series kept with the event (`SampleSeries`, owner `heartRateNotification`). Real files name
/// the kind (`heartNotification`: `high_heart_rate_notification`) and give `heartRateData`; the
/// documentation gives `heartRate` and `heartRateVariation` and no kind, which a threshold above the
/// heart rates then tells (a high notification's rates are above it).
struct HeartRateNotificationsReader {
    let samples: CategorySamples

    func read(_ cursor: inout JSONCursor, series: inout [SampleSeries]) throws {
        var kind: String?, threshold: Double?, source: String?
        var start: LocalDate?, end: LocalDate?
        var arrays: [(name: String, bytes: ByteText, offset: Int, path: JSONPath)] = []
        try cursor.object { cursor, key in
            switch key.string {
            case "heartNotification", "kind", "type": kind = try cursor.text()
            case "threshold": threshold = try cursor.looseNumber()
            case "start", "date": start = try cursor.instant("start")
            case "end": end = try cursor.instant("end")
            case "source": source = try cursor.sourceName()
            case let name:
                guard try cursor.peekKind() == .array else { return try cursor.skipValue() }
                // Read once the event's span is known (members come in any order).
                let offset = cursor.baseOffset + cursor.position, path = cursor.path
                arrays.append((name, try cursor.captureValue(), offset, path))
            }
        }
        guard let start else { throw cursor.shape("a heart-rate notification without start") }
        let owner = SeriesReader.Owner(kind: "heartRateNotification", name: kind, start: start.utc, end: max(end?.utc ?? start.utc, start.utc))
        var read: [SampleSeries] = []
        for array in arrays {
            var points = JSONCursor(bytes: array.bytes, input: cursor.input, arena: cursor.arena, baseOffset: array.offset, path: array.path)
            if let one = try SeriesReader.read(&points, name: array.name, owner: owner) { read.append(one) }
        }
        let rates = read.filter { $0.type == "HKQuantityTypeIdentifierHeartRate" }.flatMap(\.points).map(\.value)
        let type = Self.type(kind: kind, threshold: threshold, rates: rates)
        var metadata: [(key: StaticString, value: String)] = []
        if let threshold { metadata.append(("HKHeartRateEventThreshold", NumberFormatting.string(threshold) + " count/min")) }
        try samples.write(type: type, value: type.hasSuffix("IrregularHeartRhythmEvent") ? nil : "HKCategoryValueNotApplicable",
                          start: start, end: end, source: source, metadata: metadata)
        series.append(contentsOf: read)
    }

    static func type(kind: String?, threshold: Double?, rates: [Double]) -> String {
        let folded = kind.map(AppCategories.folded) ?? ""
        if folded.contains("irregular") { return "HKCategoryTypeIdentifierIrregularHeartRhythmEvent" }
        if folded.contains("low") { return "HKCategoryTypeIdentifierLowHeartRateEvent" }
        if folded.contains("high") { return "HKCategoryTypeIdentifierHighHeartRateEvent" }
        if let threshold, !rates.isEmpty {
            return rates.reduce(0, +) / Double(rates.count) < threshold ? "HKCategoryTypeIdentifierLowHeartRateEvent"
                : "HKCategoryTypeIdentifierHighHeartRateEvent"
        }
        return threshold == nil ? "HKCategoryTypeIdentifierIrregularHeartRhythmEvent" : "HKCategoryTypeIdentifierHighHeartRateEvent"
    }
}
