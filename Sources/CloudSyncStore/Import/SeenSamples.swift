/// Which samples (type, dates, source, value, unit, category) this import already added, as a Bloom filter:
/// "no" is certain, "maybe" is checked against the store. In an import into an empty store, only
/// a sample it says "maybe" to can be a repeat, so only those are looked up.
///
/// Why: checking every new row with an index lookup cost 1.6 s of a 15.6 s import of the 1 GB
/// export (2.4 million rows, 11 repeats). Fixed size, so memory stays flat: 16 MiB, two probes;
/// at 10 million samples about 2 in 100 are looked up for nothing.
struct SeenSamples {
    private static let bitCount = 1 << 27
    private var bits: [UInt64]

    init() { bits = [UInt64](repeating: 0, count: Self.bitCount / 64) }

    /// Adds the sample; true when it may have been added before.
    mutating func insert(type: Int64, start: Int64, end: Int64, source: Int64, value: Double, unit: Int64, category: Int64) -> Bool {
        // 0.0 and -0.0 are the same value to SQLite: give them the same bits.
        let valueBits = value == 0 ? 0 : value.bitPattern
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15
        @inline(__always) func mix(_ part: UInt64) {
            h = (h ^ part) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 31
        }
        // Unrolled: an array of the parts was an allocation per sample.
        mix(UInt64(bitPattern: type))
        mix(UInt64(bitPattern: start))
        mix(UInt64(bitPattern: end))
        mix(UInt64(bitPattern: source))
        mix(valueBits)
        mix(UInt64(bitPattern: unit))
        mix(UInt64(bitPattern: category))
        let first = Int(truncatingIfNeeded: h) & (Self.bitCount - 1)
        let second = Int(truncatingIfNeeded: h >> 32) & (Self.bitCount - 1)
        let seen = isSet(first) && isSet(second)
        set(first)
        set(second)
        return seen
    }

    private func isSet(_ bit: Int) -> Bool { bits[bit >> 6] & (1 << UInt64(bit & 63)) != 0 }
    private mutating func set(_ bit: Int) { bits[bit >> 6] |= 1 << UInt64(bit & 63) }
}
