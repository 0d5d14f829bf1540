import CloudSyncExport
import CloudSyncHealthAutoExport
import CloudSyncKinds
import CloudSyncModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What the fuzzers run on each input, and what the regression tests replay. Each function returns
/// normally for every input; a broken invariant stops the process with `preconditionFailure`, which
/// libFuzzer records as a crash.
public enum FuzzTargets {
    /// The whole byte pipeline on `bytes` as an input file: zip directory and inflate (or plain
    /// XML), DTD stripper, control-character filter, libxml2, mapping, JSON output, and the other
    /// entries' readers (GPX routes, ECG CSVs) with the linking of routes to workouts. The bytes go
    /// to an unlinked scratch file (in memory under /dev/shm), so zips take the seekable path as a
    /// real file would.
    public static func exportBytes(_ bytes: UnsafeRawBufferPointer) {
        let fd = scratchFile
        precondition(ftruncate(fd, 0) == 0, "ftruncate: \(String(cString: strerror(errno)))")
        var written = 0
        while written < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + written, bytes.count - written, off_t(written))
            precondition(n > 0, "pwrite: \(String(cString: strerror(errno)))")
            written += n
        }
        let sink = CheckingSink()
        let records = CountingRecordSink()
        do {
            let report = try ReaderRunner.run(ArchiveConverter(input: "/proc/self/fd/\(fd)", kinds: RecordKinds.all),
                                              into: ReaderSinks(metrics: sink, records: records))
            precondition(sink.finished && report.conversion.metrics == sink.metrics,
                         "the report counts \(report.conversion.metrics), the sink saw \(sink.metrics)")
            precondition(report.records.filter { $0.value.records > 0 } == records.counts, "the report's records are not the sink's")
        } catch let error as ConversionError {
            precondition(!error.description.isEmpty && !sink.finished && sink.abandoned, "a failed conversion must abandon the sink")
        } catch {
            preconditionFailure("the converter threw something other than ConversionError: \(error)")
        }
    }

    /// JSON made compact is accepted again unchanged, and Foundation's parser reads the same value
    /// from both (when it reads the input at all: it accepts a little less, such as deep nesting).
    static func checkJSON(_ text: UnsafeBufferPointer<UInt8>) {
        guard let compact = try? JSONCompactor.compact(text) else { return }
        precondition(!compact.contains(0x0A), "compact JSON holds a line break")
        let again = try? compact.withUnsafeBufferPointer { try JSONCompactor.compact($0) }
        precondition(again == compact, "compacting compact JSON changed it")
        // Compared by Foundation's canonical writing of both (sorted keys): comparing the objects
        // themselves said `false` differed from `false` on Linux (the fuzzer's first find here).
        let options: JSONSerialization.ReadingOptions = [.fragmentsAllowed]
        func canonical(_ bytes: Data) -> Data? {
            guard let object = try? JSONSerialization.jsonObject(with: bytes, options: options) else { return nil }
            return try? JSONSerialization.data(withJSONObject: [object], options: [.sortedKeys])
        }
        if let original = canonical(Data(buffer: text)) {
            precondition(canonical(Data(compact)) == original, "the compact JSON reads as another value")
        }
    }

    /// One scratch file per process, unlinked at once and reached through /proc/self/fd.
    static let scratchFile: Int32 = {
        let directory = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let path = "\(directory)/cloudsync-fuzz-\(getpid())"
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        precondition(fd >= 0, "\(path): \(String(cString: strerror(errno)))")
        unlink(path)
        return fd
    }()

    /// The date and number parsers on `bytes`, checked against independent references.
    public static func parsers(_ bytes: UnsafeRawBufferPointer) {
        let text = bytes.bindMemory(to: UInt8.self)
        checkDate(text)
        checkDecimal(text)
        checkJSON(text)
        checkHealthAutoExport(bytes)
        if let day = ExportDateParser.dayStartSeconds(text) {
            precondition(day % 86_400 == 0, "a day start that is not a UTC midnight")
        }
    }

    /// Health Auto Export's reader (what `serve --store` takes from the network): it reads a document
    /// whole into valid metrics, or refuses it with a path; what it accepts, Foundation reads as JSON too.
    static func checkHealthAutoExport(_ bytes: UnsafeRawBufferPointer) {
        let sink = CheckingSink()
        let records = CountingRecordSink()
        let document = HealthAutoExportDocument(borrowing: bytes, name: "fuzz")
        // Foundation takes NUL bytes as a sign of UTF-16 or UTF-32 (RFC 8259 wants UTF-8 on the
        // network): compared only on inputs without them.
        let comparable = !bytes.contains(0)
        let foundation = comparable && (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil
        do {
            let report = try ReaderRunner.run(HealthAutoExportReader(document: document), into: ReaderSinks(metrics: sink, records: records))
            precondition(sink.finished && sink.metrics == report.samples, "the report counts \(report.samples), the sink saw \(sink.metrics)")
            precondition(foundation || !comparable, "the reader accepted what Foundation does not read as JSON")
        } catch let error as HealthAutoExportError {
            // Foundation's parser accepts more than RFC 8259 (a trailing comma in an object, the
            // fuzzer found), so a refusal is not compared with it.
            precondition(error.path.hasPrefix("$") && !error.problem.isEmpty && !sink.finished, "a refusal without its path: \(error)")
        } catch {
            preconditionFailure("the reader threw something other than HealthAutoExportError: \(error)")
        }
    }

    /// A parsed date prints in UTC and parses back to the same instant; its calendar fields equal
    /// Foundation's for that instant.
    static func checkDate(_ text: ByteText) {
        guard let seconds = ExportDateParser.epochSeconds(text) else { return }
        let printed = UTCDateFormatter.string(seconds)
        let again = Array(printed.utf8).withUnsafeBufferPointer { ExportDateParser.epochSeconds($0) }
        precondition(again == seconds, "\(seconds) prints as \(printed), which parses as \(String(describing: again))")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let fields = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second],
                                             from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        let expected = String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", fields.year!, fields.month!, fields.day!,
                              fields.hour!, fields.minute!, fields.second!)
        // Foundation's proleptic calendar differs before 1582; compare where both are Gregorian.
        precondition(fields.year! < 1583 || expected == printed, "\(seconds): ours \(printed), Foundation \(expected)")
    }

    /// A number we accept is finite, equals what `strtod` makes of the same bytes, and when we
    /// call the bytes canonical JSON they are a JSON number.
    static func checkDecimal(_ text: ByteText) {
        guard let result = DecimalParser.parse(text) else { return }
        precondition(result.value.isFinite, "accepted a non-finite value")
        var copy = Array(text)
        copy.append(0)
        let reference = copy.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { strtod($0, nil) }
        }
        precondition(result.value.bitPattern == reference.bitPattern, "parsed \(result.value), strtod says \(reference)")
        if result.isCanonicalJSON {
            precondition(isJSONNumber(text), "called canonical JSON: \(String(decoding: text, as: UTF8.self))")
        }
        var out = ByteBuffer(capacity: 64)
        NumberFormatting.append(result.value, to: &out)
        out.withBytes { printed in
            precondition(isJSONNumber(printed), "printed \(printed.string), not a JSON number")
        }
    }

    /// RFC 8259's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    static func isJSONNumber(_ text: ByteText) -> Bool {
        var i = 0
        func digits() -> Int {
            let start = i
            while i < text.count, text[i] >= 48, text[i] <= 57 { i += 1 }
            return i - start
        }
        if i < text.count, text[i] == UInt8(ascii: "-") { i += 1 }
        guard i < text.count else { return false }
        if text[i] == UInt8(ascii: "0") { i += 1 } else if digits() == 0 { return false }
        if i < text.count, text[i] == UInt8(ascii: ".") { i += 1; guard digits() > 0 else { return false } }
        if i < text.count, text[i] == UInt8(ascii: "e") || text[i] == UInt8(ascii: "E") {
            i += 1
            if i < text.count, text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return false }
        }
        return i == text.count
    }
}

/// A sink that checks every metric's JSON line is valid JSON with the seven keys of the contract.
final class CheckingSink: MetricSink {
    private(set) var metrics = 0
    private(set) var finished = false
    private(set) var abandoned = false
    private var line = ByteBuffer(capacity: 4096)

    func write(_ metric: MappedMetric) throws {
        metrics += 1
        line.removeAll()
        MetricJSON.append(metric, to: &line)
        let data = line.withBytes { Data(buffer: $0) }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            preconditionFailure("not a JSON object: \(String(decoding: data, as: UTF8.self))")
        }
        for key in ["type", "startDate", "endDate", "value", "unit", "sourceApp", "metadata"] {
            precondition(object[key] != nil, "no \(key) in \(String(decoding: data, as: UTF8.self))")
        }
    }

    func finish() throws { finished = true }
    func abandon() throws { abandoned = true }
}
