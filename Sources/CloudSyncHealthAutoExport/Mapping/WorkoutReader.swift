import CloudSyncModel
/// One entry of `workouts[]`, in either version of the app's format (docs/mapping.md): the same
/// record as export.xml's workout (a metric of type `workout`, its duration in minutes, its
/// statistics in metadata), when it has one its route as a `Route`, and its series
/// (`heartRateData`, `heartRateRecovery`, `stepCount` as an array, …) as `SampleSeries` kept with it:
/// in a summarised file they exist nowhere else. The store drops a series only when the same
/// samples are in it (`SampleSeriesKind`).
struct WorkoutReader {
    let emitter: MetricEmitter
    let arena: TextArena
    let names: NamePool

    /// A quantity written as `{"qty": 3.2, "units": "km"}`.
    struct Quantity { var qty: Double; var units: String }

    private struct Fields {
        var id, name, location: String?
        var start, end: ByteText?
        var duration: Double?
        var isIndoor: Bool?
        var quantities: [String: Quantity] = [:]
        var heartRate: (minimum: Double?, average: Double?, maximum: Double?)
        var elevationAscent: Quantity?
        var route: [RoutePoint] = []
        /// The series' arrays, read once the workout's span is known (members come in any order).
        var series: [(name: String, bytes: ByteText, offset: Int, path: JSONPath)] = []
    }

    func read(_ cursor: inout JSONCursor, report: inout HealthAutoExportReport, routes: any RecordSink,
              series: inout [SampleSeries]) throws {
        arena.reset()
        var fields = Fields()
        try cursor.object { cursor, key in
            let name = key.string
            switch name {
            case "id": fields.id = try cursor.optionalString()?.string
            case "name": fields.name = try cursor.optionalString()?.string
            case "location": fields.location = try cursor.optionalString()?.string
            case "start": fields.start = try cursor.optionalString().map { arena.copy($0) }
            case "end": fields.end = try cursor.optionalString().map { arena.copy($0) }
            case "duration": fields.duration = try cursor.optionalNumber()
            case "isIndoor": fields.isIndoor = try cursor.null() ? nil : try cursor.bool()
            case "heartRate":
                try cursor.object { cursor, key in
                    let value = try Self.quantity(&cursor)?.qty
                    if key.equals("min") { fields.heartRate.minimum = value }
                    if key.equals("avg") { fields.heartRate.average = value }
                    if key.equals("max") { fields.heartRate.maximum = value }
                }
            case "elevation":
                var ascent: Double?, units = "m"
                try cursor.object { cursor, key in
                    if key.equals("ascent") { ascent = try cursor.optionalNumber() } else if key.equals("units") {
                        units = try cursor.optionalString()?.string ?? units
                    } else { try cursor.skipValue() }
                }
                if let ascent { fields.elevationAscent = Quantity(qty: ascent, units: units) }
            case "route":
                try cursor.array { cursor, _ in fields.route.append(try Self.routePoint(&cursor)) }
            default:
                switch try cursor.peekKind() {
                case .object:
                    if let quantity = try Self.quantity(&cursor) { fields.quantities[name] = quantity }
                case .array:
                    let offset = cursor.baseOffset + cursor.position, path = cursor.path
                    fields.series.append((name, try cursor.captureValue(), offset, path))
                default:
                    try cursor.skipValue()
                }
            }
        }
        guard let startText = fields.start else { throw cursor.shape("a workout without start") }
        let start = try cursor.date(startText, "start")
        let end = try fields.end.map { try cursor.date($0, "end").utc } ?? start.utc + Int64(fields.duration ?? 0)
        guard end >= start.utc else { throw cursor.shape("the workout ends before it starts") }
        let activity = WorkoutActivity.type(named: fields.name)
        let unit = HealthAutoExportUnits.Resolved(conversion: .to("min"), canonical: ByteText(literal: "min"), written: .empty)
        emitter.begin(type: ByteText(literal: "workout"), start: start.utc, end: end, unit: unit,
                      source: SourceNames(nil, arena: arena), offset: start.offset, bucket: nil)
        emitter.add("activityType", arena.copy(activity))
        if let name = fields.name { emitter.add("workoutName", arena.copy(name)) }
        if let id = fields.id { emitter.add("HKExternalUUID", arena.copy(id)) }
        if let location = fields.location { emitter.add("location", arena.copy(location)) }
        if let indoor = fields.isIndoor { emitter.add("HKIndoorWorkout", ByteText(literal: indoor ? "1" : "0")) }
        if let km = convert(fields.quantities["distance"], type: "Distance", to: "km") { emitter.add("totalDistanceKm", number: km) }
        let energy = fields.quantities["activeEnergyBurned"] ?? fields.quantities["activeEnergy"]
        if let kcal = convert(energy, type: "", to: "kcal") { emitter.add("totalEnergyKcal", number: kcal) }
        let average = fields.heartRate.average ?? fields.quantities["avgHeartRate"]?.qty
        let maximum = fields.heartRate.maximum ?? fields.quantities["maxHeartRate"]?.qty
        if let average { emitter.add("heartRateAverage", number: average) }
        if let minimum = fields.heartRate.minimum { emitter.add("heartRateMinimum", number: minimum) }
        if let maximum { emitter.add("heartRateMaximum", number: maximum) }
        let ascent = fields.quantities["elevationUp"] ?? fields.elevationAscent
        if let cm = convert(ascent, type: "", to: "cm") { emitter.add("elevationAscendedM", number: cm / 100) }
        if let degC = convert(fields.quantities["temperature"], type: "", to: "degC") { emitter.add("temperatureDegC", number: degC) }
        if let humidity = fields.quantities["humidity"] { emitter.add("humidityPercent", number: humidity.qty) }
        if let steps = fields.quantities["stepCount"] { emitter.add("stepCount", number: steps.qty) }
        if !fields.route.isEmpty { emitter.add("routePointCount", number: Double(fields.route.count)) }
        let minutes = fields.duration.map { $0 / 60 } ?? Double(end - start.utc) / 60
        try emitter.emit(value: NumberFormatting.roundedAfterConversion(minutes))
        report.workouts += 1
        let owner = SeriesReader.Owner(kind: "workout", name: activity, start: start.utc, end: end)
        for array in fields.series {
            var points = JSONCursor(bytes: array.bytes, input: cursor.input, arena: arena, baseOffset: array.offset, path: array.path)
            if let one = try SeriesReader.read(&points, name: array.name, owner: owner) { series.append(one) }
        }
        if !fields.route.isEmpty {
            let route = Route(file: nil, workoutType: activity, workoutStart: start.utc, workoutEnd: end, points: fields.route)
            try routes.write(route, as: RouteKind.self)
            report.records[RouteKind.name, default: RecordCount()].add(route, of: RouteKind.self)
            report.routes += 1
            report.routePoints += fields.route.count
        }
    }

