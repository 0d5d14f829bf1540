import CloudSyncModel
/// The members of one data point that the mapping reads, as views (of the input, or of the arena
/// for escaped strings), valid until the next point. Key order is random in real files, so a point
/// is read whole before it is mapped.
struct PointFields {
    var date, start, end, startDate, endDate: ByteText?
    var qty, minimum, average, maximum, systolic, diastolic: Double?
    var source: ByteText?
    var units: ByteText?
    /// Sleep segments: Core, Deep, REM, Awake, InBed, Asleep.
    var value: ByteText?
    /// Heart rate: Active, Sedentary, Not Set.
    var context: ByteText?
    var sleep = SleepFields()

    struct SleepFields {
        var totalSleep, asleep, core, deep, rem, awake, inBed: Double?
        var sleepStart, sleepEnd, inBedStart, inBedEnd: ByteText?
        var sleepSource, inBedSource: ByteText?
        var isPresent: Bool { sleepStart != nil || inBedStart != nil || totalSleep != nil || asleep != nil || inBed != nil }
    }

    /// Reads the point object at the cursor. Members of no interest are checked and skipped; a
    /// member of interest with the wrong JSON type is a shape error at its path.
    static func read(_ cursor: inout JSONCursor) throws -> PointFields {
        var fields = PointFields()
        try cursor.object { cursor, key in
            switch key.count {
            case 3:
                if key.equals("qty") { fields.qty = try cursor.optionalNumber(); return }
                if key.equals("Min") { fields.minimum = try cursor.optionalNumber(); return }
                if key.equals("Avg") { fields.average = try cursor.optionalNumber(); return }
                if key.equals("Max") { fields.maximum = try cursor.optionalNumber(); return }
                if key.equals("end") { fields.end = try cursor.optionalString(); return }
                if key.equals("rem") { fields.sleep.rem = try cursor.optionalNumber(); return }
            case 4:
                if key.equals("date") { fields.date = try cursor.optionalString(); return }
                if key.equals("core") { fields.sleep.core = try cursor.optionalNumber(); return }
                if key.equals("deep") { fields.sleep.deep = try cursor.optionalNumber(); return }
            case 5:
                if key.equals("start") { fields.start = try cursor.optionalString(); return }
                if key.equals("value") { fields.value = try cursor.optionalString(); return }
                if key.equals("units") { fields.units = try cursor.optionalString(); return }
                if key.equals("awake") { fields.sleep.awake = try cursor.optionalNumber(); return }
                if key.equals("inBed") { fields.sleep.inBed = try cursor.optionalNumber(); return }
            case 6:
                if key.equals("source") { fields.source = try cursor.optionalString(); return }
                if key.equals("asleep") { fields.sleep.asleep = try cursor.optionalNumber(); return }
            case 7:
                if key.equals("endDate") { fields.endDate = try cursor.optionalString(); return }
                if key.equals("context") { fields.context = try cursor.optionalString(); return }
            case 8:
                if key.equals("systolic") { fields.systolic = try cursor.optionalNumber(); return }
                if key.equals("sleepEnd") { fields.sleep.sleepEnd = try cursor.optionalString(); return }
                if key.equals("inBedEnd") { fields.sleep.inBedEnd = try cursor.optionalString(); return }
            case 9:
                if key.equals("startDate") { fields.startDate = try cursor.optionalString(); return }
                if key.equals("diastolic") { fields.diastolic = try cursor.optionalNumber(); return }
            case 10:
                if key.equals("totalSleep") { fields.sleep.totalSleep = try cursor.optionalNumber(); return }
                if key.equals("sleepStart") { fields.sleep.sleepStart = try cursor.optionalString(); return }
                if key.equals("inBedStart") { fields.sleep.inBedStart = try cursor.optionalString(); return }
            case 11:
                if key.equals("sleepSource") { fields.sleep.sleepSource = try cursor.optionalString(); return }
                if key.equals("inBedSource") { fields.sleep.inBedSource = try cursor.optionalString(); return }
            default: break
            }
            try cursor.skipValue()
        }
        return fields
    }
}

extension JSONCursor {
    /// A number, or nil for `null`.
    mutating func optionalNumber() throws -> Double? {
        if try null() { return nil }
        return try number()
    }

    /// A string, or nil for `null`.
    mutating func optionalString() throws -> ByteText? {
        if try null() { return nil }
        return try string()
    }

    /// A date as the app writes it (`2024-02-06 14:30:00 -0800`): the instant and the offset.
    func date(_ text: ByteText, _ member: String) throws -> LocalDate {
        guard let seconds = ExportDateParser.epochSeconds(text), let offset = ExportDateParser.writtenOffsetSeconds(text) else {
            throw shape("\(member) \"\(text.string)\" is not a date like 2024-02-06 14:30:00 -0800")
        }
        return LocalDate(utc: seconds, offset: offset)
    }
}

/// An instant and the UTC offset it was written with (the sample's time zone).
struct LocalDate: Equatable {
    var utc: Int64
    var offset: Int64
    /// Seconds since the local midnight.
    var secondOfDay: Int64 { ((utc + offset) % 86_400 + 86_400) % 86_400 }
}
