import CloudSyncModel
import Foundation
import Testing

/// A received sample's mapping, applied once as it is added: the device first (`Unknown` without
/// one), then `sourceVersion`, then the other keys by their bytes; a key written twice keeps its
/// last value; the category is `categoryValue`.
@Suite struct ReceivedMetricsTests {
    /// The mapped sample's metadata, as (key, value) strings in the order the store writes them.
    static func mapped(_ metrics: ReceivedMetrics, _ index: Int) -> (metadata: [String], device: String, category: String?) {
        var list: [ReceivedMetrics.Pair] = []
        return metrics.withMapped(index, &list) { mapped in
            (mapped.metadata.map { "\($0.key.string)=\($0.value.string)" }, mapped.device.string, mapped.categoryValue?.string)
        }
    }

    @Test func metadataIsOrderedAsTheMapperOrdersAnExportsAndAKeyWrittenTwiceKeepsItsLastValue() {
        var metrics = ReceivedMetrics()
        withPairs([("zeta", "1"), ("sourceVersion", "11.6"), ("HKWasUserEntered", "0"), ("device", "Watch"), ("alpha", "first"),
                   ("categoryValue", "HKCategoryValueSleepAnalysisAsleepCore"), ("alpha", "last"), ("Zeta", "2")]) { pairs in
            metrics.append(type: text("HKCategoryTypeIdentifierSleepAnalysis"), start: 10, end: 70, value: 1, unit: text("min"),
                           source: text("Zoë’s Watch"), metadata: pairs)
        }
        let (metadata, device, category) = Self.mapped(metrics, 0)
        #expect(metadata == ["device=Watch", "sourceVersion=11.6", "HKWasUserEntered=0", "Zeta=2", "alpha=last",
                             "categoryValue=HKCategoryValueSleepAnalysisAsleepCore", "zeta=1"])
        #expect(device == "Watch")
        #expect(category == "HKCategoryValueSleepAnalysisAsleepCore")
        let metric = metrics.healthMetric(0)
        #expect(metric.type == "HKCategoryTypeIdentifierSleepAnalysis" && metric.sourceApp == "Zoë’s Watch" && metric.unit == "min")
        #expect(metric.startDate == 10 && metric.endDate == 70 && metric.value == 1)
    }

    @Test func aSampleWithoutADeviceIsFromUnknownAndEmptyTextsStayEmpty() {
        var metrics = ReceivedMetrics()
        withPairs([]) { metrics.append(type: text("steps"), start: 0, end: 0, value: 3, unit: text(""), source: text(""), metadata: $0) }
        withPairs([("device", ""), ("b", "2"), ("a", "1")]) { pairs in
            metrics.append(type: text("steps"), start: 0, end: 0, value: 4, unit: text("count"), source: text("Phone"), metadata: pairs)
        }
        #expect(Self.mapped(metrics, 0).metadata == ["device=Unknown"])
        #expect(Self.mapped(metrics, 0).category == nil)
        #expect(Self.mapped(metrics, 1).metadata == ["device=", "a=1", "b=2"])
        #expect(metrics.healthMetric(0).unit == "" && metrics.healthMetric(0).sourceApp == "")
    }

    /// A sample with more keys than an insertion sort is for (one of 50,000, written in reverse and
    /// each twice) is sorted as a few are: by key, the last value of each (an insertion sort of it
    /// would make about five billion comparisons).
    @Test func manyKeysAreSortedAsAFewAre() {
        let count = 50_000
        var written: [(String, String)] = []
        for index in stride(from: count - 1, through: 0, by: -1) {
            let key = String(format: "k%06d", index)
            written.append((key, "first"))
            written.append((key, "\(index)"))
        }
        var metrics = ReceivedMetrics()
        withPairs(written) { pairs in
            metrics.append(type: text("steps"), start: 0, end: 0, value: 1, unit: text("count"), source: text("Phone"), metadata: pairs)
        }
        let metadata = Self.mapped(metrics, 0).metadata
        #expect(metadata.count == count + 1)
        #expect(metadata.first == "device=Unknown" && metadata[1] == "k000000=0" && metadata.last == "k049999=49999")
        #expect(metadata.dropFirst() == (0..<count).map { String(format: "k%06d=%d", $0, $0) }[...])
    }

    /// A `HealthMetric` (Flō's and the steps API's samples) maps as the same bytes would.
    @Test func aHealthMetricMapsAsItsBytes() {
        let metric = HealthMetric(type: "HKQuantityTypeIdentifierStepCount", startDate: 100, endDate: 160, value: 12, unit: "count",
                                  sourceApp: "Flō", metadata: ["sourceVersion": "2", "device": "iPhone", "b": "x", "a": "y"])
        let fromMetric = ReceivedMetrics([metric, metric])
        var fromBytes = ReceivedMetrics()
        withPairs([("b", "x"), ("a", "y"), ("device", "iPhone"), ("sourceVersion", "2")]) { pairs in
            fromBytes.append(type: text(metric.type), start: 100, end: 160, value: 12, unit: text("count"), source: text("Flō"), metadata: pairs)
        }
        #expect(fromMetric.count == 2)
        #expect(Self.mapped(fromMetric, 1).metadata == Self.mapped(fromBytes, 0).metadata)
        #expect(Self.mapped(fromMetric, 1).metadata == ["device=iPhone", "sourceVersion=2", "a=y", "b=x"])
        #expect(fromMetric.healthMetric(1) == metric)
    }
}

/// A copy of `string`'s bytes, never freed: a few bytes a test, valid for the test's life.
private func text(_ string: String) -> ByteText {
    let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, string.utf8.count))
    _ = bytes.initialize(from: string.utf8)
    return ByteText(start: bytes.baseAddress, count: string.utf8.count)
}

private func withPairs(_ pairs: [(String, String)], _ body: ([ReceivedMetrics.Pair]) -> Void) {
    body(pairs.map { (key: text($0.0), value: text($0.1)) })
}
