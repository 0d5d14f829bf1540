@testable import CloudSyncArchive
import CCRC32
import CloudSyncModel
import Foundation
import Testing
import ZIPFoundation

/// The zip's CRC-32 as the archive layer computes it (folded by carry-less multiplication where the
/// processor has it, zlib's tables for the rest), against ZIPFoundation's own implementation, on
/// every length around the folding's thresholds and on bytes fed in uneven pieces, as inflating does.
@Suite struct CRC32Tests {
    private func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    private func computed(_ bytes: [UInt8], pieces: [Int]) -> UInt32 {
        let inflater = Inflater()
        bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            for piece in pieces where offset < buffer.count {
                let n = min(piece, buffer.count - offset)
                inflater.updateCRC(ByteText(rebasing: buffer[offset..<offset + n]))
                offset += n
            }
            if offset < buffer.count { inflater.updateCRC(ByteText(rebasing: buffer[offset...])) }
        }
        return inflater.crc
    }

    @Test func everyLengthAroundTheFoldingMatchesAnotherImplementation() {
        for length in Array(0...300) + [1023, 1024, 1025, 4096 + 7, 65_536, 256 << 10] {
            let bytes = randomBytes(length, seed: UInt64(length) + 1)
            let expected = Data(bytes).crc32(checksum: 0)
            #expect(computed(bytes, pieces: [length]) == expected, "length \(length)")
        }
    }

    @Test func bytesInUnevenPiecesGiveTheSameCRC() {
        let bytes = randomBytes(1 << 20, seed: 42)
        let expected = Data(bytes).crc32(checksum: 0)
        #expect(computed(bytes, pieces: [1, 63, 64, 65, 17, 4096, 100_000, 3, 262_144]) == expected)
        #expect(computed(bytes, pieces: Array(repeating: 48, count: 30_000)) == expected)
        // Known value: the CRC-32 of "123456789" is cbf43926 (the check value of the zip's CRC).
        #expect(computed(Array("123456789".utf8), pieces: [9]) == 0xCBF4_3926)
        let long = Array(String(repeating: "123456789", count: 100).utf8)
        #expect(computed(long, pieces: [long.count]) == Data(long).crc32(checksum: 0))
    }
}

extension CRC32Tests {
    static var processorFolds: Bool {
        #if arch(x86_64)
        (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?.contains(" pclmulqdq") ?? false
        #else
        false
        #endif
    }

    /// Without this, the checks above would pass on zlib's tables alone and never try the folding.
    @Test(.enabled(if: processorFolds, "the processor has no carry-less multiplication"))
    func aProcessorWithCarryLessMultiplicationFolds() {
        #expect(cloudsync_crc32_is_folding() != 0)
    }
}
