import MCP

/// The tools, with their arguments and results as JSON Schema (docs/mcp.md). The names and
/// arguments are a contract: clients and tests rely on them.
enum ToolCatalog {
    static let tools: [Tool] = [
        tool("overview", "What the store holds: metrics per type with unit, count and date range; sources; workouts, routes, ECGs; the last import and upload.",
             [:], required: [],
             output: ["metrics": .integer, "types": .array, "sources": .array, "workouts": .integer]),
        tool("series", "A type's values per hour, day, week or month in a time zone: the sum for amounts (steps, distance, energy…), the average for the others. iPhone and Watch are merged without double counting.",
             ["type": .string(typeName),
              "bucket": .enumeration(["hour", "day", "week", "month"]),
              "timeZone": .string("IANA name, default UTC"), "start": .date, "end": .date,
              "mergeSources": .boolean("default true")],
             required: ["type", "bucket"],
             output: ["type": .string, "unit": .string, "statistic": .string, "buckets": .array, "truncated": .boolean]),
        tool("compare_periods", "The same statistic of a type over two periods, and the difference (absolute and relative). A period's end date is inclusive; its days are the calendar days in timeZone (a week is 7, clock change or not), and dailyAverage of an amount is its sum over them.",
             ["type": .string(typeName), "first": .period, "second": .period,
              "timeZone": .string("IANA name, default UTC"), "mergeSources": .boolean("default true")],
             required: ["type", "first", "second"],
             output: ["type": .string, "statistic": .string, "first": .object, "second": .object, "difference": .object]),
        tool("sleep", "Minutes in bed, asleep, core, deep, REM and awake per night (a night is named by the evening it began).",
             ["start": .date, "end": .date, "timeZone": .string("IANA name, default UTC")], required: [],
             output: ["nights": .array]),
        tool("workouts", "Workouts with type, start, end, duration (min), distance (km), energy (kcal), average heart rate, whether a route is stored.",
             ["type": .string("activity: running, walking, cycling…"), "start": .date, "end": .date,
              "limit": .integer("default 100, at most 1000")], required: [],
             output: ["workouts": .array, "truncated": .boolean]),
        tool("workout_route", "The GPS route of the workout starting at (or running at) `start`, simplified, as a GeoJSON Feature.",
             ["start": .date, "maxPoints": .integer("default 500, at most 5000")], required: ["start"],
             output: ["found": .boolean]),
        tool("ecg", "ECG recordings with their classification; with recordedAt, the recording made then (a date-time) or every recording of that day (a date, in timeZone), with its voltages (downsampled to maxSamples).",
             ["start": .date, "end": .date, "recordedAt": .date, "timeZone": .string("IANA name, default UTC"),
              "maxSamples": .integer("default 1000, at most 20000")],
             required: [], output: ["recordings": .array]),
        tool("medications", "Medication doses (from the phone's Health Auto Export): per drug, how many were due, taken, skipped and missed (due and not taken), taken as needed, and when last taken; per drug and week (Monday to Sunday in timeZone); and the doses themselves with their status and codings (RxNorm), the latest `limit`.",
             ["start": .date, "end": .date, "name": .string("part of a drug's name, any case"), "timeZone": .string("IANA name, default UTC"),
              "limit": .integer("doses listed, default 100, at most 1000")],
             required: [], output: ["drugs": .array, "weeks": .array, "doses": .array, "truncated": .boolean]),
        tool("records", "Raw samples of a type, oldest first, a page at a time (pass the returned cursor for the next page).",
             ["type": .string(typeName), "start": .date, "end": .date,
              "limit": .integer("default 100, at most 1000"), "cursor": .string("from the previous page")],
             required: ["type"], output: ["records": .array, "truncated": .boolean]),
        tool("sql", "Read-only SQL (SQLite) over the views `metrics` (id, type, start, end, value, unit, source, device, metadata; one row per sample that counts, dates in UTC; repeats and superseded rows are already left out, but every source's samples are there: summing steps counts a walk once per device, use daily for that), `stored_metrics` (the same columns for every stored row, with is_repeat, superseded and origin: why a row does not count; not for counting), `workouts` (id, activity, start, end, minutes, distance_km, energy_kcal, source) and `daily` (type, category, unit, day, weekday 0 = Sunday … 6, weekday_name, count, sum, average, minimum, maximum: one row per type and day in timeZone, iPhone and Watch merged, as series and aggregate give them; sleep is one row per night (day = the evening it began) with category asleep or inBed; for questions per day, weekday or month). One SELECT; at most `limit` rows and 3 seconds.",
             ["query": .string("one SELECT statement"), "limit": .integer("default 1000, at most 10000"),
              "timeZone": .string("IANA name, default UTC: the zone of the daily view's days")],
             required: ["query"], output: ["columns": .array, "rows": .array, "truncated": .boolean]),
    ]

    /// How every tool that takes a sample type describes it (`TypeResolution` resolves it).
    static let typeName = "identifier, short name or everyday name, any case: HKQuantityTypeIdentifierStepCount, stepCount, "
        + "steps, sleep, hr, hrv, weight; an unknown name is refused with the closest names the store holds"

    enum Property {
        case string(String), enumeration([String]), date, period, boolean(String), integer(String)

        var schema: Value {
            switch self {
            case .string(let about): return .object(["type": "string", "description": .string(about)])
            case .enumeration(let cases): return .object(["type": "string", "enum": .array(cases.map { .string($0) })])
            case .date: return .object(["type": "string", "description": "ISO 8601 date (2024-03-01) or date-time (2024-03-01T08:00:00Z)"])
            case .period:
                return .object(["type": "object", "properties": .object(["start": Property.date.schema, "end": Property.date.schema]),
                                "required": ["start", "end"]])
            case .boolean(let about): return .object(["type": "boolean", "description": .string(about)])
            case .integer(let about): return .object(["type": "integer", "description": .string(about)])
            }
        }
    }

    enum Output: String {
        case integer, string, array, boolean, object
        var schema: Value { .object(["type": .string(rawValue)]) }
    }

    static func tool(_ name: String, _ description: String, _ properties: [String: Property], required: [String],
                     output: [String: Output]) -> Tool {
        Tool(name: name, description: description,
             inputSchema: .object(["type": "object", "properties": .object(properties.mapValues(\.schema)),
                                   "required": .array(required.map { .string($0) })]),
             annotations: .init(readOnlyHint: true, openWorldHint: false),
             outputSchema: .object(["type": "object", "properties": .object(output.mapValues(\.schema)),
                                    "required": .array(output.keys.sorted().map { .string($0) })]))
    }
}
