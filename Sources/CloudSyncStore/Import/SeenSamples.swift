/// Which samples (type, dates, input, value, unit, category) this import already added, as a Bloom filter:
/// "no" is certain, "maybe" is checked against the store. In an import into an empty store, only
/// a sample it says "maybe" to can be a repeat, so only those are looked up.
///
/// Why: checking every new row with an index lookup cost 1.6 s of a 15.6 s import of the 1 GB
/// export (2.4 million rows, 11 repeats). Fixed size, so memory stays flat: 10 MiB. At 16 MiB the
/// 3 GB export's import peaked at 97 MiB, over the 96 MiB goal; sized by the export (2 MiB for
/// 256 MB, 12 MiB for 10 GB) it made `Benchmarks/scale.sh` fail: 21 MiB more at 10 GB than at 256 MB.
///
/// Blocked (`BlockedBloomFilter`): a sample's three bits are in one 64-bit word. With
/// two bits anywhere in the 16 MiB, the two misses were 5% of all the import's CPU samples (the
/// store thread's largest entry after SQLite's own). About 1 in 700 samples is looked up for
/// nothing at 2.4 million samples, 1 in 60 at 7 million, 1 in 5 at 24 million.
///
/// A input that says how many samples it holds (a received batch) gets a filter of its size, a
/// word per sample: the 10 MiB cleared for each batch of 1,000 were 4.7% of the PostgreSQL
/// receiver's CPU (perf), and four batches at once held 40 MiB.
struct SeenSamples {
    private static let exportWordCount = 5 << 18
    private var filter: BlockedBloomFilter

    /// `samples`: how many the input holds, when it says.
    init(samples: Int? = nil) {
        filter = BlockedBloomFilter(keys: samples, most: Self.exportWordCount)
    }

    /// How many samples a document of `bytes` may hold: real exports hold one Record in 265 bytes
    /// (a 17.8 MB export.xml of export version 11) to 420 (a 3.1 GB one of version 14); the smaller figure errs towards
    /// a larger filter. An export.xml of 320 MiB or more gets the whole 10 MiB.
    static func samples(inDocumentOf bytes: Int64) -> Int { Int(max(0, bytes) / 256) }

    /// Brings in the word of a sample with these dates and value (`insert` looks there): asked when
    /// the sample arrives, the miss overlaps the look-up of its names. perf on the 1 GB import: the
    /// word's load was 87% of `MetricWriter.add`'s samples, 4.3% of the import's CPU.
    @inline(__always)
    func prefetch(start: Int64, end: Int64, value: Double) { filter.prefetch(word: Self.word(start: start, end: end, value: value)) }

    /// Adds the sample; true when it may have been added before. Its word is chosen by its dates and
    /// value, its bits by the whole sample: samples alike in those but of another type, source or
    /// unit share a word and are told apart by their bits.
    mutating func insert(type: Int64, start: Int64, end: Int64, source: Int64, value: Double, unit: Int64, category: Int64) -> Bool {
        var hash = FilterHash()
        hash.mix(type)
        hash.mix(start)
        hash.mix(end)
        hash.mix(source)
        hash.mix(Self.bits(value))
        hash.mix(unit)
        hash.mix(category)
        return filter.insert(word: Self.word(start: start, end: end, value: value), bits: hash)
    }

    @inline(__always)
    private static func word(start: Int64, end: Int64, value: Double) -> FilterHash {
        var hash = FilterHash()
        hash.mix(start)
        hash.mix(end)
        hash.mix(bits(value))
        return hash
    }

    /// 0.0 and -0.0 are the same value to SQLite: they get the same bits.
    @inline(__always)
    private static func bits(_ value: Double) -> UInt64 { value == 0 ? 0 : value.bitPattern }
}
