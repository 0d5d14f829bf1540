import CSQLiteRows
import Glibc

/// A Bloom filter whose key's three bits are in one 64-bit word, so that a key costs one cache miss:
/// "no" is certain, "maybe" is not. Keys are hashed by `FilterHash`. Its users: `SeenSamples` (the
/// samples an import added) and `BulkHours` (the hours a bulk load wrote).
struct BlockedBloomFilter {
    private let wordCount: Int
    private let words: FilterWords

    /// Sized by the input: one word for each key it says it holds (`keys`), between 1 and `most`
    /// words; `most` words when it does not say.
    init(keys: Int?, most: Int) {
        wordCount = keys.map { min(most, max(1, $0)) } ?? most
        words = FilterWords(count: wordCount)
    }

    /// Adds the key; true when it may have been added before.
    @inline(__always)
    mutating func insert(_ hash: FilterHash) -> Bool { insert(word: hash, bits: hash) }

    /// Adds the key whose word is chosen by `word` (part of the key) and whose bits by `bits` (the
    /// whole key): the word can then be fetched (`prefetch`) before the rest of the key is known.
    @inline(__always)
    mutating func insert(word: FilterHash, bits: FilterHash) -> Bool {
        let h = bits.value
        let bits: UInt64 = 1 << ((h >> 32) & 63) | 1 << ((h >> 38) & 63) | 1 << ((h >> 44) & 63)
        let pointer = words.base + index(word)
        let seen = pointer.pointee & bits == bits
        pointer.pointee |= bits
        return seen
    }

    /// Brings in the word chosen by `word`, without waiting for it.
    @inline(__always)
    func prefetch(word: FilterHash) { cloudsync_prefetch_for_write(words.base + index(word)) }

    /// The low 32 bits scaled to the word count (any count, not only powers of two).
    @inline(__always)
    private func index(_ hash: FilterHash) -> Int { Int(((hash.value & 0xFFFF_FFFF) &* UInt64(wordCount)) >> 32) }
}

/// A filter's zeroed words. An export's filter (10 MiB) is backed by huge pages where the kernel
/// gives them (`MADV_HUGEPAGE`): each key lands on a random word, and with 4 KiB pages nearly every
/// one was a TLB miss too, which a virtual machine's nested page tables make dear. perf on the 1 GB
/// import: the load of the word was 87% of `MetricWriter.add`'s samples, 4.3% of the import's CPU.
final class FilterWords {
    private static let hugePage = 2 << 20
    let base: UnsafeMutablePointer<UInt64>

    init(count: Int) {
        let bytes = count * MemoryLayout<UInt64>.stride
        let huge = bytes >= Self.hugePage
        var memory: UnsafeMutableRawPointer?
        guard posix_memalign(&memory, huge ? Self.hugePage : 64, bytes) == 0, let memory else {
            fatalError("out of memory for a filter of \(bytes) bytes")
        }
        // Advised before the first touch, so that the zeroing faults in huge pages (a hint: where
        // the kernel has none, the filter works the same on small pages).
        if huge { _ = madvise(memory, bytes, MADV_HUGEPAGE) }
        memset(memory, 0, bytes)
        base = memory.bindMemory(to: UInt64.self, capacity: count)
    }

    deinit { free(base) }
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
