/// A Bloom filter whose key's three bits are in one 64-bit word, so that a key costs one cache miss:
/// "no" is certain, "maybe" is not. Keys are hashed by `FilterHash`. Its users: `SeenSamples` (the
/// samples an import added) and `BulkHours` (the hours a bulk load wrote).
struct BlockedBloomFilter {
    private let wordCount: Int
    private var words: [UInt64]

    /// Sized by the input: one word for each key it says it holds (`keys`), between 1 and `most`
    /// words; `most` words when it does not say.
    init(keys: Int?, most: Int) {
        wordCount = keys.map { min(most, max(1, $0)) } ?? most
        words = [UInt64](repeating: 0, count: wordCount)
    }

    /// Adds the key; true when it may have been added before.
    @inline(__always)
    mutating func insert(_ hash: FilterHash) -> Bool {
        let h = hash.value
        // The low 32 bits scaled to the word count (any count, not only powers of two).
        let word = Int(((h & 0xFFFF_FFFF) &* UInt64(wordCount)) >> 32)
        let bits: UInt64 = 1 << ((h >> 32) & 63) | 1 << ((h >> 38) & 63) | 1 << ((h >> 44) & 63)
        return words.withUnsafeMutableBufferPointer { words in
            let seen = words[word] & bits == bits
            words[word] |= bits
            return seen
        }
    }
}

/// A key's hash, its parts mixed in one at a time (unrolled by the caller: an array of the parts
/// was an allocation per sample).
struct FilterHash {
    private(set) var value: UInt64 = 0x9E37_79B9_7F4A_7C15

    @inline(__always)
    mutating func mix(_ part: UInt64) {
        value = (value ^ part) &* 0xBF58_476D_1CE4_E5B9
        value ^= value >> 31
    }

    @inline(__always)
    mutating func mix(_ part: Int64) { mix(UInt64(bitPattern: part)) }
}
