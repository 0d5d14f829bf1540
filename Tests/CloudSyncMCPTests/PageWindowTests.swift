@testable import CloudSyncMCP
import CloudSyncModel
import CloudSyncKinds
import CloudSyncStore
import Foundation
import Testing

/// Days in a time zone: where they begin, and where a page of buckets ends.
@Suite struct PageWindowTests {
    func instant(_ text: String) -> Int64 {
        var copy = text
        return copy.withUTF8 { ExportDateParser.epochSeconds($0) }!
    }

    @Test func aDayBeginsAtItsFirstInstantEvenWhereDSTStartsAtMidnight() throws {
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        #expect(ToolArguments.localMidnight(utcDay: instant("2024-03-31T00:00:00Z"), zone: paris) == instant("2024-03-30T23:00:00Z"))
        #expect(ToolArguments.localMidnight(utcDay: instant("2024-04-01T00:00:00Z"), zone: paris) == instant("2024-03-31T22:00:00Z"))
        // Santiago springs forward at midnight: 2023-09-03 begins at 01:00 local, 04:00 UTC.
        let santiago = try #require(TimeZone(identifier: "America/Santiago"))
        #expect(ToolArguments.localMidnight(utcDay: instant("2023-09-03T00:00:00Z"), zone: santiago) == instant("2023-09-03T04:00:00Z"))
        #expect(ToolArguments.localMidnight(utcDay: instant("2023-09-02T00:00:00Z"), zone: santiago) == instant("2023-09-02T04:00:00Z"))
    }

    @Test func aPageEndsWholeBucketsLater() throws {
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        let start = instant("2024-03-30T10:00:00Z")
        #expect(PageWindow.end(from: start, buckets: 2, bucket: .day, zone: paris) == instant("2024-03-31T22:00:00Z"))
        #expect(PageWindow.end(from: start, buckets: 1, bucket: .week, zone: paris) == instant("2024-03-31T22:00:00Z"))
        #expect(PageWindow.end(from: start, buckets: 1, bucket: .month, zone: paris) == instant("2024-03-31T22:00:00Z"))
        #expect(PageWindow.end(from: start, buckets: 3, bucket: .hour, zone: nil) == instant("2024-03-30T13:00:00Z"))
    }
}
