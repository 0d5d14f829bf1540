/// A growable byte buffer that the writers fill and flush; one per output, reused for every record
/// so that the hot path never allocates.
public struct ByteBuffer: ~Copyable {
    package var storage: UnsafeMutablePointer<UInt8>
    package var capacity: Int
    public private(set) var count: Int = 0

    public init(capacity: Int) {
        self.capacity = Swift.max(capacity, 64)
        storage = .allocate(capacity: self.capacity)
    }

    deinit { storage.deallocate() }

    public mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(count + extra) }
    }

    package mutating func grow(_ needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newStorage = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newStorage.update(from: storage, count: count)
        storage.deallocate()
        storage = newStorage
        capacity = newCapacity
    }

    public mutating func append(_ byte: UInt8) {
        reserve(1)
        storage[count] = byte
        count += 1
    }

    public mutating func append(_ bytes: ByteText) {
        guard bytes.count > 0 else { return }
        reserve(bytes.count)
        (storage + count).update(from: bytes.baseAddress!, count: bytes.count)
        count += bytes.count
    }

    public mutating func append(_ literal: StaticString) {
        append(ByteText(literal: literal))
    }

    public mutating func append(_ string: String) {
        var copy = string
        copy.withUTF8 { append($0) }
    }

    public mutating func appendInteger(_ value: Int64) {
        reserve(20)
        if value < 0 { storage[count] = UInt8(ascii: "-"); count += 1 }
        var magnitude = value.magnitude
        let first = count
        repeat {
            storage[count] = UInt8(truncatingIfNeeded: 48 + magnitude % 10)
            magnitude /= 10
            count += 1
        } while magnitude > 0
        var low = first, high = count - 1
        while low < high {
            let byte = storage[low]
            storage[low] = storage[high]
            storage[high] = byte
            low += 1
            high -= 1
        }
    }

    /// Writes `n` bytes in place; `body` must fill exactly `n`.
    public mutating func appendInPlace(_ n: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Void) {
        reserve(n)
        body(storage + count)
        count += n
    }

    public mutating func removeAll() { count = 0 }

    /// Empties the buffer and gives its memory back when it grew past `limit` bytes.
    public mutating func removeAll(shrinkingAbove limit: Int, to smaller: Int) {
        count = 0
        guard capacity > limit else { return }
        storage.deallocate()
        capacity = Swift.max(smaller, 64)
        storage = .allocate(capacity: capacity)
    }

    /// Drops everything after the first `n` bytes.
    public mutating func truncate(to n: Int) { count = Swift.min(count, n) }

    /// Removes the first `n` bytes, keeping the rest.
    public mutating func removeFirst(_ n: Int) {
        let rest = count - n
        if rest > 0 { storage.update(from: storage + n, count: rest) }
        count = Swift.max(rest, 0)
    }

    public func withBytes<R>(_ body: (ByteText) throws -> R) rethrows -> R {
        try body(ByteText(start: storage, count: count))
    }

    /// The stored bytes `range`; valid until the buffer next grows.
    public func bytes(_ range: Range<Int>) -> ByteText {
        ByteText(start: storage + range.lowerBound, count: range.count)
    }
}
