/// Numbers in the HealthMetric JSON: integral values without a fraction (`79`, not `79.0`),
/// others in the shortest form that reads back as the same `Double`.
public enum NumberFormatting {
    /// Largest magnitude printed as an integer: beyond 2^53 a `Double` no longer holds every integer.
    package static let integralLimit = 9_007_199_254_740_992.0

    /// Appends the JSON text of a finite `value` to `out`.
    public static func append(_ value: Double, to out: inout ByteBuffer) {
        if value == value.rounded(.towardZero), Swift.abs(value) < integralLimit {
            out.appendInteger(Int64(value))
        } else {
            // Swift's own shortest round-trip printer; the result is a small string (no allocation).
            var description = value.description
            description.withUTF8 { out.append($0) }
        }
    }

    /// Text for metadata values (strings in the JSON), same rules.
    public static func string(_ value: Double) -> String {
        var buffer = ByteBuffer(capacity: 32)
        append(value, to: &buffer)
        return buffer.withBytes { $0.string }
    }

    /// Unit conversions multiply by factors such as 1.609344 or 1/4.184; the product carries binary
    /// noise (0.97 × 100 = 97.00000000000001). People compare these numbers with their phone, so a
    /// converted value is rounded to 12 significant digits, far below any sensor's precision.
    public static func roundedAfterConversion(_ value: Double) -> Double {
        guard value != 0, value.isFinite else { return value }
        // Decimal exponent estimate from the binary one (log10(2) ≈ 0.30103); off by one at most.
        let decimalExponent = Int((Double(value.exponent) * 0.30103).rounded(.down))
        let shift = 11 - decimalExponent
        guard shift >= -22, shift <= 22 else { return value }
        let power = DecimalParser.exactPowersOfTen[Swift.abs(shift)]
        if shift >= 0 {
            let scaled = (value * power).rounded()
            return Swift.abs(scaled) < integralLimit ? scaled / power : value
        } else {
            return (value / power).rounded() * power
        }
    }
}
