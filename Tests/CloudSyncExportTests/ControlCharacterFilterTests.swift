import CloudSyncTesting
import Foundation
import CloudSyncExport
import CloudSyncModel
import Testing

@Suite struct ControlCharacterFilterTests {
    @Test func replacesExactlyTheForbiddenBytesAtEveryPosition() {
        // DEL (0x7F) too: it is the mark of `&lt;` and `&gt;` (`EntityMarks`), so a raw one never reaches libxml2.
        let forbidden = (0..<0x20).map(UInt8.init).filter { $0 != 0x09 && $0 != 0x0A && $0 != 0x0D } + [0x7F]
        for length in [1, 15, 16, 17, 31, 32, 33, 100] {
            for position in 0..<length {
                for byte in UInt8.min...UInt8.max {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = byte
                    let replaced = bytes.withUnsafeMutableBufferPointer { ControlCharacterFilter.replaceForbidden(in: $0) }
                    let isForbidden = forbidden.contains(byte)
                    #expect(replaced == (isForbidden ? 1 : 0))
                    #expect(bytes[position] == (isForbidden ? 0x20 : byte))
                }
            }
        }
    }

    /// `&lt;` and `&gt;` get their `&` marked wherever they start, in a block of 16 or across two,
    /// unless the buffer ends inside them (libxml2 then reads them itself); other entities and a
    /// lone `&` are left alone, and marks are not counted as replaced.
    @Test func marksAngleEntitiesAtEveryPositionAndLeavesTheOthers() {
        for length in [4, 15, 16, 17, 20, 33, 40] {
            for position in 0...(length - 4) {
                for (entity, marked) in [("&lt;", true), ("&gt;", true), ("&amp;", false), ("&#60;", false), ("&l;", false), ("&", false)] {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    let entityBytes = Array(entity.utf8).prefix(length - position)
                    bytes.replaceSubrange(position..<(position + entityBytes.count), with: entityBytes)
                    let before = bytes
                    let replaced = bytes.withUnsafeMutableBufferPointer { ExportBytePass.prepare($0) }
                    #expect(replaced == 0)
                    let whole = entityBytes.count == entity.utf8.count
                    #expect(bytes[position] == (marked && whole ? EntityMarks.mark : UInt8(ascii: "&")), "\(entity) at \(position) of \(length)")
                    #expect(Array(bytes[(position + 1)...]) == Array(before[(position + 1)...]))
                }
            }
        }
    }

    /// What a value says comes out as written, whatever mix of entities it holds; a raw DEL, which
    /// would read as a mark, is a space and counted as a replaced control character.
    @Test func valuesWithEntitiesAndDeleteComeOutAsWritten() throws {
        let device = "&lt;&lt;HKDevice: 0x1&gt;, name:iPhone &amp; co &lt;3, model:&#60;x&#62;&gt;"
        let xml = exportXML(record("HKQuantityTypeIdentifierStepCount", unit: "count", value: "12")
            .replacingOccurrences(of: "/>", with: " device=\"\(device)\"><MetadataEntry key=\"note\" value=\"a &lt; b &gt; c\u{7F}d &amp;lt; &#38;gt;\"/></Record>"))
        let (metrics, _, report) = try convert(try writeFile(xml))
        #expect(metrics.first?.metadata["note"] == "a < b > c d &lt; &gt;")
        #expect(metrics.first?.metadata["device"] == "iPhone & co <3")
        #expect(report.controlCharactersReplaced == 1)
    }

    /// An entity is turned back wherever it stands in a value, short or long, among characters of one
    /// and two bytes, and a value without one comes out whole: the scan that looks for them reads
    /// eight bytes at a time (`ElementBatch.holdsEntity`), then byte by byte.
    @Test func entitiesAreTurnedBackAtEveryPositionOfAValue() throws {
        var entries = "", expected: [String: String] = [:]
        func text(_ count: Int, from offset: Int) -> String { String((0..<count).map { ($0 + offset) % 3 == 0 ? "é" : "a" }) }
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 24] {
            let plain = text(length, from: 1)
            if length > 0 {
                entries += "<MetadataEntry key=\"plain\(length)\" value=\"\(plain)\"/>"
                expected["plain\(length)"] = plain
            }
            for position in 0...length {
                for (entity, character) in [("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"), ("&#38;", "&")] {
                    let key = "k\(length)-\(position)-\(entity.dropFirst().dropLast())"
                    let before = text(position, from: 0), after = text(length - position, from: position)
                    entries += "<MetadataEntry key=\"\(key)\" value=\"\(before)\(entity)\(after)\"/>"
                    expected[key] = before + character + after
                }
            }
        }
        let xml = exportXML(record("HKQuantityTypeIdentifierStepCount", unit: "count", value: "12")
            .replacingOccurrences(of: "/>", with: ">\(entries)</Record>"))
        let (metrics, _, _) = try convert(try writeFile(xml))
        let metadata = try #require(metrics.first?.metadata)
        for (key, value) in expected { #expect(metadata[key] == value, "\(key)") }
    }

    @Test func aVerticalTabInAnAttributeDoesNotStopTheConversion() throws {
        let device = "<<HKDevice: 0x1>, name:iPhone, software:16.1\u{0B}>".replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        let xml = exportXML(record("HKQuantityTypeIdentifierStepCount", unit: "count", value: "12").replacingOccurrences(of: "/>", with: " device=\"\(device)\"/>"))
        let (metrics, _, report) = try convert(try writeFile(xml))
        #expect(metrics.count == 1)
        #expect(metrics.first?.metadata["device"] == "iPhone")
        #expect(report.controlCharactersReplaced == 1)
    }
}
