import CloudSyncModel
import CloudSyncTesting
import Foundation
import Testing

@Suite struct ExportDateParserTests {
    func seconds(_ text: String) -> Int64? { text.withBytes(ExportDateParser.epochSeconds) }

    /// An independent oracle: Foundation's Gregorian calendar in UTC.
    func oracle(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int, offsetMinutes: Int) -> Int64 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let date = calendar.date(from: DateComponents(year: y, month: mo, day: d, hour: h, minute: mi, second: s))!
        return Int64(date.timeIntervalSince1970) - Int64(offsetMinutes * 60)
    }

    @Test(arguments: [
        ("2024-10-25 07:05:11 -0500", "2024-10-25T12:05:11Z"),
        ("2024-10-25 07:05:11 +0000", "2024-10-25T07:05:11Z"),
        ("2024-10-25 07:05:11 +0530", "2024-10-25T01:35:11Z"),
        ("2021-01-01 00:20:37 +0100", "2020-12-31T23:20:37Z"),   // crosses the year backwards
        ("2019-12-31 23:30:00 -0700", "2020-01-01T06:30:00Z"),   // and forwards
        ("2024-02-29 12:00:00 +0000", "2024-02-29T12:00:00Z"),   // leap day
        ("2024-10-25T07:05:11Z", "2024-10-25T07:05:11Z"),
        ("2024-10-25T07:05:11+02:00", "2024-10-25T05:05:11Z"),
        ("2024-10-25 07:05:11", "2024-10-25T07:05:11Z"),
        ("1969-12-31 23:59:59 +0000", "1969-12-31T23:59:59Z"),
        // iOS 8's compact form
        ("20141018163200+0100", "2014-10-18T15:32:00Z"),
        ("20141231233000-0800", "2015-01-01T07:30:00Z"),
        ("20150228120000 +0000", "2015-02-28T12:00:00Z"),
    ])
    func parsesOffsetsToUTC(_ input: String, _ expected: String) throws {
        let value = try #require(seconds(input))
        #expect(UTCDateFormatter.string(value) == expected)
    }

    @Test(arguments: ["20140230120000+0100", "2014101816320+0100", "20141018163200+01", "2014101816320x+0100", "20141018"])
    func rejectsBadCompactDates(_ input: String) {
        #expect(seconds(input) == nil)
    }

    @Test func daylightSavingTransitionsKeepTheInstant() throws {
        // Europe/Paris springs forward on 2024-03-31: 01:59:59 +0100 and 03:00:00 +0200 are one second apart.
        let before = try #require(seconds("2024-03-31 01:59:59 +0100"))
        let after = try #require(seconds("2024-03-31 03:00:00 +0200"))
        #expect(after - before == 1)
        // New York falls back on 2024-11-03: 01:30 happens twice, an hour apart.
        let first = try #require(seconds("2024-11-03 01:30:00 -0400"))
        let second = try #require(seconds("2024-11-03 01:30:00 -0500"))
        #expect(second - first == 3600)
    }

    @Test func agreesWithFoundationOnASweepOfDates() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let y = Int.random(in: 1901...2099, using: &generator), mo = Int.random(in: 1...12, using: &generator)
            let d = Int.random(in: 1...28, using: &generator), h = Int.random(in: 0...23, using: &generator)
            let mi = Int.random(in: 0...59, using: &generator), s = Int.random(in: 0...59, using: &generator)
            let offset = Int.random(in: -12...14, using: &generator) * 60 + [0, 30, 45].randomElement(using: &generator)!
            let sign = offset < 0 ? "-" : "+"
            let text = String(format: "%04d-%02d-%02d %02d:%02d:%02d %@%02d%02d", y, mo, d, h, mi, s, sign, abs(offset) / 60, abs(offset) % 60)
            #expect(seconds(text) == oracle(y, mo, d, h, mi, s, offsetMinutes: offset), "\(text)")
        }
    }

    @Test(arguments: ["", "2024-10-25", "2024-13-01 00:00:00 +0000", "2023-02-29 00:00:00 +0000", "2024-04-31 00:00:00 +0000",
                      "2024-10-25 24:00:00 +0000", "2024-10-25 07:60:00 +0000", "2024-10-25 07:05:11 -05", "2024-10-25 07:05:11 +2500",
                      "2024/10/25 07:05:11 +0000", "2024-10-25 07:05:11 -0500 extra", "yyyy-MM-dd HH:mm:ss Z", "2024-1O-25 07:05:11 +0000",
                      // instants in the years 10000 and -1, which the output cannot write (found by the fuzzer)
                      "9999-12-31 23:59:60 -1400", "0000-01-01 00:00:00 +0100"])
    func rejectsInvalidDates(_ input: String) {
        #expect(seconds(input) == nil)
    }

    /// A date read as the day of another (a Record's end and creation dates as its start's) gives what
    /// reading it whole gives: on that day, on another, with another offset, and when it is invalid.
    @Test func aDateReadAsTheDayOfAnotherIsReadAsItself() throws {
        let references = ["2024-10-25 07:05:11 -0500", "2024-10-25T23:59:59Z", "20141018163200+0100", "9999-12-31 00:00:00 -1400",
                          "0000-01-01 23:59:59 +0100", "2024-02-29 12:00:00 +05:30"]
        let texts = ["2024-10-25 07:05:11 -0500", "2024-10-25 00:00:00 -0500", "2024-10-25 23:59:60 -0500", "2024-10-26 07:05:11 -0500",
                     "2024-10-25 07:05:11 +0100", "2024-10-25 24:00:00 -0500", "2024-10-25 07:60:00 -0500", "2024-10-25 07:05:1x -0500",
                     "2024-10-25T08:00:00Z", "2024-10-25T24:00:00Z", "20141018235959+0100", "20141018163200+0100",
                     "9999-12-31 23:59:59 -1400", "9999-12-31 10:00:00 -1400", "0000-01-01 00:00:00 +0100", "0000-01-01 01:00:00 +0100",
                     "2024-02-29 00:00:00 +05:30", "2024-02-29 23:59:59 +05:30", "2024-02-29 23:59:59 +05:31", ""]
        for reference in references {
            let referenceSeconds = try #require(seconds(reference), "\(reference)")
            for text in texts {
                let read = text.withBytes { textBytes in
                    reference.withBytes { ExportDateParser.epochSeconds(textBytes, sameDayAs: $0, at: referenceSeconds) }
                }
                #expect(read == seconds(text), "\(text) as the day of \(reference)")
            }
        }
    }

    @Test func theFirstAndLastWritableInstantsParse() {
        #expect(seconds("0000-01-01 00:00:00 +0000").map { UTCDateFormatter.string($0) } == "0000-01-01T00:00:00Z")
        #expect(seconds("9999-12-31 23:59:59 +0000").map { UTCDateFormatter.string($0) } == "9999-12-31T23:59:59Z")
        #expect(seconds("9999-12-31 23:59:59 +1400").map { UTCDateFormatter.string($0) } == "9999-12-31T09:59:59Z")
    }

    @Test func parsesActivitySummaryDays() {
        #expect("2016-11-15".withBytes(ExportDateParser.dayStartSeconds).map { UTCDateFormatter.string($0) } == "2016-11-15T00:00:00Z")
        #expect("2016-11-31".withBytes(ExportDateParser.dayStartSeconds) == nil)
    }

    /// The contracts' ISO dates (CloudCare, Flō, steps, a server's backfill window): with or without a
    /// fraction, which is dropped, `Z` or an offset; never without the `T` or with an empty fraction.
    @Test func parsesTheContractsISODates() {
        #expect(ExportDateParser.isoEpochSeconds("2024-05-01T08:00:00Z").map { UTCDateFormatter.string($0) } == "2024-05-01T08:00:00Z")
        #expect(ExportDateParser.isoEpochSeconds("2025-05-11T16:27:22.999Z").map { UTCDateFormatter.string($0) } == "2025-05-11T16:27:22Z")
        #expect(ExportDateParser.isoEpochSeconds("2024-05-01T10:00:00.000+02:00").map { UTCDateFormatter.string($0) } == "2024-05-01T08:00:00Z")
        for invalid in ["2024-05-01 08:00:00Z", "2024-05-01T08:00:00.Z", "2024-05-01T08:00:00", "2024-05-01T08:00:00.000", "2024-05-01", ""] {
            #expect(ExportDateParser.isoEpochSeconds(invalid) == nil, "\(invalid)")
        }
    }
}
