@testable import CloudSyncExport
@testable import CloudSyncModel
import Foundation
import Testing

/// The parser thread works out each Record's and Workout's dates, value and device name as the
/// element completes (`PreparedFields`); the mapping reads them from the batch later, after the
/// batch's bytes may have moved. They must be what reading the attributes then gives.
@Suite struct PreparedFieldsTests {
    final class Comparer: ExportElementConsumer, @unchecked Sendable {
        var prepared = 0, others = 0
        var mismatches: [String] = []

        func consume(_ tree: ElementTree) throws {
            guard tree.prepared.isPrepared else {
                others += 1
                return
            }
            prepared += 1
            let line = tree.nodes[0].line
            let start = tree.value(.startDate).flatMap(ExportDateParser.epochSeconds)
            let end = tree.value(.endDate).flatMap(ExportDateParser.epochSeconds)
            if tree.dates.start != start || tree.dates.end != end { mismatches.append("dates, line \(line)") }
            if tree.creationSeconds != tree.value(.creationDate).flatMap(ExportDateParser.epochSeconds) {
                mismatches.append("creationDate, line \(line)")
            }
            let value = tree.value(.value).flatMap(DecimalParser.parse)
            if tree.parsedValue?.value != value?.value || tree.parsedValue?.isCanonicalJSON != value?.isCanonicalJSON {
                mismatches.append("value, line \(line)")
            }
            let device = tree.value(.device).flatMap(DeviceName.name(in:))
            if tree.deviceName.map({ $0.string }) != device.map({ $0.string }) { mismatches.append("device, line \(line)") }
        }
    }

    @Test func preparedFieldsMatchTheAttributesAfterTheBatchGrew() throws {
        let watch = "&lt;&lt;HKDevice: 0x283bd4c30&gt;, name:Apple Watch, manufacturer:Apple Inc.&gt;"
        let variants: [(value: String, start: String, end: String, created: String, device: String)] = [
            ("72", "2024-11-02 07:00:00 -0500", "2024-11-02 07:01:00 -0500", "2024-11-02 07:02:00 -0500", watch),
            ("80.0", "2024-11-02 07:00:00 +0130", "2024-11-02 07:00:00 +0130", "not a date", "&lt;&lt;HKDevice: 0x1&gt;&gt;"),
            ("1e2", "20150102030405+0100", "2015-01-02 03:04:06 +0100", "", "name: Polar H10 , model:H10"),
            ("nan", "2024-02-30 07:00:00 -0500", "2024-11-02 07:10:00 -0500", "2024-11-02 07:02:00 -0500", ""),
            ("", "2024-11-02 07:00:00 -0500", "yesterday", "2024-11-02 07:02:00 Z", "xname:Fake"),
        ]
        var body = ""
        for i in 0..<3000 {
            let v = variants[i % variants.count]
            // Every 500th record carries a large metadata value, so the batch's bytes are moved
            // while records whose fields were prepared are still in it.
            let metadata = i % 500 == 499 ? "<MetadataEntry key=\"big\" value=\"\(String(repeating: "x", count: 300_000))\"/>" : ""
            body += " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Watch\" device=\"\(v.device)\" unit=\"count/min\""
                + " creationDate=\"\(v.created)\" startDate=\"\(v.start)\" endDate=\"\(v.end)\" value=\"\(v.value)\">\(metadata)</Record>\n"
        }
        body += " <Workout workoutActivityType=\"HKWorkoutActivityTypeRunning\" startDate=\"2024-11-02 07:00:00 -0500\""
            + " endDate=\"2024-11-02 07:30:00 -0500\" device=\"\(watch)\"/>\n"
        body += " <ActivitySummary dateComponents=\"2024-11-02\" activeEnergyBurned=\"500\"/>\n"
        let comparer = Comparer()
        // The import's own hand-off: batches of many elements, mapped on another thread.
        let stage = MappingStage(consumer: comparer)
        stage.start()
        let parser = ExportParser(handoff: stage)
        try Array(exportXML(body).utf8).withUnsafeBufferPointer { try parser.parse($0) }
        try parser.finish()
        try stage.finish()
        #expect(comparer.prepared == 3001)
        #expect(comparer.others == 2)  // ExportDate, ActivitySummary
        let firstMismatches = Array(comparer.mismatches.prefix(5))
        #expect(firstMismatches.isEmpty, "\(comparer.mismatches.count) mismatches")
    }

    /// A start date read by the one before it (`PreviousStart`) is what reading it whole gives, in
    /// every order: the same day and offset, another day, another offset, a time that is no time,
    /// the iOS 8 form, a date longer than the 32 bytes kept, and text that is no date.
    @Test func aStartReadByTheOneBeforeIsWhatReadingItWholeGives() {
        let texts = ["2024-10-25 07:05:11 -0500", "2024-10-25 23:59:59 -0500", "2024-10-25 00:00:00 -0500",
                     "2024-10-25 07:05:11 +0100", "2024-10-26 07:05:11 -0500", "2024-10-25 24:00:00 -0500",
                     "2024-10-25 07:61:00 -0500", "2024-10-25 07:05:60 -0500", "20241025070511+0100",
                     "2024-10-25T07:05:11-05:00", "2024-10-25 07:05:11 -0500 and then some more text", "not a date at all here ok",
                     "2024-02-29 12:00:00 +0000", "2023-02-29 12:00:00 +0000", "2024-12-31 23:59:59 -1400"]
        var previous = PreviousStart()
        var mismatches: [String] = []
        for first in texts {
            for second in texts {
                for text in [first, second, first] {
                    var bytes = Array(text.utf8)
                    let read = bytes.withUnsafeMutableBufferPointer { previous.read(ByteText($0)) }
                    let whole = bytes.withUnsafeMutableBufferPointer { ExportDateParser.epochSeconds(ByteText($0)) }
                    if read != whole { mismatches.append("\(text) after \(first), \(second)") }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }
}