    /// A quantity in the canonical unit `to` (nil when the unit is not one of that dimension).
    private func convert(_ quantity: Quantity?, type: String, to unit: String) -> Double? {
        guard let quantity else { return nil }
        let conversion = HealthAutoExportUnits.conversion(units: quantity.units, type: type)
        guard conversion.canonicalUnit?.description == unit else { return nil }
        return conversion.apply(quantity.qty)
    }

    /// `{"qty", "units"}`; nil when it has no `qty` (another object: `metadata`).
    static func quantity(_ cursor: inout JSONCursor) throws -> Quantity? {
        var qty: Double?, units = ""
        try cursor.object { cursor, key in
            if key.equals("qty") { qty = try cursor.optionalNumber() } else if key.equals("units") {
                units = try cursor.optionalString()?.string ?? ""
            } else { try cursor.skipValue() }
        }
        return qty.map { Quantity(qty: $0, units: units) }
    }

    static func routePoint(_ cursor: inout JSONCursor) throws -> RoutePoint {
        var point = RoutePoint(time: nil, latitude: .nan, longitude: .nan)
        try cursor.object { cursor, key in
            switch key.string {
            case "latitude": point.latitude = try cursor.number()
            case "longitude": point.longitude = try cursor.number()
            case "altitude": point.elevation = try cursor.optionalNumber()
            case "speed": point.speed = try cursor.optionalNumber()
            case "course": point.course = try cursor.optionalNumber()
            case "horizontalAccuracy": point.horizontalAccuracy = try cursor.optionalNumber()
            case "verticalAccuracy": point.verticalAccuracy = try cursor.optionalNumber()
            case "timestamp": if let text = try cursor.optionalString() { point.time = try cursor.date(text, "timestamp").utc }
            default: try cursor.skipValue()
            }
        }
        guard point.latitude.isFinite, point.longitude.isFinite else { throw cursor.shape("a route point without latitude and longitude") }
        return point
    }
}

/// The app's workout names (English; others are localised and kept as `workoutName` only) as
/// export.xml's activity types, lower camel case (`HKWorkoutActivityTypeRunning` → `running`).
enum WorkoutActivity {
    static func type(named name: String?) -> String {
        guard let name else { return "other" }
        let lower = name.lowercased()
        if let exact = table[lower] { return exact }
        for (word, type) in keywords where lower.contains(word) { return type }
        return "other"
    }

    static let table: [String: String] = [
        "hiit": "highIntensityIntervalTraining", "high intensity interval training": "highIntensityIntervalTraining",
        "traditional strength training": "traditionalStrengthTraining", "functional strength training": "functionalStrengthTraining",
        "core training": "coreTraining", "elliptical": "elliptical", "rower": "rowing", "rowing": "rowing",
        "stair stepper": "stairClimbing", "stairs": "stairs", "yoga": "yoga", "pilates": "pilates", "dance": "dance",
        "cooldown": "cooldown", "mind and body": "mindAndBody", "mixed cardio": "mixedCardio", "tennis": "tennis",
        "soccer": "soccer", "basketball": "basketball", "golf": "golf", "boxing": "boxing", "climbing": "climbing",
        "pickleball": "pickleball", "cross training": "crossTraining", "other": "other",
    ]

    static let keywords: [(String, String)] = [
        ("run", "running"), ("walk", "walking"), ("cycl", "cycling"), ("bik", "cycling"), ("swim", "swimming"),
        ("hik", "hiking"), ("跑", "running"), ("走", "walking"), ("骑", "cycling"), ("游泳", "swimming"),
    ]
}
