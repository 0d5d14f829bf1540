import CloudSyncModel
import Crypto
import Foundation

/// What the contracts' body writers need of a pending metric beyond its stored columns.
extension MappedMetric {
    /// A UUID that is the same on every run for the same metric: version 5 (SHA-1, RFC 4122) of
    /// the metric's identity `(type, startDate, endDate, sourceApp, value, unit)` and, for a category
    /// sample, its category value, so a server that deduplicates by uuid absorbs a batch sent twice
    /// but keeps an InBed and an Asleep sample of the same span apart. Written as `uuidString`
    /// writes it (upper case), straight from the metric's bytes.
    func appendStableUUID(to out: inout ByteBuffer) {
        // The name hashed is `type|start|end|source|valueBits|unit[|category]`, as it always was.
        var name = ByteBuffer(capacity: 256)
        name.append(type)
        name.append(UInt8(ascii: "|"))
        name.appendInteger(startDate)
        name.append(UInt8(ascii: "|"))
        name.appendInteger(endDate)
        name.append(UInt8(ascii: "|"))
        name.append(sourceApp)
        name.append(UInt8(ascii: "|"))
        Self.appendUnsigned(value.bitPattern, to: &name)
        name.append(UInt8(ascii: "|"))
        name.append(unit)
        if let categoryValue {
            name.append(UInt8(ascii: "|"))
            name.append(categoryValue)
        }
        var hasher = Insecure.SHA1()
        hasher.update(data: uuidNamespace)
        name.withBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        var bytes = Array(hasher.finalize().prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex: StaticString = "0123456789ABCDEF"
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { out.append(UInt8(ascii: "-")) }
            out.append(hex.utf8Start[Int(byte >> 4)])
            out.append(hex.utf8Start[Int(byte & 0x0F)])
        }
    }

    private static func appendUnsigned(_ value: UInt64, to out: inout ByteBuffer) {
        var digits: [UInt8] = []
        var rest = value
        repeat {
            digits.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        for digit in digits.reversed() { out.append(digit) }
    }
}

/// The namespace of CloudSync's metric UUIDs (a fixed random UUID). An array, not `Data`:
/// LeakSanitizer cannot see the spare-bit-tagged pointer of a global `Data` and calls it a leak.
private let uuidNamespace: [UInt8] = [0x6f, 0x0b, 0x7a, 0x1e, 0x43, 0x52, 0x4c, 0x8e, 0x9d, 0x21, 0x5a, 0x3f, 0xc4, 0x77, 0x10, 0x2b]
