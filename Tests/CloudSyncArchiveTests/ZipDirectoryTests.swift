@testable import CloudSyncArchive
import CloudSyncModel
import CloudSyncTesting
import Foundation
import Testing
import ZIPFoundation

/// The archive layer on real zips written by another implementation (ZIPFoundation): the entries
/// listed, and each entry's bytes, checked against what was put in.
@Suite struct ZipDirectoryTests {
    func makeZip(_ files: [(String, Data, CompressionMethod)]) throws -> String {
        let url = try makeTemporaryDirectory().appendingPathComponent("archive.zip")
        let archive = try Archive(url: url, accessMode: .create)
        for (path, data, method) in files {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: method) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return url.path
    }

    @Test func listsEveryEntryAndReadsEachOneBack() throws {
        let route = Data(String(repeating: "<trkpt lat=\"1\" lon=\"2\"/>\n", count: 5000).utf8)
        let ecg = Data("Name\nRecorded Date,2023-03-04 20:55:07 -0500\n\n1.5\n".utf8)
        let path = try makeZip([("apple_health_export/export.xml", Data("<HealthData/>".utf8), .deflate),
                                ("apple_health_export/workout-routes/route_1.gpx", route, .deflate),
                                ("apple_health_export/electrocardiograms/ecg_1.csv", ecg, .none)])
        let archive = try #require(try SeekableZip(path: path))
        #expect(archive.directory.entries.map(\.path) == ["apple_health_export/export.xml", "apple_health_export/workout-routes/route_1.gpx",
                                                      "apple_health_export/electrocardiograms/ecg_1.csv"])
        let inflater = Inflater()
        for (entry, expected) in zip(archive.directory.entries.dropFirst(), [route, ecg]) {
            var read = Data()
            try archive.directory.readChecked(entry, with: inflater) { read.append(contentsOf: $0) }
            #expect(read == expected)
        }
    }

    @Test func anythingButASeekableZipIsLeftToTheStreamReaders() throws {
        #expect(try SeekableZip(path: "-") == nil)
        #expect(try SeekableZip(path: Paths.sampleXML) == nil)
        #expect(try SeekableZip(path: "/nonexistent.zip") == nil)
        #expect(try SeekableZip(path: Paths.sampleZip) != nil)
    }
}
