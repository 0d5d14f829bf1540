import CloudSyncModel
import Foundation

/// Small exports written for the tests, shared by the suites that read them (the converter's) and
/// those that store them (the store's).
public enum ExportTexts {
    /// iOS 8's daily heart-rate summaries: `min`, `max`, `average` and `recordCount` in count/s instead
    /// of a value; one with no value at all; and a step count.
    public static let iOS8DailyHeartRateSummaries = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <ExportDate value="20150312174233+0000"/>
         <Record type="HKQuantityTypeIdentifierHeartRate" source="Lucy's iPhone" unit="count/s" min="0.9" max="2.5" average="1.25" recordCount="12" startDate="20150101000000+0100" endDate="20150102000000+0100"/>
         <Record type="HKQuantityTypeIdentifierHeartRate" source="Lucy's iPhone" unit="count/s" min="1" max="1.5" average="1.1" recordCount="3" startDate="20150102000000+0100" endDate="20150103000000+0100"/>
         <Record type="HKQuantityTypeIdentifierHeartRate" source="Lucy's iPhone" unit="count/s" startDate="20150103000000+0100" endDate="20150104000000+0100"/>
         <Record type="HKQuantityTypeIdentifierStepCount" source="Lucy's iPhone" unit="count" value="512" startDate="20150101100000+0100" endDate="20150101103000+0100"/>
        </HealthData>

        """

    /// Body mass weighed once before the export's date (2019-06-01) and twice in 2030.
    public static let samplesAfterTheExport = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <ExportDate value="2019-06-01 10:00:00 +0200"/>
         <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Scale" unit="kg" startDate="2019-05-01 08:00:00 +0200" endDate="2019-05-01 08:00:00 +0200" value="70"/>
         <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Scale" unit="kg" startDate="2030-03-03 08:00:00 +0200" endDate="2030-03-03 08:00:00 +0200" value="71"/>
         <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Scale" unit="kg" startDate="2030-04-18 08:00:00 +0200" endDate="2030-04-18 08:00:00 +0200" value="72"/>
        </HealthData>

        """

    /// Steps every 30 minutes for five days from 2021-03-01 (UTC), 10 to 16 each: Paris is UTC+1, so
    /// each local day there starts at 23:00 UTC the evening before.
    public static func halfHourlySteps() -> String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"fr_FR\">\n <ExportDate value=\"2021-03-10 10:00:00 +0100\"/>\n"
        let start = 1_614_556_800   // 2021-03-01T00:00:00Z
        for i in 0..<(5 * 48) {
            let stamp = UTCDateFormatter.string(Int64(start + i * 1800)).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " +0000")
            text += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Phone\" unit=\"count\" startDate=\"\(stamp)\" endDate=\"\(stamp)\" value=\"\(10 + i % 7)\"/>\n"
        }
        return text + "</HealthData>\n"
    }
}
