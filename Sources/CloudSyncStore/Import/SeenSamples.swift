/// Which samples (type, dates, source, value, unit, category) this import already added, as a Bloom filter:
/// "no" is certain, "maybe" is checked against the store. In an import into an empty store, only
/// a sample it says "maybe" to can be a repeat, so only those are looked up.
///
/// Why: checking every new row with an index lookup cost 1.6 s of a 15.6 s import of the 1 GB
/// export (2.4 million rows, 11 repeats). Sized by the export, about 14 bits per sample, between
/// 2 and 16 MiB, so memory stays flat: 8 MiB for the 1 GB export (16 MiB made the import's peak
/// RSS 8 MiB larger), 16 MiB from 4.8 million samples on.
///
/// Blocked: a sample's three bits are in one 64-bit word, so a sample costs one cache miss. With
/// two bits anywhere in the 16 MiB, the two misses were 5% of all the import's CPU samples (the
/// store thread's largest entry after SQLite's own). About 1 in 2,000 samples is looked up for
/// nothing at 2.4 million samples (8 MiB), 1 in 10 at 24 million (16 MiB).
struct SeenSamples {
    private let wordMask: Int
    private var words: [UInt64]

    /// `expectedSamples`: about how many samples the export holds (nil: unknown, the largest filter).
    init(expectedSamples: Int? = nil) {
        var wordCount = 1 << 18
        while wordCount < 1 << 21 && wordCount * 4 < (expectedSamples ?? .max) { wordCount <<= 1 }
        wordMask = wordCount - 1
        words = [UInt64](repeating: 0, count: wordCount)
    }

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
        let word = Int(truncatingIfNeeded: h) & wordMask
        let bits: UInt64 = 1 << ((h >> 32) & 63) | 1 << ((h >> 38) & 63) | 1 << ((h >> 44) & 63)
        return words.withUnsafeMutableBufferPointer { words in
            let seen = words[word] & bits == bits
            words[word] |= bits
            return seen
        }
    }
}
