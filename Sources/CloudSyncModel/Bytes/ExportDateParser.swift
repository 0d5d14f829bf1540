public import Foundation

/// Dates as export.xml writes them, parsed from bytes: `2024-10-25 07:05:11 -0500`.
///
/// The file writes the phone's wall-clock time with a numeric offset; only the instant matters, so
/// the result is seconds since 1970 UTC. `DateFormatter` costs about 2 µs a call and a real export
/// holds ~15 million dates, so this is a fixed-layout byte parser instead. Also accepted, because
/// users pass them to `--since`: `T` instead of the space, no space before the offset, `Z`, and
/// `±hh:mm` offsets. Exports written by iOS 8 (2014–2015) write the compact form
/// `20141018163200+0100`, read by the same rules.
public enum ExportDateParser {
    /// An ISO 8601 date with its `T` as the servers and uploaders write them: `2024-05-01T08:00:00Z`
    /// (CloudCare), `2025-05-11T16:27:22.000Z` (Flō, steps, a server's backfill window), or with an
    /// offset (`+02:00`). A fraction of a second is dropped: the store's dates, like the export's,
    /// are whole seconds, and the contracts send `.000`.
    /// Read in the string's own bytes (the receiver reads two a sample): a date with a fraction is
    /// joined again without it on the stack, not copied into an array.
    public static func isoEpochSeconds(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { isoEpochSeconds($0) }
    }

    public static func isoEpochSeconds(_ bytes: ByteText) -> Int64? {
        guard bytes.count > 19, bytes[10] == UInt8(ascii: "T") else { return nil }
        // `yyyy-MM-ddTHH:mm:ss` is 19 bytes; a fraction may follow it.
        guard bytes.count > 20, bytes[19] == UInt8(ascii: ".") else { return epochSeconds(bytes) }
        var end = 20
        while end < bytes.count, bytes[end] >= UInt8(ascii: "0"), bytes[end] <= UInt8(ascii: "9") { end += 1 }
        guard end > 20, end < bytes.count else { return nil }
        let count = bytes.count - (end - 19)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { joined in
            _ = joined.initialize(from: bytes[..<19])
            _ = UnsafeMutableBufferPointer(rebasing: joined[19...]).initialize(from: bytes[end...])
            return epochSeconds(UnsafeBufferPointer(joined))
        }
    }

    /// Seconds since 1970-01-01T00:00:00Z, or nil when the bytes are not a valid date.
    public static func epochSeconds(_ text: ByteText) -> Int64? {
        guard text.count >= 19, let p = text.baseAddress else {
            return text.count >= 14 ? compactEpochSeconds(text) : nil
        }
        guard p[4] == UInt8(ascii: "-") else { return compactEpochSeconds(text) }
        guard let year = digits(p, 4),
              let month = digits(p + 5, 2), p[7] == UInt8(ascii: "-"),
              let day = digits(p + 8, 2), p[10] == UInt8(ascii: " ") || p[10] == UInt8(ascii: "T"),
              let hour = digits(p + 11, 2), p[13] == UInt8(ascii: ":"),
              let minute = digits(p + 14, 2), p[16] == UInt8(ascii: ":"),
              let second = digits(p + 17, 2)
        else { return nil }
        return instant(year, month, day, hour, minute, second, offsetText: ByteText(start: p + 19, count: text.count - 19))
    }

