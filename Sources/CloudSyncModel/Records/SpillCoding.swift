/// A compact binary form of records kept in a temporary file for the length of one run (a zip read
/// from a pipe holds routes before the workouts they link to). Written and read back by the same
/// kind in the same run, so it needs no versioning: little-endian words, optional values tagged.
public struct SpillWriter {
    public private(set) var bytes: [UInt8] = []
    public init() {}

    public mutating func put(_ value: UInt64) {
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }
    public mutating func put(_ value: Int64) { put(UInt64(bitPattern: value)) }
    public mutating func put(_ value: Int) { put(Int64(value)) }
    /// A Double; nil is written as a NaN (no value a file gives is NaN: they are refused).
    public mutating func put(_ value: Double?) { put((value ?? .nan).bitPattern) }
    public mutating func put(_ value: Int64?) {
        guard let value else { bytes.append(0); return }
        bytes.append(1)
        put(value)
    }
    public mutating func put(_ text: String?) {
        guard let text else { bytes.append(0); return }
        bytes.append(1)
        put(UInt64(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
    }
    public mutating func put(bytes value: [UInt8]?) {
        guard let value else { bytes.append(0); return }
        bytes.append(1)
        put(UInt64(value.count))
        bytes.append(contentsOf: value)
    }
}

/// Reads what a `SpillWriter` wrote, in the same order.
public struct SpillReader {
    private let bytes: [UInt8]
    private var offset = 0
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public mutating func word() -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<8 { value |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
        offset += 8
        return value
    }
    public mutating func int() -> Int { Int(Int64(bitPattern: word())) }
    public mutating func int64() -> Int64 { Int64(bitPattern: word()) }
    public mutating func double() -> Double? {
        let value = Double(bitPattern: word())
        return value.isNaN ? nil : value
    }
    public mutating func optionalInt64() -> Int64? { tag() ? int64() : nil }
    public mutating func string() -> String? {
        guard tag() else { return nil }
        let count = Int(word())
        defer { offset += count }
        return String(decoding: bytes[offset..<offset + count], as: UTF8.self)
    }
    public mutating func byteArray() -> [UInt8]? {
        guard tag() else { return nil }
        let count = Int(word())
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }
    private mutating func tag() -> Bool {
        defer { offset += 1 }
        return bytes[offset] == 1
    }
}
