import CloudSyncTesting
import Foundation
import Testing
@preconcurrency import ZIPFoundation
#if canImport(Glibc)
import Glibc
#endif

/// Hostile exports through the real binary, with the child's peak memory and time measured:
/// a clear error or a count, bounded memory and time, nothing from outside the input in the output.
// The time limit guards against a hang only (a loaded machine took minutes to schedule these).
@Suite(.timeLimit(.minutes(10))) struct HostileInputTests {
    static let header = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    static let exportDate = " <ExportDate value=\"2024-11-03 09:15:00 -0500\"/>\n"

    static func record(_ sourceName: String = "Phone", value: String = "12", minute: Int = 0) -> String {
        let start = String(format: "2024-11-02 07:%02d:00 -0500", minute % 60)
        return " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"\(sourceName)\" unit=\"count\" startDate=\"\(start)\" endDate=\"\(start)\" value=\"\(value)\"/>\n"
    }

    func write(_ text: String, _ name: String = "export.xml") throws -> String {
        let url = try makeTemporaryDirectory().appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    @Test func billionLaughsIsNeverExpanded() throws {
        var dtd = "<!DOCTYPE HealthData [\n <!ENTITY lol0 \"lol\">\n"
        for level in 1...9 { dtd += " <!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">\n" }
        dtd += "]>\n"
        let path = try write(Self.header + dtd + "<HealthData locale=\"en_US\">\n" + Self.exportDate + Self.record("&lol9;") + "</HealthData>\n")
        let run = try MeasuredRun.run(["convert", path])
        #expect(run.status == 65)
        #expect(run.stderr.contains(path) && run.stderr.contains("lol9") && run.stderr.contains("not defined"))
        #expect(run.stdoutBytes == 0)
        #expect(run.peakRSSMiB < MeasuredRun.limit(100), "peak \(run.peakRSSMiB) MiB")
        #expect(run.cpuSeconds < 10, "\(run.cpuSeconds) s of CPU")
    }

    /// External entities and an external DTD: never opened. The DTD path is a FIFO, so an attempt
    /// to read it would block the run until the time limit.
    @Test func externalEntitiesAndDTDsAreNeverRead() throws {
        let dir = try makeTemporaryDirectory()
        let secret = dir.appendingPathComponent("secret.txt")
        try Data("TOP-SECRET-\(UUID().uuidString)".utf8).write(to: secret)
        let fifo = dir.appendingPathComponent("external.dtd").path
        #expect(mkfifo(fifo, 0o600) == 0)

        let external = try write(Self.header + "<!DOCTYPE HealthData SYSTEM \"file://\(fifo)\">\n<HealthData locale=\"en_US\">\n"
                                 + Self.exportDate + Self.record() + "</HealthData>\n")
        let first = try MeasuredRun.run(["convert", external])
        #expect(first.status == 0 && first.stderr.contains("1 metric from"), "\(first.stderr)")

        let entity = try write(Self.header + "<!DOCTYPE HealthData [\n <!ENTITY secret SYSTEM \"file://\(secret.path)\">\n"
                               + " <!ENTITY % remote SYSTEM \"file://\(fifo)\">\n %remote;\n]>\n<HealthData locale=\"en_US\">\n"
                               + Self.exportDate + Self.record() + Self.record("&secret;") + "</HealthData>\n")
        let result = try CLI.run(["convert", entity])
        #expect(result.status == 65)
        #expect(result.lines.count == 2)  // the record before, then the error
        #expect(!String(decoding: result.stdout, as: UTF8.self).contains("TOP-SECRET"))
        #expect(!result.stderr.contains("TOP-SECRET"))
        #expect(result.stderr.contains("\(entity):10:") && result.stderr.contains("'secret' not defined"), "\(result.stderr)")
    }

    /// libxml2 refuses an attribute value over 10,000,000 bytes (XML_MAX_TEXT_LENGTH; we never
    /// set XML_PARSE_HUGE): a clear error at its line, the records before it kept.
    @Test func anAttributeOfTensOfMegabytes() throws {
        let huge = String(repeating: "x", count: 30_000_000)
        let path = try write(Self.header + "<HealthData locale=\"en_US\">\n" + Self.exportDate + Self.record()
                             + Self.record(huge, minute: 1) + Self.record(minute: 2) + "</HealthData>\n")
        let run = try MeasuredRun.run(["convert", path])
        #expect(run.status == 65)
        #expect(run.stderr.contains("\(path):5:") && run.stderr.contains("longer than libxml2's limit of 10,000,000 bytes"), "\(run.stderr)")
        #expect(run.stdoutBytes > 0 && run.stdoutBytes < 1000)
        #expect(run.peakRSSMiB < MeasuredRun.limit(160), "peak \(run.peakRSSMiB) MiB")
    }

    /// Many large values below that limit: converted, and memory does not grow with their number
    /// (a batch of trees leaves for the mapping thread once it holds 8 MiB; a tree that held a
    /// large element gives the memory back).
    @Test func manyLargeAttributesKeepMemoryBounded() throws {
        let large = String(repeating: "y", count: 2_000_000)
        var text = Self.header + "<HealthData locale=\"en_US\">\n" + Self.exportDate
        for minute in 0..<60 { text += Self.record(large + "\(minute)", minute: minute) }
        let path = try write(text + "</HealthData>\n")
        let run = try MeasuredRun.run(["convert", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdoutBytes > 120_000_000)
        #expect(run.peakRSSMiB < MeasuredRun.limit(100), "peak \(run.peakRSSMiB) MiB for 120 MB of values")
    }

    /// Nesting deeper than 256 levels (libxml2's own default, which its push parser does not
    /// always apply) stops the run; a real export nests 4 levels.
    @Test func veryDeepNesting() throws {
        let depth = 100_000
        let path = try write(Self.header + "<HealthData locale=\"en_US\">\n" + Self.exportDate + Self.record()
                             + " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"P\" unit=\"count\" startDate=\"2024-11-02 07:00:00 -0500\" endDate=\"2024-11-02 07:00:00 -0500\" value=\"1\">"
                             + String(repeating: "<x>", count: depth) + String(repeating: "</x>", count: depth) + "</Record>\n</HealthData>\n")
        let run = try MeasuredRun.run(["convert", path])
        #expect(run.status == 65)
        #expect(run.stderr.contains(path) && run.stderr.contains("nested deeper than 256 levels"), "\(run.stderr)")
        #expect(run.peakRSSMiB < MeasuredRun.limit(100) && run.cpuSeconds < 10, "peak \(run.peakRSSMiB) MiB, \(run.cpuSeconds) s of CPU")
    }

    /// libxml2 stops at bytes that are not UTF-8 (the file declares UTF-8): the error names the
    /// line; the records before it are written.
    @Test func invalidUTF8InAValue() throws {
        var bytes = Data((Self.header + "<HealthData locale=\"en_US\">\n" + Self.exportDate + Self.record() + Self.record(minute: 1)).utf8)
        bytes.append(Data(Self.record("Bad\u{FF}", minute: 2).utf8))
        let bad = bytes.range(of: Data("Bad".utf8))!.upperBound
        bytes.replaceSubrange(bad..<(bad + 2), with: [0xFF, 0xFE])  // "ÿ" was C3 BF: now two stray bytes
        bytes.append(Data((Self.record(minute: 3) + "</HealthData>\n").utf8))
        let url = try makeTemporaryDirectory().appendingPathComponent("export.xml")
        try bytes.write(to: url)
        let result = try CLI.run(["convert", url.path])
        #expect(result.status == 65)
        #expect(result.lines.count == 3)  // two records, then the error
        #expect(result.stderr.contains("\(url.path):6:") && result.stderr.contains("not proper UTF-8"), "\(result.stderr)")
    }

    /// Bytes that do not match the declared encoding: one clear error, and none of libxml2's own
    /// messages on stderr (they bypass the SAX error handler; found by the fuzzer).
    @Test func bytesThatDoNotMatchTheDeclaredEncoding() throws {
        let path = try write(Self.header.replacingOccurrences(of: "UTF-8", with: "UTF-7") + "<HealthData locale=\"en_US\">\n"
                             + Self.exportDate + Self.record("Alex’s Watch") + "</HealthData>\n")
        let result = try CLI.run(["convert", path])
        #expect(result.status == 65)
        #expect(result.stderr.contains("the bytes do not match the encoding the file declares"), "\(result.stderr)")
        #expect(!result.stderr.contains("encoding error :") && !result.stderr.contains("I/O error"), "\(result.stderr)")
    }

    /// A zip whose entry names climb out (`../`, absolute paths): entries are only ever read, never
    /// extracted, so importing it writes nothing but the store.
    @Test func zipEntryNamesThatClimbOutWriteNothing() throws {
        let root = try makeTemporaryDirectory()
        let work = root.appendingPathComponent("a/b/work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let absolute = "/tmp/cloudsync-escape-\(UUID().uuidString).xml"
        let xml = Data((Self.header + "<HealthData locale=\"en_US\">\n" + Self.exportDate + Self.record() + "</HealthData>\n").utf8)
        let zip = root.appendingPathComponent("a/evil.zip")
        let archive = try Archive(url: zip, accessMode: .create)
        for (path, data) in [("../../escaped.txt", Data("x".utf8)), (absolute, Data("<x/>".utf8)),
                             ("../../../../../../tmp/apple_health_export/export.xml", xml)] {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count)) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        let zipBytes = try Data(contentsOf: zip)  // the names are in the zip as written
        #expect(zipBytes.range(of: Data("../../escaped.txt".utf8)) != nil && zipBytes.range(of: Data(absolute.utf8)) != nil)
        let before = try Self.tree(root)
        let store = work.appendingPathComponent("health.db").path
        let run = try MeasuredRun.run(["import", zip.path, "--store", store], in: work)
        #expect(run.status == 0, "\(run.stderr)")
        let added = try Self.tree(root).subtracting(before)
        #expect(added.allSatisfy { $0.hasPrefix("a/b/work/health.db") }, "\(added)")
        #expect(!FileManager.default.fileExists(atPath: absolute))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/apple_health_export/export.xml"))
        let status = try CLI.run(["status", "--store", store, "--json"])
        #expect(String(decoding: status.stdout, as: UTF8.self).contains("\"metrics\" : 1,"))
    }

    static func tree(_ root: URL) throws -> Set<String> {
        let paths = FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? []
        return Set(paths)
    }
}

