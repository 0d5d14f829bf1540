import Foundation

/// The y axis of a chart: it starts and ends on round ticks, 1, 2 or 5 × 10ⁿ apart (at most about
/// six), around the values. A constant series gets ±10 % of its value (±1 around 0), so its line
/// sits in the middle between round ticks: 5000 steps every day draws on an axis of 4500, 5000,
/// 5500, not 5000 to 5001 with a "5000.5" tick. Whole numbers (counts) get ticks at least 1 apart.
struct ValueAxis {
    let low: Double, high: Double, step: Double

    /// `fromZero`: the axis includes 0 (bars stand on it).
    init(_ values: [Double], fromZero: Bool) {
        var low = values.min() ?? 0, high = values.max() ?? 1
        if fromZero { low = min(0, low); high = max(0, high) }
        if high == low {
            let room = low == 0 ? 1 : abs(low) * 0.1
            high += room
            if !(fromZero && low == 0) { low -= room }
        }
        let counts = !values.isEmpty && values.allSatisfy { $0 == $0.rounded() }
        step = max(Self.roundStep(above: (high - low) / 4), counts ? 1 : 0)
        self.low = floor(low / step) * step
        self.high = ceil(high / step) * step
    }

    /// The smallest 1, 2 or 5 × 10ⁿ at least `raw`.
    static func roundStep(above raw: Double) -> Double {
        let magnitude = pow(10, floor(log10(raw)))
        return [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw * (1 - 1e-9) } ?? 10 * magnitude
    }

    /// The ticks, as multiples of the step (no sum of steps, whose rounding errors would show).
    var ticks: [Double] {
        let first = Int((low / step).rounded()), last = Int((high / step).rounded())
        return (first...max(first, last)).map { Double($0) * step }
    }

    /// A tick as the page writes it: as many decimals as the step has, no more.
    func label(_ tick: Double) -> String {
        formatted(tick, digits: max(0, Int(-floor(log10(step) + 1e-9))))
    }
}
