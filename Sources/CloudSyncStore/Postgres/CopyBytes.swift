/// A chunk's bytes in `COPY`'s binary format, written straight into memory of their own: a cell's
/// length and value are stores at the end, with no check but the room. Appended to a `[UInt8]` a
/// few bytes at a time (`append(contentsOf:)`, its `memmove`, the array's exclusivity checks and
/// their thread-local lookups), they were about 15% of `serve`'s CPU while the 1 GB export streamed
/// in (perf, 2026-11-28: 6.3% the append, 6.8% memmove, 4.2% `__tls_get_addr`, 2.2% the access checks).
struct CopyBytes: ~Copyable {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 1 << 16) {
        self.capacity = max(capacity, 8)
        base = .allocate(byteCount: self.capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    var isEmpty: Bool { count == 0 }

    /// A number, big-endian (`storeBytes` needs no alignment).
    @inline(__always)
    mutating func append<Word: FixedWidthInteger>(_ word: Word) {
        let size = MemoryLayout<Word>.size
        if count + size > capacity { grow(to: count + size) }
        base.storeBytes(of: word.bigEndian, toByteOffset: count, as: Word.self)
        count += size
    }

    mutating func append<Bytes: Collection<UInt8>>(contentsOf bytes: Bytes) {
        let size = bytes.count
        if count + size > capacity { grow(to: count + size) }
        let room = UnsafeMutableRawBufferPointer(start: base + count, count: size)
        if bytes.withContiguousStorageIfAvailable({ room.copyMemory(from: UnsafeRawBufferPointer($0)) }) == nil {
            _ = room.initializeMemory(as: UInt8.self, from: bytes)
        }
        count += size
    }

    /// Emptied; the memory is kept unless it grew past `keepingUpTo` bytes.
    mutating func removeAll(keepingUpTo limit: Int) {
        count = 0
        if capacity > limit {
            base.deallocate()
            capacity = min(capacity, 1 << 16)
            base = .allocate(byteCount: capacity, alignment: 8)
        }
    }

    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    private mutating func grow(to needed: Int) {
        var larger = capacity * 2
        while larger < needed { larger *= 2 }
        let moved = UnsafeMutableRawPointer.allocate(byteCount: larger, alignment: 8)
        moved.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = moved
        capacity = larger
    }
}
