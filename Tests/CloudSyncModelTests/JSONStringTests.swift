import CloudSyncModel
import Foundation
import Testing

/// A string written as JSON reads back as itself, with only what JSON reserves escaped, wherever the
/// character sits in the eight bytes the writer looks at together.
@Suite struct JSONStringTests {
    func written(_ text: String) -> [UInt8] {
        var buffer = ByteBuffer(capacity: 16)
        Array(text.utf8).withUnsafeBufferPointer { buffer.appendJSONString($0) }
        return buffer.withBytes { Array($0) }
    }

    func readBack(_ json: [UInt8]) throws -> String? {
        try JSONSerialization.jsonObject(with: Data(json), options: .fragmentsAllowed) as? String
    }

    @Test(arguments: ["\u{0}", "\u{1}", "\t", "\n", "\r", "\u{1F}", "\"", "\\"])
    func aReservedCharacterIsEscapedAtEveryPosition(_ reserved: String) throws {
        for length in 1...20 {
            for position in 0..<length {
                let text = String(repeating: "a", count: position) + reserved + String(repeating: "é", count: length - position - 1)
                let json = written(text)
                #expect(try readBack(json) == text, "\(length) \(position)")
                #expect(json.count > text.utf8.count + 2, "\(length) \(position): escaped")
            }
        }
    }

    @Test(arguments: [" ", "!", "#", "[", "]", "\u{7F}", "é", "€", "😀"])
    func anyOtherCharacterIsCopiedAsItIs(_ plain: String) throws {
        for length in 0...20 {
            let text = String(repeating: plain, count: length) + "x"
            #expect(written(text) == [0x22] + Array(text.utf8) + [0x22], "\(length)")
        }
    }
}
