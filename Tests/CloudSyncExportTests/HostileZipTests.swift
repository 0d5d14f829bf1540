@testable import CloudSyncExport
@testable import CloudSyncModel
@testable import CloudSyncArchive
import CloudSyncTesting
import Foundation
import Testing

/// Zips whose headers lie: every one ends in a clear error naming the zip (and the entry when
/// there is one), in bounded time, never a hang or a crash.
// The time limit guards against a hang only (a loaded machine took minutes to schedule these).
@Suite(.timeLimit(.minutes(10))) struct HostileZipTests {
    /// Read per use: a global `Data` is a LeakSanitizer false positive (a tagged pointer).
    static var sample: Data { try! Data(contentsOf: Paths.samples.appendingPathComponent("export.xml")) }
    static let exportPath = "apple_health_export/export.xml"

    func write(_ zip: RawZip) throws -> String {
        let url = try makeTemporaryDirectory().appendingPathComponent("export.zip")
        try zip.bytes.write(to: url)
        return url.path
    }

    func damage(_ zip: RawZip) throws -> String {
        do {
            _ = try convert(try write(zip))
        } catch let error as ConversionError {
            return error.description
        }
        Issue.record("the hostile zip converted without an error")
        return ""
    }

    @Test(arguments: [false, true])
    func theRawWriterMakesAZipWeRead(_ zip64: Bool) throws {
        let path = try write(RawZip(entries: [.init(path: "apple_health_export/", data: Data()),
                                              .init(path: Self.exportPath, data: Self.sample)], zip64: zip64))
        let (metrics, _, report) = try convert(path)
        #expect(metrics.count == 24)
        #expect(report.entry == Self.exportPath)
    }

    /// A deflate stream whose last block claims more bytes than the entry holds. ZIPFoundation's
    /// inflate loop spun forever on this (weichsel/ZIPFoundation#389); ours stops at the entry's end.
    @Test(arguments: [64, 10_000])
    func aDeflateStreamThatNeverEnds(_ xmlBytes: Int) throws {
        var deflate = Data([0x00, 0xFF, 0xFF, 0x00, 0x00])  // a non-final stored block of 65,535 bytes
        deflate.append(Self.sample.prefix(xmlBytes))
        let message = try damage(RawZip(entries: [.init(path: Self.exportPath, data: deflate, method: 8,
                                                        uncompressedSize: 65535)]))
        #expect(message.contains(Self.exportPath) && message.contains("ends inside this entry"))
    }

    @Test func anEntryThatInflatesToMoreThanItDeclares() throws {
        let message = try damage(RawZip(entries: [.init(path: Self.exportPath, data: Self.sample, uncompressedSize: 5000)]))
        #expect(message.contains("inflates to more than the 5000 bytes the zip declares"))
    }

    @Test func anEntryThatInflatesToLessThanItDeclares() throws {
        let message = try damage(RawZip(entries: [.init(path: Self.exportPath, data: Self.sample,
                                                        uncompressedSize: UInt64(Self.sample.count + 1))]))
        #expect(message.contains("inflates to \(Self.sample.count) bytes where the zip declares \(Self.sample.count + 1)"))
    }

    @Test func anUnsupportedMethodAndAnEncryptedEntry() throws {
        let bzip2 = try damage(RawZip(entries: [.init(path: Self.exportPath, data: Self.sample, method: 12)]))
        #expect(bzip2.contains("compression method 12 is not supported"))
        var bytes = RawZip(entries: [.init(path: Self.exportPath, data: Self.sample)]).bytes
        let directory = ZipFixtures.offsets(of: [0x50, 0x4B, 0x01, 0x02], in: bytes)[0]
        bytes[directory + 8] |= 0x01
        let url = try makeTemporaryDirectory().appendingPathComponent("export.zip")
        try bytes.write(to: url)
        #expect { try convert(url.path) } throws: { "\($0)".contains("the entry is encrypted") }
    }

    /// Offsets and sizes in the directory that point outside the file.
    @Test(arguments: [(42, "header offset"), (20, "go past the end of the file"), (10, "zip directory lists")])
    func directoryFieldsThatLie(_ field: Int, _ expected: String) throws {
        var bytes = RawZip(entries: [.init(path: Self.exportPath, data: Self.sample)]).bytes
        if field == 10 {
            let end = ZipFixtures.offsets(of: [0x50, 0x4B, 0x05, 0x06], in: bytes)[0]
            bytes[end + 10] = 7  // the end record claims 7 entries
        } else {
            let directory = ZipFixtures.offsets(of: [0x50, 0x4B, 0x01, 0x02], in: bytes)[0]
            for i in 0..<4 { bytes[directory + field + i] = 0x7F }
        }
        let url = try makeTemporaryDirectory().appendingPathComponent("export.zip")
        try bytes.write(to: url)
        #expect { try convert(url.path) } throws: { error in
            "\(error)".contains(expected) && "\(error)".contains(url.path)
        }
    }

    @Test func aZip64EndRecordThatPointsOutside() throws {
        var bytes = RawZip(entries: [.init(path: Self.exportPath, data: Self.sample)], zip64: true).bytes
        let locator = ZipFixtures.offsets(of: [0x50, 0x4B, 0x06, 0x07], in: bytes)[0]
        for i in 0..<8 { bytes[locator + 8 + i] = 0x7F }
        let url = try makeTemporaryDirectory().appendingPathComponent("export.zip")
        try bytes.write(to: url)
        #expect { try convert(url.path) } throws: { "\($0)".contains("zip64 end record lies outside the file") }
    }

    /// Through a pipe, another file whose size the zip states is skipped unread: here its deflate
    /// data is garbage that inflate would reject, and the export after it still converts.
    @Test func aPipeSkipsOtherFilesUnread() throws {
        let garbage = Data([0xFF, 0xFF, 0xFF, 0xFF] + (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let bytes = RawZip(entries: [.init(path: "apple_health_export/electrocardiograms/ecg.csv", data: garbage, method: 8),
                                     .init(path: Self.exportPath, data: Self.sample)]).bytes
        let source = try StreamingZipBytes(reader: try pipeReader(writing: bytes))
        var streamed: [UInt8] = []
        try source.produce { streamed.append(contentsOf: $0) }
        #expect(Data(streamed) == Self.sample)
        #expect(source.info.otherEntries == ["apple_health_export/electrocardiograms/ecg.csv"])
    }

    /// Random damage anywhere in a small deflated zip: every outcome is a conversion or a
    /// `ConversionError`, in bounded time. (The libFuzzer target in Fuzz/ does this at length.)
    @Test func randomByteDamageNeverCrashesOrHangs() throws {
        let dir = try makeTemporaryDirectory()
        let original = try Data(contentsOf: URL(fileURLWithPath: try ZipFixtures.make(
            [("apple_health_export/workout-routes/r.gpx", Data("<gpx/>".utf8)), (Self.exportPath, Self.sample)], in: dir)))
        var random = SplitMix64(seed: 0xC10D_5F0C)
        var outcomes: [String: Int] = [:]
        let url = dir.appendingPathComponent("damaged.zip")
        for _ in 0..<400 {
            var bytes = original
            for _ in 0..<Int(random.next() % 4 + 1) {
                bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            try bytes.write(to: url)
            do {
                _ = try convert(url.path)
                outcomes["converted", default: 0] += 1
            } catch let error as ConversionError {
                #expect(error.description.contains(url.path))
                outcomes["error", default: 0] += 1
            }
        }
        #expect(outcomes["error", default: 0] > 100)
    }
}

/// A small deterministic generator, so a failing damage pattern can be replayed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E4B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
