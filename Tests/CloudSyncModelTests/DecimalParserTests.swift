import CloudSyncTesting
import Foundation
import CloudSyncModel
import Testing

@Suite struct DecimalParserTests {
    func parse(_ text: String) -> DecimalParser.Result? { text.withBytes(DecimalParser.parse) }

    @Test(arguments: ["79", "0", "-3.5", "0.04405876218480989", "4.275000000000002", "1e3", "2.5E-2", "+7", "007", "80.0",
                      "123456789012345678901234567890", "0.000000000000000000000000001234", "1.7976931348623157e308", "5e-324", ".5", "5."])
    func agreesWithTheStandardLibrary(_ text: String) throws {
        let result = try #require(parse(text))
        #expect(result.value == Double(text) || (text == "+7" && result.value == 7) || (text == ".5" && result.value == 0.5) || (text == "5." && result.value == 5))
    }

    @Test(arguments: [("79", true), ("-3.5", true), ("0.04405876218480989", true), ("80.0", false), ("1e3", false),
                      ("+7", false), ("007", false), ("-0", false), ("0.10", false), ("123456789012345678", false), (".5", false)])
    func knowsWhenTheTextIsAlreadyJSON(_ text: String, _ canonical: Bool) throws {
        #expect(try #require(parse(text)).isCanonicalJSON == canonical)
    }

    @Test(arguments: ["", "NaN", "nan", "inf", "Infinity", "-inf", "1e999", "1,5", " 1", "1 ", "0x10", "1e", "e5", ".", "-", "1.2.3", "12abc"])
    func rejectsWhatIsNotAFiniteNumber(_ text: String) {
        #expect(parse(text) == nil)
    }
}

@Suite struct NumberFormattingTests {
    func format(_ value: Double) -> String {
        var buffer = ByteBuffer(capacity: 32)
        NumberFormatting.append(value, to: &buffer)
        return buffer.withBytes { $0.string }
    }

    @Test func integralValuesHaveNoFraction() {
        #expect(format(79) == "79")
        #expect(format(-0.0) == "0")
        #expect(format(1e15) == "1000000000000000")
        #expect(format(0.5) == "0.5")
        #expect(format(4.275000000000002) == "4.275000000000002")
        #expect(Double(format(1e-7)) == 1e-7)
    }

    @Test func conversionNoiseIsRounded() {
        #expect(NumberFormatting.roundedAfterConversion(0.97 * 100) == 97)
        #expect(NumberFormatting.roundedAfterConversion(0.5 * 1.609344) == 0.804672)
        #expect(NumberFormatting.roundedAfterConversion(41.84 / 4.184) == 10)
        #expect(NumberFormatting.roundedAfterConversion(123.456) == 123.456)
    }
}
