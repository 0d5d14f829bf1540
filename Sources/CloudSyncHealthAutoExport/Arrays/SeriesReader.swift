import CloudSyncModel
/// A series of points that belongs to a workout (`heartRateData`, `heartRateRecovery`,
/// `activeEnergy`, `stepCount`, `walkingAndRunningDistance`, …) or to a heart-rate notification
/// (`heartRateData`, and the documented `heartRate` and `heartRateVariation`), as a `SampleSeries`:
/// each point's moment and value in the canonical unit of the samples' HealthKit type. Points come
/// as `{date, qty, units, source}`, `{date, Min, Avg, Max, units, source}` (the value is `Avg`), or
/// `{hr|hrv, units, timestamp: {start, end}}`; a date is the app's text or seconds.
enum SeriesReader {
    /// The HealthKit type of each series name.
    static let types: [String: String] = [
        "heartRateData": "HKQuantityTypeIdentifierHeartRate", "heartRateRecovery": "HKQuantityTypeIdentifierHeartRate",
        "heartRate": "HKQuantityTypeIdentifierHeartRate", "heartRateVariation": "HKQuantityTypeIdentifierHeartRateVariabilitySDNN",
        "activeEnergy": "HKQuantityTypeIdentifierActiveEnergyBurned", "basalEnergy": "HKQuantityTypeIdentifierBasalEnergyBurned",
        "stepCount": "HKQuantityTypeIdentifierStepCount", "walkingAndRunningDistance": "HKQuantityTypeIdentifierDistanceWalkingRunning",
        "cyclingDistance": "HKQuantityTypeIdentifierDistanceCycling", "cyclingCadence": "HKQuantityTypeIdentifierCyclingCadence",
        "cyclingPower": "HKQuantityTypeIdentifierCyclingPower", "cyclingSpeed": "HKQuantityTypeIdentifierCyclingSpeed",
        "swimDistance": "HKQuantityTypeIdentifierDistanceSwimming", "swimStroke": "HKQuantityTypeIdentifierSwimmingStrokeCount",
    ]

    /// The unit of a type's points that name none.
    static let usualUnits = ["HKQuantityTypeIdentifierHeartRate": "count/min", "HKQuantityTypeIdentifierHeartRateVariabilitySDNN": "ms"]

    /// The owner: what the series belongs to.
    struct Owner {
        var kind: String
        var name: String?
        var start: Int64
        var end: Int64
    }

    /// Reads the array at the cursor; nil when it has no point.
    static func read(_ cursor: inout JSONCursor, name: String, owner: Owner) throws -> SampleSeries? {
        let type = types[name]
        var points: [SampleSeries.Point] = []
        var source: String?, unit: String?
        if try cursor.null() { return nil }
        try cursor.array { cursor, _ in
            var time: LocalDate?, value: Double?, minimum: Double?, maximum: Double?, written: String?
            try cursor.object { cursor, key in
                switch key.string {
                case "date", "start": time = try cursor.instant("date")
                case "qty", "Avg", "hr", "hrv", "value": value = try cursor.looseNumber()
                case "Min": minimum = try cursor.looseNumber()
                case "Max": maximum = try cursor.looseNumber()
                case "units", "unit": written = try cursor.text()
                case "source":
                    let named = try cursor.sourceName()
                    if source == nil { source = named }
                case "timestamp":
                    try cursor.object { cursor, key in
                        if key.equals("start") { time = try cursor.instant("timestamp.start") } else { try cursor.skipValue() }
                    }
                default: try cursor.skipValue()
                }
            }
            guard let time else { throw cursor.shape("a point of \(name) without date") }
            guard let value = value ?? minimum.flatMap({ min in maximum.map { (min + $0) / 2 } }) else {
                throw cursor.shape("a point of \(name) without qty or Avg")
            }
            // A point without units (a notification's heart rates) is in its type's usual unit.
            let units = written ?? type.flatMap { Self.usualUnits[$0] }
            let conversion = units.map { HealthAutoExportUnits.conversion(units: $0, type: type ?? "") } ?? .keep
            if unit == nil { unit = conversion.canonicalUnit?.description ?? units }
            let isBucket = minimum != nil && maximum != nil && minimum != maximum
            points.append(.init(time: time.utc, value: conversion.apply(value), minimum: isBucket ? minimum.map(conversion.apply) : nil,
                                maximum: isBucket ? maximum.map(conversion.apply) : nil))
        }
        guard !points.isEmpty else { return nil }
        return SampleSeries(owner: owner.kind, ownerName: owner.name, ownerStart: owner.start, ownerEnd: owner.end, name: name, type: type,
                            unit: unit, source: source, points: points)
    }
}
