/// Numbers as export.xml writes them (`79`, `0.04405876218480989`, `-3.5e-2`), parsed from bytes.
///
/// Most values have at most 15 significant digits and a small exponent: those are converted
/// exactly with one multiplication or division by a power of ten (Clinger's fast path, correctly
/// rounded). Longer ones go to `strtod` on a NUL-terminated copy. Anything that is not a plain
/// decimal (`nan`, `inf`, hex, empty, `1,5`, spaces) is rejected, because a metric needs a finite
/// number.
public enum DecimalParser {
    public struct Result {
        public var value: Double
        /// True when the bytes are already the JSON form we want to print: no exponent, no `+`, no
        /// leading zeros, no trailing fractional zeros (`80.0` prints as `80`), at most 17 digits.
        public var isCanonicalJSON: Bool

        public init(value: Double, isCanonicalJSON: Bool) {
            self.value = value
            self.isCanonicalJSON = isCanonicalJSON
        }
    }

    package static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    public static func parse(_ text: ByteText) -> Result? {
        guard let p = text.baseAddress, text.count > 0 else { return nil }
        let n = text.count
        var i = 0
        var negative = false
        if p[0] == UInt8(ascii: "-") { negative = true; i = 1 } else if p[0] == UInt8(ascii: "+") { i = 1 }
        var mantissa: UInt64 = 0
        var significant = 0        // digits in mantissa after leading zeros
        var droppedDigits = 0      // integer digits beyond what fits the mantissa
        var intDigits = 0
        let intStart = i
        while i < n, p[i] &- 48 < 10 {
            let d = UInt64(p[i] &- 48)
            if significant < 19 {
                if mantissa != 0 || d != 0 { significant += 1 }
                mantissa = mantissa &* 10 &+ d
            } else {
                droppedDigits += 1
            }
            i += 1
            intDigits += 1
        }
        var fracDigits = 0
        var fractionEndsWithZero = false
        if i < n, p[i] == UInt8(ascii: ".") {
            i += 1
            while i < n, p[i] &- 48 < 10 {
                let d = UInt64(p[i] &- 48)
                if significant < 19 {
                    if mantissa != 0 || d != 0 { significant += 1 }
                    mantissa = mantissa &* 10 &+ d
                    fracDigits += 1
                }
                fractionEndsWithZero = d == 0
                i += 1
            }
            if fracDigits == 0 && !fractionEndsWithZero && intDigits == 0 { return nil }
        }
        guard intDigits + fracDigits > 0 || fractionEndsWithZero else { return nil }
        var exponent = 0
        var hasExponent = false
        if i < n, p[i] == UInt8(ascii: "e") || p[i] == UInt8(ascii: "E") {
            hasExponent = true
            i += 1
            var expNegative = false
            if i < n, p[i] == UInt8(ascii: "-") || p[i] == UInt8(ascii: "+") { expNegative = p[i] == UInt8(ascii: "-"); i += 1 }
            var expDigits = 0
            while i < n, p[i] &- 48 < 10 {
                if exponent < 100_000 { exponent = exponent * 10 + Int(p[i] &- 48) }
                i += 1
                expDigits += 1
            }
            guard expDigits > 0 else { return nil }
            if expNegative { exponent = -exponent }
        }
        guard i == n else { return nil }
        let hasLeadingZero = intDigits > 1 && p[intStart] == UInt8(ascii: "0")
        let canonical = !hasExponent && p[0] != UInt8(ascii: "+") && !hasLeadingZero && !fractionEndsWithZero
            && intDigits > 0 && significant <= 17 && droppedDigits == 0 && !(negative && mantissa == 0)
            && (fracDigits > 0 || i == intStart + intDigits)

        let scale = exponent + droppedDigits - fracDigits
        var value: Double
        if significant <= 15, scale >= -22, scale <= 22 {
            value = Double(mantissa)
            value = scale < 0 ? value / exactPowersOfTen[-scale] : value * exactPowersOfTen[scale]
        } else {
            guard let slow = strtodCopy(text) else { return nil }
            value = Swift.abs(slow)
        }
        if negative { value = -value }
        guard value.isFinite else { return nil }
        return Result(value: value, isCanonicalJSON: canonical)
    }

    package static func strtodCopy(_ text: ByteText) -> Double? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: text.count + 1) { buffer in
            for i in 0..<text.count { buffer[i] = CChar(bitPattern: text[i]) }
            buffer[text.count] = 0
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(buffer.baseAddress!, &end)
            return end == buffer.baseAddress! + text.count ? value : nil
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
