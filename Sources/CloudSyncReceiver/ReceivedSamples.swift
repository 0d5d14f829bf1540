import CloudSyncModel
import Foundation

/// What each upload contract's sample is in the patient's store: a `HealthMetric`, written there as
/// any received sample is (`StagingStore.importMetrics`). One mapping per contract, used by its
/// route and by the move of what an older receiver kept (`LegacyReceivedRows`).

extension MetricBody {
    /// A date that does not read is said as which.
    func healthMetric() -> Result<HealthMetric, DateProblem> {
        guard let start = ExportDateParser.isoEpochSeconds(startDate) else { return .failure(.start) }
        guard let end = ExportDateParser.isoEpochSeconds(endDate) else { return .failure(.end) }
        return .success(HealthMetric(type: type, startDate: start, endDate: end, value: value, unit: unit, sourceApp: sourceApp,
                                     metadata: metadata.mapValues(\.metadataText)))
    }
}

extension FloSamplesBody.Sample {
    /// The device is `deviceName`; the source `sourceName`, else `sourceBundleId`.
    func healthMetric() -> Result<HealthMetric, DateProblem> {
        guard let start = ExportDateParser.isoEpochSeconds(startDate) else { return .failure(.start) }
        guard let end = ExportDateParser.isoEpochSeconds(endDate) else { return .failure(.end) }
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
        guard let start = ExportDateParser.isoEpochSeconds(startDate) else { return .failure(.start) }
        guard let end = ExportDateParser.isoEpochSeconds(endDate) else { return .failure(.end) }
        return .success(HealthMetric(type: Self.type, startDate: start, endDate: end, value: Double(count), unit: "count",
                                     sourceApp: sourceBundleId ?? "Unknown", metadata: ["device": sourceDeviceName ?? "Unknown"]))
    }
}

/// Which date of a sample does not read.
enum DateProblem: Error {
    case start, end

    var field: String { self == .start ? "startDate" : "endDate" }
}

