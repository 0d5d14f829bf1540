@testable import CloudSyncReport
import Foundation
import Testing

/// The report's arithmetic in process: round ticks of a value axis, where a bucket stands on a time
/// axis, wall-clock times in the report's zone across a clock change. The page as a person reads it
/// (built by the binary, read back by a strict XML parser and a real browser) is tested in
/// CloudSyncCLITests.
@Suite struct ReportAxesTests {
    @Test func valueAxesStartAndEndOnRoundTicks() {
        let steps = ValueAxis([3120, 8455, 11_980], fromZero: true)
        #expect(steps.low == 0 && steps.step == 5000 && steps.high == 15_000)
        #expect(steps.ticks.map(steps.label) == ["0", "5000", "10000", "15000"])
        // A constant series sits between round ticks, not on an axis from 5000 to 5001.
        let constant = ValueAxis([5000, 5000], fromZero: false)
        #expect(constant.ticks.map(constant.label) == ["4500", "5000", "5500"])
        // Decimals as many as the step has.
        let weight = ValueAxis([71.2, 71.9], fromZero: false)
        #expect(weight.ticks.map(weight.label) == ["71.2", "71.4", "71.6", "71.8", "72"], "\(weight.ticks.map(weight.label))")
        // Counts get ticks at least 1 apart.
        #expect(ValueAxis([0, 1, 2], fromZero: true).step == 1)
    }

    @Test func roundStepsAreOneTwoOrFiveTimesAPowerOfTen() {
        #expect(ValueAxis.roundStep(above: 0.013) == 0.02)
        #expect(ValueAxis.roundStep(above: 3) == 5)
        #expect(ValueAxis.roundStep(above: 7) == 10)
        #expect(ValueAxis.roundStep(above: 2000) == 2000)
    }

    /// A month is as long as it is: February 2024 has 29 days, and a bucket stands at its start.
    @Test func timeAxesScaleByRealTime() throws {
        let february = try #require(TimeAxis.span("2024-02"))
        #expect(february.days == 29)
        let day = try #require(TimeAxis.span("2024-03-01"))
        #expect(day.start == february.start + 29 && day.days == 1)
        #expect(TimeAxis.span("2024-13") == nil && TimeAxis.span("steps") == nil)
        let axis = TimeAxis([february, try #require(TimeAxis.span("2024-04"))])
        #expect(axis.monthly && axis.fraction(axis.from) == 0 && axis.fraction(axis.to) == 1)
    }

    /// Paris on the night clocks go back (2024-10-27, 03:00 CEST → 02:00 CET): the wall clock of
    /// each instant, not a fixed offset.
    @Test func wallClockTimesFollowTheZonesClockChanges() throws {
        let paris = LocalTime(TimeZone(identifier: "Europe/Paris"))
        let beforeChange: Int64 = 1_729_988_100   // 2024-10-27T00:15:00Z = 02:15 CEST
        let afterChange: Int64 = 1_729_992_600    // 2024-10-27T01:30:00Z = 02:30 CET
        #expect(paris.minute(beforeChange) == "2024-10-27 02:15")
        #expect(paris.minute(afterChange) == "2024-10-27 02:30")
        #expect(paris.day("2024-10-26T22:30:00Z") == "2024-10-27")
        #expect(paris.bound(1_729_980_000) == "2024-10-27")   // Paris's midnight (22:00Z the day before)
        #expect(paris.minute("not a time") == "not a time")
    }
}
