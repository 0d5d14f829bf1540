@testable import CloudSyncExport
import CloudSyncModel
import CloudSyncTesting
import Foundation
import Testing

/// Exports written by iOS 8 (2014–2015): no DTD, compact dates, `source`, metadata as attributes,
/// and attribute names with spaces, which libxml2 refuses until the byte stream is repaired.
@Suite struct IOS8DialectTests {
    /// Written from what the iOS 8 Health app produced; every record of it must come out.
    static let export = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_GB">
         <ExportDate value="20150312174233+0000"/>
         <Me HKCharacteristicTypeIdentifierDateOfBirth="19800101" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale"/>
         <Record type="HKQuantityTypeIdentifierStepCount" source="Lucy's iPhone" unit="count" startDate="20141018160000+0100" endDate="20141018163000+0100" value="512"/>
         <Record type="HKQuantityTypeIdentifierBodyMass" source="Health" unit="lb" creationDate="20141019080100+0100" startDate="20141019080000+0100" endDate="20141019080000+0100" value="140.5" HKWasUserEntered="1"/>
         <Record type="HKQuantityTypeIdentifierHeartRate" source="Pulse App" unit="count/min" startDate="20141020071500-0700" endDate="20141020071500-0700" value="62" Some App Version="2.6.2" HKMetadataKeyHeartRateSensorLocation="1"/>
         <Record type="HKCategoryTypeIdentifierSleepAnalysis" source="Sleep Cycle" startDate="20141020230000+0100" endDate="20141021063000+0100" value="1"/>
         <!-- not an attribute: Some Name="x" -->
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30.5" durationUnit="min" source="Runmeter" startDate="20141021070000+0100" endDate="20141021073030+0100"/>
        </HealthData>

        """

    @Test func everyRecordComesOutWithItsMetadataKeysAsWritten() throws {
        let (metrics, _, report) = try convert(try writeFile(Self.export))
        #expect(metrics.count == 5)
        #expect(report.invalidCount == 0)
        #expect(metrics.map(\.sourceApp) == ["Lucy's iPhone", "Health", "Pulse App", "Sleep Cycle", "Runmeter"])
        #expect(metrics.map { UTCDateFormatter.string($0.startDate) }
                == ["2014-10-18T15:00:00Z", "2014-10-19T07:00:00Z", "2014-10-20T14:15:00Z", "2014-10-20T22:00:00Z", "2014-10-21T06:00:00Z"])
        #expect(metrics[1].metadata["HKWasUserEntered"] == "1")
        #expect(metrics[1].unit == "kg" && abs(metrics[1].value - 63.7297) < 0.001)
        #expect(metrics[2].metadata["Some App Version"] == "2.6.2")
        #expect(metrics[2].metadata["HKMetadataKeyHeartRateSensorLocation"] == "1")
        #expect(metrics[3].metadata["category"] == "asleep" && metrics[3].value == 450)
        #expect(metrics[4].type == "workout" && metrics[4].value == 30.5)
        #expect(report.attributeNamesRepaired == 2)
        #expect(!report.hadDoctype)
    }

    /// iOS 8's daily heart-rate summaries become metrics: the average as the value (count/s × 60, in
    /// bpm), the minimum, maximum and record count as metadata; one without any value is counted.
    @Test func dailyHeartRateSummariesBecomeMetrics() throws {
        let (_, json, report) = try convert(try writeFile(ExportTexts.iOS8DailyHeartRateSummaries))
        let metrics = try json.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let heart = metrics.filter { $0["type"] as? String == "HKQuantityTypeIdentifierHeartRate" }
        #expect(heart.map { $0["value"] as? Double } == [75, 66])        // the averages, count/s × 60
        #expect(heart.allSatisfy { $0["unit"] as? String == "bpm" })
        let metadata = try #require(heart.first?["metadata"] as? [String: String])
        #expect(metadata["min"] == "54" && metadata["max"] == "150" && metadata["recordCount"] == "12")
        #expect(metadata["average"] == nil)
        #expect(report.invalid["no value"] == 1)                          // the one without any value, counted
        #expect(report.summary.contains("1 no value"), "\(report.summary)")
    }

    /// The era's header had no DTD and no newline before the root; the XML declaration may also be
    /// missing. The records come out the same.
    @Test(arguments: [
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?><HealthData locale=\"en_US\">",
        "<HealthData locale=\"en_US\">",
    ])
    func dtdLessHeadersOfThatEra(_ header: String) throws {
        let body = Self.export.components(separatedBy: "\n").dropFirst(2).joined(separator: "\n")
        let (metrics, _, _) = try convert(try writeFile(header + "\n" + body))
        #expect(metrics.count == 5)
        #expect(metrics[2].metadata["Some App Version"] == "2.6.2")
    }

    /// The repair holds wherever the chunks split: every split point of the export gives the bytes
    /// the whole export gives, and a well-formed file passes unchanged.
    @Test func repairIsTheSameAtEverySplitAndChangesNothingWellFormed() {
        let input = Array(Self.export.utf8)
        let whole = repaired([input])
        #expect(String(decoding: whole, as: UTF8.self).contains("Some_x0020_App_x0020_Version=\"2.6.2\""))
        #expect(String(decoding: whole, as: UTF8.self).contains("<!-- not an attribute: Some Name=\"x\" -->"))
        for split in 1..<input.count {
            #expect(repaired([Array(input[..<split]), Array(input[split...])]) == whole, "split at \(split)")
        }
        let wellFormed = Array(exportXML(record("HKQuantityTypeIdentifierStepCount", unit: "count", value: "1"),
                                         doctype: "").utf8) + Array("<![CDATA[ a b=\"c\" ]]]>".utf8)
        #expect(repaired([wellFormed]) == wellFormed)
    }

    @Test func attributeKeysDecodeOnlyWhitespaceEscapes() {
        func key(_ name: String) -> String {
            var out = ByteBuffer(capacity: 64)
            name.withBytes { AttributeNameRepair.appendKey($0, to: &out) }
            return out.withBytes { $0.string }
        }
        #expect(key("Some_x0020_App_x0020_Version") == "Some App Version")
        #expect(key("Tab_x0009_Key") == "Tab\tKey")
        #expect(key("Not_x0041_A") == "Not_x0041_A")
        #expect(key("short_x002") == "short_x002")
    }

    func repaired(_ pieces: [[UInt8]]) -> [UInt8] {
        var repair = AttributeNameRepair()
        var out: [UInt8] = []
        for piece in pieces {
            piece.withUnsafeBufferPointer { repair.process($0) { out.append(contentsOf: $0) } }
        }
        repair.finish { out.append(contentsOf: $0) }
        return out
    }
}
