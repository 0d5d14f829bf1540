@testable import CloudSyncExport
@testable import CloudSyncModel
@testable import CloudSyncArchive
import CloudSyncTesting
import Foundation
import Testing
@preconcurrency import ZIPFoundation

/// Structural damage stops the run with an error naming the input and the place, after every
/// complete metric before the damage reached the sink.
@Suite struct BadInputTests {
    func failure(_ path: String) throws -> (error: ConversionError, sink: CollectingSink) {
        let sink = CollectingSink()
        do {
            try ReaderRunner.run(ExportConverter(input: path), into: sink.sinks)
        } catch let error as ConversionError {
            return (error, sink)
        }
        Issue.record("converting \(path) did not fail")
        throw CancellationError()
    }

    @Test func truncatedXMLKeepsWhatCameBefore() throws {
        let full = try String(contentsOf: Paths.samples.appendingPathComponent("export.xml"), encoding: .utf8)
        let cut = String(full.utf8.prefix(full.utf8.count * 2 / 3))!
        let path = try writeFile(cut)
        let (error, sink) = try failure(path)
        guard case .malformedXML(let input, nil, let syntax) = error else { Issue.record("got \(error)"); return }
        #expect(input == path)
        #expect(syntax.line > 30)
        #expect(error.description.hasPrefix("\(path):\(syntax.line):"))
        #expect(sink.metrics.count > 10)
        #expect(sink.abandoned && !sink.finished)
    }

    /// An export cut between two elements says it was cut short, not libxml2's "Extra content".
    @Test func aFileCutBetweenElementsSaysItWasCutShort() throws {
        let text = try String(contentsOfFile: Paths.sampleXML, encoding: .utf8)
        let cutAt = try #require(text.range(of: "/>\n", range: text.index(text.startIndex, offsetBy: 2500)..<text.endIndex)).upperBound
        let (error, sink) = try failure(try writeFile(String(text[..<cutAt]), named: "cut.xml"))
        #expect(error.description.contains("cut short"), "\(error)")
        #expect(!error.description.contains("Extra content"), "\(error)")
        #expect(sink.abandoned && !sink.metrics.isEmpty)
    }

    /// export.xml stored uncompressed with a byte changed, under the CRC of the bytes before the
    /// change: garbage to the parser, and said as what it is, a damaged zip whose CRC-32 does not match.
    @Test func aDamagedZipEntryIsACRCMismatchNotAnXMLError() throws {
        let original = try Data(contentsOf: URL(fileURLWithPath: Paths.sampleXML))
        var xml = original
        let index = try #require(xml.firstRange(of: Data("sourceName=".utf8))).lowerBound
        xml.replaceSubrange(index..<index + 6, with: Data("value=".utf8))
        let zip = try makeTemporaryDirectory().appendingPathComponent("damaged.zip")
        try RawZip(entries: [.init(path: "apple_health_export/export.xml", data: xml, crc32: CloudSyncTesting.crc32(original))]).bytes.write(to: zip)
        let (error, _) = try failure(zip.path)
        #expect(error.description.contains("damaged zip") && error.description.contains("CRC-32 mismatch"), "\(error)")
        #expect(!error.description.contains("NSCocoaErrorDomain") && !error.description.contains("The file"))
    }

    @Test func emptyInput() throws {
        let (error, _) = try failure(try writeFile(""))
        #expect(error.description.contains("the input is empty"))
    }

    @Test func randomBytes() throws {
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let url = try makeTemporaryDirectory().appendingPathComponent("random.bin")
        try bytes.write(to: url)
        let (error, _) = try failure(url.path)
        guard case .notAnExport = error else { Issue.record("got \(error)"); return }
    }

    @Test func anXMLDocumentThatIsNotAnExport() throws {
        let (error, _) = try failure(try writeFile("<?xml version=\"1.0\"?>\n<ClinicalDocument><x/></ClinicalDocument>\n"))
        #expect(error.description.contains("its root element is <ClinicalDocument>, not <HealthData>"))
    }

    @Test func aMissingFile() throws {
        let (error, _) = try failure("/nonexistent/export.zip")
        guard case .unreadable = error else { Issue.record("got \(error)"); return }
        #expect(error.description.contains("/nonexistent/export.zip"))
    }

