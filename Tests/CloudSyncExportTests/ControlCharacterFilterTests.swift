import CloudSyncTesting
import Foundation
import CloudSyncExport
import CloudSyncModel
import Testing

@Suite struct ControlCharacterFilterTests {
    @Test func replacesExactlyTheForbiddenBytesAtEveryPosition() {
        let forbidden = (0..<0x20).map(UInt8.init).filter { $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
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

    @Test func aVerticalTabInAnAttributeDoesNotStopTheConversion() throws {
        let device = "<<HKDevice: 0x1>, name:iPhone, software:16.1\u{0B}>".replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        let xml = exportXML(record("HKQuantityTypeIdentifierStepCount", unit: "count", value: "12").replacingOccurrences(of: "/>", with: " device=\"\(device)\"/>"))
        let (metrics, _, report) = try convert(try writeFile(xml))
        #expect(metrics.count == 1)
        #expect(metrics.first?.metadata["device"] == "iPhone")
        #expect(report.controlCharactersReplaced == 1)
    }
}
