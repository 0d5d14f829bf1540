/// Facts of the CloudCare backend that a client must know (`../shared/spec/wire-contracts.md`).
public enum CloudCareContract {
    /// The metric types the real backend keeps, as short names (`MetricFilter.shortName`). It drops
    /// every other type without an error; its reply's `total_metrics` counts only what it took.
    public static let takenTypes: Set<String> = [
        "heartRate", "stepCount", "activeEnergyBurned", "distanceWalkingRunning", "flightsClimbed",
        "oxygenSaturation", "bloodPressureSystolic", "bloodPressureDiastolic", "restingHeartRate", "vO2Max",
        "heartRateVariabilitySDNN", "appleExerciseTime", "bodyMass", "respiratoryRate", "sleepAnalysis",
        "appleStandHour", "workout",
    ]

    /// Metrics per envelope: the contract's batches hold at most 1000.
    public static let maximumBatchSize = 1000

    public static func takes(_ type: String) -> Bool { takenTypes.contains(MetricFilter.shortName(type)) }
}
