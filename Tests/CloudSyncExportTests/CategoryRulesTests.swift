import CloudSyncTesting
import Foundation
import CloudSyncExport
import CloudSyncModel
import Testing

@Suite struct CategoryRulesTests {
    func category(_ value: String, _ type: String) -> String {
        var buffer = ByteBuffer(capacity: 64)
        value.withBytes { v in type.withBytes { CategoryRules.appendCategory(value: v, type: $0, to: &buffer) } }
        return buffer.withBytes { $0.string }
    }

    static let sleep = "HKCategoryTypeIdentifierSleepAnalysis"

    @Test(arguments: [("InBed", "inBed"), ("Asleep", "asleep"), ("AsleepUnspecified", "asleep"), ("Awake", "awake"),
                      ("AsleepCore", "core"), ("AsleepDeep", "deep"), ("AsleepREM", "rem")])
    func sleepValuesUseTheBackendNames(_ value: String, _ expected: String) {
        #expect(category("HKCategoryValueSleepAnalysis" + value, Self.sleep) == expected)
    }

    @Test(arguments: [
        ("HKCategoryValueAppleStandHourStood", "HKCategoryTypeIdentifierAppleStandHour", "stood"),
        ("HKCategoryValueAppleStandHourIdle", "HKCategoryTypeIdentifierAppleStandHour", "idle"),
        ("HKCategoryValueHeadphoneAudioExposureEventSevenDayLimit", "HKCategoryTypeIdentifierHeadphoneAudioExposureEvent", "sevenDayLimit"),
        ("HKCategoryValueNotApplicable", "HKCategoryTypeIdentifierMindfulSession", "notApplicable"),
        ("HKCategoryValueSeverityModerate", "HKCategoryTypeIdentifierHeadache", "severityModerate"),
        ("HKCategoryValueCervicalMucusQualityEggWhite", "HKCategoryTypeIdentifierCervicalMucusQuality", "eggWhite"),
        ("0", "HKCategoryTypeIdentifierMindfulSession", "0"),
        ("2", "HKCategoryTypeIdentifierSexualActivity", "2"),
    ])
    func otherCategoriesLoseTheirPrefixes(_ value: String, _ type: String, _ expected: String) {
        #expect(category(value, type) == expected)
    }

    @Test func categoryRecordsAreDurationsInMinutes() throws {
        let path = try writeFile(exportXML(
            record(Self.sleep, value: "HKCategoryValueSleepAnalysisAsleepDeep", start: "2024-11-02 01:00:00 -0500", end: "2024-11-02 01:45:30 -0500")
            + record("HKCategoryTypeIdentifierHighHeartRateEvent", start: "2024-11-02 01:00:00 -0500", end: "2024-11-02 01:10:00 -0500")))
        let (metrics, _, _) = try convert(path)
        #expect(metrics.count == 2)
        #expect(metrics[0].value == 45.5)
        #expect(metrics[0].unit == "minutes")
        #expect(metrics[0].metadata["category"] == "deep")
        #expect(metrics[0].metadata["categoryValue"] == "HKCategoryValueSleepAnalysisAsleepDeep")
        #expect(metrics[1].value == 10)
        #expect(metrics[1].metadata["category"] == nil)
    }
}
