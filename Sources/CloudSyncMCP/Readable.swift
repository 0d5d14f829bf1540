import Foundation

/// How the tools round the numbers they compute (docs/mcp.md, "Numbers"): to what a person reads
/// and compares with their phone, not an average's or a conversion's binary tail
/// (307.43333333333334 minutes, 4.9889664 km). One rule for every tool and for both the structured
/// answer and its text, so the two always agree:
///
/// - four significant digits, never rounding inside the whole part: 307.4 min, 4.989 km,
///   63.42 count/min, 0.9712 (a fraction), 12,346 kcal;
/// - a sum of things counted (unit `count`: steps, flights, strokes) is a whole number, as the
///   phone shows it (merging iPhone and Watch can prorate a sample).
///
/// Raw values (`records`, `sql`, an ECG's voltages) are given as stored.
enum Readable {
    static let significantDigits = 4

    static func number(_ value: Double) -> Double {
        guard value.isFinite, value != 0 else { return value }
        let magnitude = Int(log10(abs(value)).rounded(.down))  // 307.4 → 2, 0.97 → -1
        let decimals = significantDigits - 1 - magnitude
        guard decimals > 0 else { return value.rounded() }
        // Beyond 10^22 a power of ten is no longer exact; no health value is that small.
        guard decimals <= 22 else { return value }
        let scale = pow(10, Double(decimals))
        return (value * scale).rounded() / scale
    }

    static func number(_ value: Double?) -> Double? { value.map { number($0) } }

    /// A statistic of `unit`: whole numbers for a sum of things counted, else `number`.
    static func statistic(_ value: Double, unit: String, isSum: Bool) -> Double {
        isSum && unit == "count" ? value.rounded() : number(value)
    }

    /// The text of a rounded number: `307.4`, `10235` (no `.0`, no exponent for everyday sizes).
    static func text(_ value: Double) -> String {
        let rounded = number(value)
        if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
        return "\(rounded)"
    }
}