    @Test func entitiesAreNeverExpanded() throws {
        // The DTD declares entities; it is removed, so their use is an undeclared-entity error, not an expansion.
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE HealthData [
            <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
            <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
            <!ENTITY secret SYSTEM "file:///etc/hostname">
            ]>
            <HealthData locale="en_US">
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="&b;&secret;" unit="count" startDate="2024-11-02 07:00:00 -0500" endDate="2024-11-02 07:10:00 -0500" value="1"/>
            </HealthData>

            """
        let (error, sink) = try failure(try writeFile(xml))
        guard case .malformedXML(_, _, let syntax) = error else { Issue.record("got \(error)"); return }
        #expect(syntax.message.contains("not defined"))
        #expect(syntax.line == 8)
        #expect(sink.metrics.isEmpty)
    }
}

@Suite struct ZipInputTests {
    static let sample = try! Data(contentsOf: Paths.samples.appendingPathComponent("export.xml"))

    @Test(arguments: ["apple_health_export/export.xml", "apple_health_export/Export.xml", "apple_health_export/导出.xml",
                      "apple_health_export/تصدير.xml", "Exportieren.xml"])
    func findsTheExportByContent(_ name: String) throws {
        let dir = try makeTemporaryDirectory()
        let decoy = Data("<?xml version=\"1.0\"?>\n<!DOCTYPE HealthData [\n]>\n<HealthData locale=\"x\"></HealthData>\n".utf8)
        let path = try ZipFixtures.make([
            ("apple_health_export/", Data()),
            ("__MACOSX/apple_health_export/._export.xml", decoy),
            ("apple_health_export/export_cda.xml", Data("<?xml version=\"1.0\"?><ClinicalDocument/>".utf8)),
            ("apple_health_export/workout-routes/route_1.gpx", Data("<gpx/>".utf8)),
            (name, Self.sample),
        ], in: dir)
        let (metrics, _, report) = try convert(path)
        #expect(metrics.count == 24)
        #expect(report.entry == name)
        #expect(report.otherFiles.contains("apple_health_export/export_cda.xml"))
        #expect(report.otherFiles.contains("apple_health_export/workout-routes/route_1.gpx"))
    }

    @Test func aZipWithoutAnExport() throws {
        let path = try ZipFixtures.make([("notes.xml", Data("<notes/>".utf8)), ("a.txt", Data("hello".utf8))], in: try makeTemporaryDirectory())
        #expect(throws: ConversionError.self) { try convert(path) }
        do { _ = try convert(path) } catch { #expect("\(error)".contains("no file in the zip declares <HealthData>")) }
    }

    @Test func aCRCMismatchIsAnError() throws {
        let dir = try makeTemporaryDirectory()
        let path = try ZipFixtures.make([("apple_health_export/export.xml", Self.sample)], in: dir)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // Change the CRC-32 in the central directory (offset 16 of its header) and the local header (offset 14).
        for offset in ZipFixtures.offsets(of: [0x50, 0x4B, 0x01, 0x02], in: bytes) { bytes[offset + 16] ^= 0xFF }
        for offset in ZipFixtures.offsets(of: [0x50, 0x4B, 0x03, 0x04], in: bytes) { bytes[offset + 14] ^= 0xFF }
        try bytes.write(to: URL(fileURLWithPath: path))
        let sink = CollectingSink()
        #expect {
            try ReaderRunner.run(ExportConverter(input: path), into: sink.sinks)
        } throws: { error in
            "\(error)".contains("CRC-32 mismatch") && "\(error)".contains("apple_health_export/export.xml")
        }
        #expect(sink.metrics.count == 24)  // all parsed, then the checksum said no
    }

    @Test func aCorruptedDeflateStreamIsAnError() throws {
        let dir = try makeTemporaryDirectory()
        let path = try ZipFixtures.make([("apple_health_export/export.xml", Self.sample)], in: dir)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let dataStart = 30 + "apple_health_export/export.xml".utf8.count
        for i in stride(from: dataStart + 200, to: dataStart + 400, by: 3) { bytes[i] ^= 0x5A }
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect { try convert(path) } throws: { error in
            guard let error = error as? ConversionError else { return false }
            guard case .damagedZip(_, let entry, _) = error else { return false }
            return entry == "apple_health_export/export.xml"
        }
    }

    @Test func aZipCutShortIsAnError() throws {
        let dir = try makeTemporaryDirectory()
        let path = try ZipFixtures.make([("apple_health_export/export.xml", Self.sample)], in: dir)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))
        #expect { try convert(path) } throws: { "\($0)".contains("damaged zip") }
    }

    /// The streaming reader (used for pipes) on the same bytes, through a FileReader over a pipe
    /// written in small pieces, deflated and stored: the first 4 KiB arrive over several reads.
    @Test(arguments: [true, false], [7, 1000, 65536])
    func streamingReaderMatchesTheArchiveReader(_ deflated: Bool, _ writeSize: Int) throws {
        let dir = try makeTemporaryDirectory()
        let path = try ZipFixtures.make([("apple_health_export/workout-routes/r.gpx", Data("<gpx/>".utf8)),
                                         ("apple_health_export/export.xml", Self.sample)], in: dir, method: deflated ? .deflate : .none)
        let zipBytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let source = try StreamingZipBytes(reader: try pipeReader(writing: zipBytes, inPiecesOf: writeSize))
        var streamed: [UInt8] = []
        try source.produce { streamed.append(contentsOf: $0) }
        #expect(Data(streamed) == Self.sample)
        #expect(source.info.entryName == "apple_health_export/export.xml")
        #expect(source.info.otherEntries == ["apple_health_export/workout-routes/r.gpx"])
    }
}