    /// The seconds of `text` when it was written on the same day and with the same offset as
    /// `reference`, a date already read as `referenceSeconds`: only its time of day is read, and
    /// the result is what `epochSeconds(text)` gives. Any other text is read whole. A Record's end
    /// and creation dates are nearly always its start's day: read whole, each cost 315 instructions
    /// (callgrind on the 100 MB import: the dates were 1.9% of its instructions).
    public static func epochSeconds(_ text: ByteText, sameDayAs reference: ByteText, at referenceSeconds: Int64) -> Int64? {
        let count = text.count
        guard count >= 19, count == reference.count, let p = text.baseAddress, let r = reference.baseAddress,
              memcmp(p, r, 11) == 0, memcmp(p + 19, r + 19, count - 19) == 0, p[4] == UInt8(ascii: "-"),
              let hour = digits(p + 11, 2), p[13] == UInt8(ascii: ":"), let minute = digits(p + 14, 2),
              p[16] == UInt8(ascii: ":"), let second = digits(p + 17, 2), hour <= 23, minute <= 59, second <= 60,
              let referenceHour = digits(r + 11, 2), let referenceMinute = digits(r + 14, 2), let referenceSecond = digits(r + 17, 2)
        else { return epochSeconds(text) }
        let seconds = referenceSeconds + Int64((hour - referenceHour) * 3600 + (minute - referenceMinute) * 60 + second - referenceSecond)
        return representable.contains(seconds) ? seconds : nil
    }

    /// The offset from UTC a valid date was written with, in seconds (`… +0200` → 7200), in either form.
    public static func writtenOffsetSeconds(_ text: ByteText) -> Int64? {
        guard epochSeconds(text) != nil, let p = text.baseAddress else { return nil }
        let fieldsEnd = p[4] == UInt8(ascii: "-") ? 19 : 14
        return offsetSeconds(ByteText(start: p + fieldsEnd, count: text.count - fieldsEnd))
    }

    /// The iOS 8 form `yyyyMMddHHmmss` followed by an offset (`+0100`, or any form `offsetSeconds` reads).
    static func compactEpochSeconds(_ text: ByteText) -> Int64? {
        guard text.count >= 14, let p = text.baseAddress,
              let year = digits(p, 4), let month = digits(p + 4, 2), let day = digits(p + 6, 2),
              let hour = digits(p + 8, 2), let minute = digits(p + 10, 2), let second = digits(p + 12, 2)
        else { return nil }
        return instant(year, month, day, hour, minute, second, offsetText: ByteText(start: p + 14, count: text.count - 14))
    }

    /// Checks the fields and turns them into seconds since 1970 UTC.
    private static func instant(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int,
                                offsetText: ByteText) -> Int64? {
        guard month >= 1, month <= 12, day >= 1, day <= daysInMonth(year: year, month: month),
              hour <= 23, minute <= 59, second <= 60
        else { return nil }
        guard let offset = offsetSeconds(offsetText) else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - offset
        // `9999-12-31 23:00:00 -1400` is in the year 10000 in UTC, which the 4-digit output cannot
        // write (the fuzzer found it printed as year 0000): such a date is not valid here.
        return representable.contains(seconds) ? seconds : nil
    }

    /// The instants the output format can write: 0000-01-01T00:00:00Z ... 9999-12-31T23:59:59Z.
    public static let representable: ClosedRange<Int64> = -62_167_219_200...253_402_300_799

    /// A `yyyy-MM-dd` day (ActivitySummary's `dateComponents`) as the epoch seconds of its UTC midnight.
    public static func dayStartSeconds(_ text: ByteText) -> Int64? {
        guard text.count == 10, let p = text.baseAddress,
              let year = digits(p, 4), p[4] == UInt8(ascii: "-"),
              let month = digits(p + 5, 2), p[7] == UInt8(ascii: "-"),
              let day = digits(p + 8, 2),
              month >= 1, month <= 12, day >= 1, day <= daysInMonth(year: year, month: month)
        else { return nil }
        return daysFromCivil(year: year, month: month, day: day) * 86_400
    }

    /// The part after the seconds: empty (UTC), `Z`, ` -0500`, `-0500`, `+05:30`.
    package static func offsetSeconds(_ rest: ByteText) -> Int64? {
        guard let p = rest.baseAddress else { return 0 }
        var i = 0
        if i < rest.count, p[i] == UInt8(ascii: " ") { i += 1 }
        if i == rest.count { return i == 0 ? 0 : nil }
        if p[i] == UInt8(ascii: "Z") { return i + 1 == rest.count ? 0 : nil }
        let sign: Int64
        switch p[i] {
        case UInt8(ascii: "+"): sign = 1
        case UInt8(ascii: "-"): sign = -1
        default: return nil
        }
        i += 1
        let remaining = rest.count - i
        let hours: Int, minutes: Int
        if remaining == 4, let h = digits(p + i, 2), let m = digits(p + i + 2, 2) {
            hours = h; minutes = m
        } else if remaining == 5, p[i + 2] == UInt8(ascii: ":"), let h = digits(p + i, 2), let m = digits(p + i + 3, 2) {
            hours = h; minutes = m
        } else {
            return nil
        }
        guard hours <= 18, minutes <= 59 else { return nil }
        return sign * Int64(hours * 3600 + minutes * 60)
    }

