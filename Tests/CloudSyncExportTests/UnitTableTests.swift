import CloudSyncTesting
import Foundation
import CloudSyncExport
import CloudSyncModel
import Testing

/// Every row of the unit table in healthmetric.md.
@Suite struct UnitTableTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var unit: String, type: String, input: Double, expected: Double, canonical: String
        var testDescription: String { "\(input) \(unit) on \(type)" }
    }

    static let rows: [Row] = [
        Row(unit: "count", type: "HKQuantityTypeIdentifierStepCount", input: 1200, expected: 1200, canonical: "count"),
        Row(unit: "count/min", type: "HKQuantityTypeIdentifierHeartRate", input: 79, expected: 79, canonical: "bpm"),
        Row(unit: "count/min", type: "HKQuantityTypeIdentifierRestingHeartRate", input: 52, expected: 52, canonical: "bpm"),
        Row(unit: "count/min", type: "HKQuantityTypeIdentifierRespiratoryRate", input: 17, expected: 17, canonical: "count/min"),
        Row(unit: "count/s", type: "HKQuantityTypeIdentifierHeartRate", input: 1.5, expected: 90, canonical: "bpm"),
        Row(unit: "count/s", type: "HKQuantityTypeIdentifierRespiratoryRate", input: 0.25, expected: 15, canonical: "count/min"),
        Row(unit: "kcal", type: "HKQuantityTypeIdentifierActiveEnergyBurned", input: 4.5, expected: 4.5, canonical: "kcal"),
        Row(unit: "Cal", type: "HKQuantityTypeIdentifierDietaryEnergyConsumed", input: 250, expected: 250, canonical: "kcal"),
        Row(unit: "kJ", type: "HKQuantityTypeIdentifierActiveEnergyBurned", input: 41.84, expected: 10, canonical: "kcal"),
        Row(unit: "cal", type: "HKQuantityTypeIdentifierActiveEnergyBurned", input: 2500, expected: 2.5, canonical: "kcal"),
        Row(unit: "J", type: "HKQuantityTypeIdentifierActiveEnergyBurned", input: 4184, expected: 1, canonical: "kcal"),
        Row(unit: "km", type: "HKQuantityTypeIdentifierDistanceWalkingRunning", input: 3.2, expected: 3.2, canonical: "km"),
        Row(unit: "m", type: "HKQuantityTypeIdentifierDistanceCycling", input: 1500, expected: 1.5, canonical: "km"),
        Row(unit: "cm", type: "HKQuantityTypeIdentifierDistanceSwimming", input: 250_000, expected: 2.5, canonical: "km"),
        Row(unit: "mm", type: "HKQuantityTypeIdentifierDistanceWalkingRunning", input: 1_000_000, expected: 1, canonical: "km"),
        Row(unit: "mi", type: "HKQuantityTypeIdentifierDistanceWalkingRunning", input: 0.5, expected: 0.804672, canonical: "km"),
        Row(unit: "ft", type: "HKQuantityTypeIdentifierDistanceWalkingRunning", input: 1000, expected: 0.3048, canonical: "km"),
        Row(unit: "in", type: "HKQuantityTypeIdentifierDistanceWalkingRunning", input: 100_000, expected: 2.54, canonical: "km"),
        Row(unit: "yd", type: "HKQuantityTypeIdentifierDistanceSwimming", input: 100, expected: 0.09144, canonical: "km"),
        Row(unit: "m", type: "HKQuantityTypeIdentifierHeight", input: 1.78, expected: 178, canonical: "cm"),
        Row(unit: "cm", type: "HKQuantityTypeIdentifierHeight", input: 178, expected: 178, canonical: "cm"),
        Row(unit: "mm", type: "HKQuantityTypeIdentifierWaistCircumference", input: 850, expected: 85, canonical: "cm"),
        Row(unit: "ft", type: "HKQuantityTypeIdentifierHeight", input: 5.75, expected: 175.26, canonical: "cm"),
        Row(unit: "in", type: "HKQuantityTypeIdentifierHeight", input: 70, expected: 177.8, canonical: "cm"),
        Row(unit: "km", type: "HKQuantityTypeIdentifierWalkingStepLength", input: 0.00075, expected: 75, canonical: "cm"),
        Row(unit: "mi", type: "HKQuantityTypeIdentifierHeight", input: 0.001, expected: 160.9344, canonical: "cm"),
        Row(unit: "yd", type: "HKQuantityTypeIdentifierHeight", input: 2, expected: 182.88, canonical: "cm"),
        Row(unit: "kg", type: "HKQuantityTypeIdentifierBodyMass", input: 72.5, expected: 72.5, canonical: "kg"),
        Row(unit: "g", type: "HKQuantityTypeIdentifierBodyMass", input: 72500, expected: 72.5, canonical: "kg"),
        Row(unit: "lb", type: "HKQuantityTypeIdentifierBodyMass", input: 165, expected: 74.84274105, canonical: "kg"),
        Row(unit: "oz", type: "HKQuantityTypeIdentifierBodyMass", input: 16, expected: 0.45359237, canonical: "kg"),
        Row(unit: "st", type: "HKQuantityTypeIdentifierBodyMass", input: 11, expected: 69.85322498, canonical: "kg"),
        Row(unit: "degC", type: "HKQuantityTypeIdentifierBodyTemperature", input: 36.6, expected: 36.6, canonical: "degC"),
        Row(unit: "degF", type: "HKQuantityTypeIdentifierBodyTemperature", input: 98.6, expected: 37, canonical: "degC"),
        Row(unit: "K", type: "HKQuantityTypeIdentifierBodyTemperature", input: 310.15, expected: 37, canonical: "degC"),
        Row(unit: "%", type: "HKQuantityTypeIdentifierOxygenSaturation", input: 0.97, expected: 97, canonical: "%"),
        Row(unit: "mL/min·kg", type: "HKQuantityTypeIdentifierVO2Max", input: 41.2, expected: 41.2, canonical: "ml/kg/min"),
        Row(unit: "mL/(kg·min)", type: "HKQuantityTypeIdentifierVO2Max", input: 41.2, expected: 41.2, canonical: "ml/kg/min"),
        Row(unit: "s", type: "HKQuantityTypeIdentifierAppleStandTime", input: 90, expected: 1.5, canonical: "min"),
        Row(unit: "min", type: "HKQuantityTypeIdentifierAppleExerciseTime", input: 12, expected: 12, canonical: "min"),
        Row(unit: "hr", type: "HKDataTypeSleepDurationGoal", input: 8, expected: 480, canonical: "min"),
        Row(unit: "d", type: "HKQuantityTypeIdentifierAppleExerciseTime", input: 0.5, expected: 720, canonical: "min"),
        Row(unit: "ms", type: "HKQuantityTypeIdentifierHeartRateVariabilitySDNN", input: 48.2, expected: 48.2, canonical: "ms"),
        Row(unit: "km/hr", type: "HKQuantityTypeIdentifierWalkingSpeed", input: 4.68, expected: 4.68, canonical: "km/hr"),
        Row(unit: "m/s", type: "HKQuantityTypeIdentifierRunningSpeed", input: 2.5, expected: 9, canonical: "km/hr"),
        Row(unit: "mi/hr", type: "HKQuantityTypeIdentifierWalkingSpeed", input: 3, expected: 4.828032, canonical: "km/hr"),
        Row(unit: "mL", type: "HKQuantityTypeIdentifierDietaryWater", input: 250, expected: 250, canonical: "mL"),
        Row(unit: "L", type: "HKQuantityTypeIdentifierDietaryWater", input: 1.5, expected: 1500, canonical: "mL"),
        Row(unit: "fl_oz_us", type: "HKQuantityTypeIdentifierDietaryWater", input: 8, expected: 236.5882365, canonical: "mL"),
        Row(unit: "cup_us", type: "HKQuantityTypeIdentifierDietaryWater", input: 2, expected: 473.176473, canonical: "mL"),
        Row(unit: "mg/dL", type: "HKQuantityTypeIdentifierBloodGlucose", input: 95, expected: 95, canonical: "mg/dL"),
        Row(unit: "mmol<180.1558800000541>/L", type: "HKQuantityTypeIdentifierBloodGlucose", input: 5.5, expected: 99.0857340000, canonical: "mg/dL"),
        Row(unit: "mmHg", type: "HKQuantityTypeIdentifierBloodPressureSystolic", input: 121, expected: 121, canonical: "mmHg"),
        Row(unit: "dBASPL", type: "HKQuantityTypeIdentifierHeadphoneAudioExposure", input: 72.3, expected: 72.3, canonical: "dBASPL"),
        Row(unit: "dBHL", type: "HKQuantityTypeIdentifierEnvironmentalAudioExposure", input: 20, expected: 20, canonical: "dBHL"),
    ]

    /// Through the whole converter, on real XML: value, canonical unit, and recognised.
    @Test(arguments: rows)
    func normalisesOnRealXML(_ row: Row) throws {
        let input = String(row.input)
        let path = try writeFile(exportXML(record(row.type, unit: row.unit, value: input)))
        let (metrics, _, _) = try convert(path)
        let metric = try #require(metrics.first)
        #expect(metric.unit == row.canonical)
        #expect(abs(metric.value - row.expected) <= 1e-9 * max(1, abs(row.expected)), "got \(metric.value)")
        let conversion = row.unit.withBytes { unit in row.type.withBytes { UnitTable.conversion(unit: unit, type: $0) } }
        #expect(conversion.isRecognised)
    }

    @Test func unknownUnitsAreKeptAndReported() throws {
        let path = try writeFile(exportXML(record("HKQuantityTypeIdentifierRunningPower", unit: "W", value: "210")))
        let inspector = ExportInspector()
        let converter = ExportConverter(input: path)
        converter.observer = inspector
        let report = inspector.report(try ReaderRunner.run(converter, into: ReaderSinks(metrics: inspector, records: CountingRecordSink())))
        #expect(report.unrecognisedUnits == ["W": 1])
        #expect(report.metricsByType == ["HKQuantityTypeIdentifierRunningPower": 1])
        let (metrics, _, _) = try convert(path)
        #expect(metrics.first?.unit == "W")
        #expect(metrics.first?.value == 210)
    }
}
