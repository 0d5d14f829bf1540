@testable import CloudSyncMCP
import Testing

/// The rounding of the tools' numbers (docs/mcp.md, "Numbers"): four significant digits, never
/// inside the whole part; whole numbers for sums of things counted.
@Suite struct ReadableTests {
    @Test func fourSignificantDigitsButTheWholePart() {
        #expect(Readable.number(307.43333333333334) == 307.4)
        #expect(Readable.number(4.9889664) == 4.989)
        #expect(Readable.number(63.416666666666664) == 63.42)
        #expect(Readable.number(0.97123) == 0.9712)
        #expect(Readable.number(-0.071234) == -0.07123)
        #expect(Readable.number(12_345.678) == 12_346)
        #expect(Readable.number(9.99996) == 10)
        #expect(Readable.number(0) == 0)
        #expect(Readable.number(1000) == 1000)
    }

    @Test func sumsOfThingsCountedAreWhole() {
        #expect(Readable.statistic(523.4, unit: "count", isSum: true) == 523)
        #expect(Readable.statistic(1.5, unit: "count", isSum: false) == 1.5)
        #expect(Readable.statistic(523.46, unit: "km", isSum: true) == 523.5)
    }

    @Test func theTextIsTheRoundedNumber() {
        #expect(Readable.text(307.43333333333334) == "307.4")
        #expect(Readable.text(10_235) == "10235")
        #expect(Readable.text(65.5) == "65.5")
    }
}