    /// Inlined, so that each call's loop unrolls for its constant width: called out of line with
    /// its overflow checks it was 125 M of the 48 MB export's 7.4 G instructions (callgrind).
    @inline(__always)
    package static func digits(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int? {
        var value = 0
        for i in 0..<n {
            let d = UInt(p[i]) &- 48
            guard d <= 9 else { return nil }
            value = value &* 10 &+ Int(d)
        }
        return value
    }

    package static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    package static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64(month > 2 ? month - 3 : month + 9)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

/// Writes instants as the HealthMetric wire format: `yyyy-MM-dd'T'HH:mm:ss'Z'`, always 20 bytes.
public enum UTCDateFormatter {
    public static let byteCount = 20

    /// Writes exactly 20 bytes at `out`.
    public static func write(_ seconds: Int64, to out: UnsafeMutablePointer<UInt8>) {
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 { secondOfDay += 86_400; days -= 1 }
        let (year, month, day) = civil(fromDays: days)
        put(year, 4, out)
        out[4] = UInt8(ascii: "-")
        put(month, 2, out + 5)
        out[7] = UInt8(ascii: "-")
        put(day, 2, out + 8)
        out[10] = UInt8(ascii: "T")
        put(secondOfDay / 3600, 2, out + 11)
        out[13] = UInt8(ascii: ":")
        put(secondOfDay / 60 % 60, 2, out + 14)
        out[16] = UInt8(ascii: ":")
        put(secondOfDay % 60, 2, out + 17)
        out[19] = UInt8(ascii: "Z")
    }

    /// The proleptic Gregorian date of a day number (days since 1970-01-01): Howard Hinnant's
    /// `civil_from_days`, the inverse of `ExportDateParser.daysFromCivil`.
    @inline(__always)
    package static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// `2023-05-13T05:20:37.800Z`: milliseconds since 1970, with the fraction (beat times; the
    /// Flō and steps contracts' dates).
    public static func appendMilliseconds(_ milliseconds: Int64, to out: inout ByteBuffer) {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let fraction = milliseconds - seconds * 1000
        out.appendInPlace(byteCount + 4) { pointer in
            write(seconds, to: pointer)
            pointer[19] = UInt8(ascii: ".")
            put(fraction, 3, pointer + 20)
            pointer[23] = UInt8(ascii: "Z")
        }
    }

    /// The same as a `String`, for the cold paths.
    public static func string(milliseconds: Int64) -> String {
        var buffer = ByteBuffer(capacity: byteCount + 4)
        appendMilliseconds(milliseconds, to: &buffer)
        return buffer.withBytes { $0.string }
    }

    /// An instant with its milliseconds, `2026-11-24T15:55:47.123Z`: what the servers' replies and
    /// the pairing object carry.
    public static func string(_ date: Date) -> String {
        string(milliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// The same as a `String`, for the cold paths.
    public static func string(_ seconds: Int64) -> String {
        String(unsafeUninitializedCapacity: byteCount) { buffer in
            write(seconds, to: buffer.baseAddress!)
            return byteCount
        }
    }

    package static func put(_ value: Int64, _ width: Int, _ out: UnsafeMutablePointer<UInt8>) {
        var v = value < 0 ? 0 : value
        var i = width - 1
        while i >= 0 {
            out[i] = UInt8(truncatingIfNeeded: 48 + v % 10)
            v /= 10
            i -= 1
        }
    }
}
