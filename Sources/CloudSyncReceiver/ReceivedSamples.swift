import CloudSyncModel
import Foundation

/// What each upload contract's sample is in the patient's store: a `HealthMetric`, written there as
/// any received sample is (`StagingStore.importMetrics`). One mapping per contract, used by its
/// route and by the move of what an older receiver kept (`LegacyReceivedRows`).

extension MetricBody {
    /// A date that does not read is said as which.
    func healthMetric() -> Result<HealthMetric, DateProblem> {
        guard let start = ReceivedDate.seconds(startDate) else { return .failure(.start) }
        guard let end = ReceivedDate.seconds(endDate) else { return .failure(.end) }
        return .success(HealthMetric(type: type, startDate: start, endDate: end, value: value, unit: unit, sourceApp: sourceApp,
                                     metadata: metadata.mapValues(\.metadataText)))
    }
}

extension FloSamplesBody.Sample {
    /// The device is `deviceName`; the source `sourceName`, else `sourceBundleId`.
    func healthMetric() -> Result<HealthMetric, DateProblem> {
        guard let start = ReceivedDate.seconds(startDate) else { return .failure(.start) }
        guard let end = ReceivedDate.seconds(endDate) else { return .failure(.end) }
        var metadata = (self.metadata ?? [:]).mapValues(\.metadataText)
        metadata["device"] = deviceName ?? metadata["device"] ?? "Unknown"
        return .success(HealthMetric(type: dataType, startDate: start, endDate: end, value: value, unit: unit,
                                     sourceApp: sourceName ?? sourceBundleId ?? "Unknown", metadata: metadata))
    }
}

extension StepsBody.Sample {
    static let type = "HKQuantityTypeIdentifierStepCount"

    /// A step count: the source is `sourceBundleId` (what the uploader sends as it), the device
    /// `sourceDeviceName`.
    func healthMetric() -> Result<HealthMetric, DateProblem> {
        guard let start = ReceivedDate.seconds(startDate) else { return .failure(.start) }
        guard let end = ReceivedDate.seconds(endDate) else { return .failure(.end) }
        return .success(HealthMetric(type: Self.type, startDate: start, endDate: end, value: Double(count), unit: "count",
                                     sourceApp: sourceBundleId ?? "Unknown", metadata: ["device": sourceDeviceName ?? "Unknown"]))
    }
}

/// Which date of a sample does not read.
enum DateProblem: Error {
    case start, end

    var field: String { self == .start ? "startDate" : "endDate" }
}

/// The dates the upload contracts send, as the store keeps them (seconds since 1970 UTC):
/// `2024-05-01T08:00:00Z` (CloudCare), `2025-05-11T16:27:22.000Z` (Flō, steps), or with an offset
/// (`+02:00`). A fraction of a second is dropped (the store's dates, like the export's, are whole
/// seconds, and the uploaders send `.000`).
enum ReceivedDate {
    static func seconds(_ text: String) -> Int64? {
        var bytes = Array(text.utf8)
        // `yyyy-MM-ddTHH:mm:ss` is 19 bytes; a fraction follows it.
        if bytes.count > 20, bytes[19] == UInt8(ascii: ".") {
            var end = 20
            while end < bytes.count, bytes[end] >= UInt8(ascii: "0"), bytes[end] <= UInt8(ascii: "9") { end += 1 }
            guard end > 20 else { return nil }
            bytes.removeSubrange(19..<end)
        }
        guard bytes.count > 19, bytes[10] == UInt8(ascii: "T") else { return nil }
        return bytes.withUnsafeBufferPointer { ExportDateParser.epochSeconds($0) }
    }
}
