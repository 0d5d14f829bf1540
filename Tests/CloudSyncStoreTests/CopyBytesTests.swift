@testable import CloudSyncStore
import Testing

/// The bytes of a `COPY` chunk (`CopyBytes`): numbers big-endian at any offset, bytes as they are,
/// across the growth of the memory and after it is emptied.
struct CopyBytesTests {
    @Test func numbersAndBytesAreWrittenBigEndianAcrossGrowth() {
        var bytes = CopyBytes(capacity: 8)
        var expected: [UInt8] = []
        for index in 0..<1_000 {
            bytes.append(Int16(index))
            expected += [UInt8(index >> 8), UInt8(index & 0xFF)]
            bytes.append(Int64(-index))
            expected += withUnsafeBytes(of: Int64(-index).bigEndian, Array.init)
            let text = Array("row \(index)".utf8)
            bytes.append(contentsOf: text)
            expected += text
            bytes.append(contentsOf: (0..<3).map { UInt8($0 + index % 7) })
            expected += (0..<3).map { UInt8($0 + index % 7) }
            bytes.append(contentsOf: UInt8(1)...UInt8(3))   // a range: no contiguous storage
            expected += [1, 2, 3]
        }
        #expect(bytes.count == expected.count)
        #expect(bytes.withBytes { Array($0) } == expected)

        bytes.removeAll(keepingUpTo: 1 << 10)
        let emptied = bytes.isEmpty
        #expect(emptied)
        bytes.append(Int32(-1))
        #expect(bytes.withBytes { Array($0) } == [0xFF, 0xFF, 0xFF, 0xFF])
    }
}
