@testable import CloudSyncExport
@testable import CloudSyncModel
@testable import CloudSyncArchive
import CloudSyncTesting
import Foundation
import Testing

/// DTDs broken in ways not seen in real exports: whatever the DOCTYPE holds, it is dropped up to
/// the root element, the records convert, and the report says what was wrong with it.
@Suite struct HostileXMLTests {
    static let records = """
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2024-11-02 07:00:00 -0500" endDate="2024-11-02 07:10:00 -0500" value="12"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" startDate="2024-11-02 08:00:00 -0500" endDate="2024-11-02 08:10:00 -0500" value="30"/>
        """

    static func document(_ doctype: String) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\(doctype)\n<HealthData locale=\"en_US\">\n\(records)\n</HealthData>\n"
    }

    @Test(arguments: [
        ("the internal subset never closed", "<!DOCTYPE HealthData [\n<!ELEMENT HealthData (Record*)>\n<!ATTLIST Record type CDATA #REQUIRED>\n"),
        ("an unbalanced quote", "<!DOCTYPE HealthData [\n<!ATTLIST Record type CDATA \"unclosed >\n]>"),
        ("a comment and a CDATA that never end", "<!DOCTYPE HealthData [\n<!-- never closed\n<![CDATA[ ]]> ]]>\n]>"),
        ("two DOCTYPEs", "<!DOCTYPE HealthData [\n<!ELEMENT HealthData ANY>\n]>\n<!DOCTYPE Other [\n<!ENTITY x \"y\">\n]>"),
        ("an external DTD over the network", "<!DOCTYPE HealthData SYSTEM \"http://198.51.100.1/export.dtd\">"),
        ("parameter entities that refer to themselves", "<!DOCTYPE HealthData [\n<!ENTITY % a \"%b;\">\n<!ENTITY % b \"%a;\">\n%a;\n]>"),
        ("stray '>' and half declarations", "<!DOCTYPE HealthData [\n>>>\n<!ATTLIST\n<!ELEMENT\n<!ENTITY\n]>>"),
    ])
    func aBrokenDTDIsDroppedAndTheRecordsConvert(_ what: String, _ doctype: String) throws {
        let (metrics, _, report) = try convert(try writeFile(Self.document(doctype)))
        #expect(metrics.count == 2, "\(what)")
        #expect(report.hadDoctype, "\(what)")
    }

    @Test func aDTDOfMegabytesOfBinaryGarbage() throws {
        var garbage = SplitMix64(seed: 7)
        let bytes = (0..<3_000_000).map { _ in UInt8(truncatingIfNeeded: garbage.next()) }.map { $0 == UInt8(ascii: "<") ? 0x20 : $0 }
        var data = Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE HealthData [\n".utf8)
        data.append(contentsOf: bytes)
        data.append(Data("\n]>\n<HealthData locale=\"en_US\">\n\(Self.records)\n</HealthData>\n".utf8))
        let url = try makeTemporaryDirectory().appendingPathComponent("export.xml")
        try data.write(to: url)
        let (metrics, _, report) = try convert(url.path)
        #expect(metrics.count == 2)
        #expect(!report.dtdDefects.isEmpty)
    }

    /// A DOCTYPE and no root element after it: nothing to convert, said clearly.
    @Test func aDTDWithNoRootAfterIt() throws {
        let path = try writeFile("<?xml version=\"1.0\"?>\n<!DOCTYPE HealthData [\n<!ELEMENT HealthData ANY>\n]>\n")
        #expect { try convert(path) } throws: { error in
            guard let error = error as? ConversionError else { return false }
            return error.description.contains(path)
        }
    }
}
