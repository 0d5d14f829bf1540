@testable import CloudSyncExport
import CloudSyncKinds
import CloudSyncModel
import CloudSyncTesting
import Foundation
import Testing

/// `--kind correlations`: which systolic goes with which diastolic, and the parts of a food entry,
/// with the members in canonical units.
@Suite struct CorrelationTests {
    @Test func membersComeWithTheirCorrelationInCanonicalUnits() throws {
        let xml = """
            <?xml version="1.0"?>
            <HealthData locale="en_US">
             <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Omron" sourceVersion="7.1" startDate="2024-11-02 08:30:00 -0500" endDate="2024-11-02 08:30:00 -0500">
              <MetadataEntry key="HKWasUserEntered" value="1"/>
              <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Omron" unit="mmHg" startDate="2024-11-02 08:30:00 -0500" endDate="2024-11-02 08:30:00 -0500" value="121"/>
              <Record type="HKQuantityTypeIdentifierBloodPressureDiastolic" sourceName="Omron" unit="mmHg" startDate="2024-11-02 08:30:00 -0500" endDate="2024-11-02 08:30:00 -0500" value="79"/>
             </Correlation>
             <Correlation type="HKCorrelationTypeIdentifierFood" sourceName="MyFitnessPal" startDate="2024-11-02 12:00:00 +0100" endDate="2024-11-02 12:00:00 +0100">
              <MetadataEntry key="HKFoodType" value="Lunch"/>
              <Record type="HKQuantityTypeIdentifierDietaryEnergyConsumed" sourceName="MyFitnessPal" unit="kJ" startDate="2024-11-02 12:00:00 +0100" endDate="2024-11-02 12:00:00 +0100" value="2092"/>
              <Record type="HKQuantityTypeIdentifierDietaryProtein" sourceName="MyFitnessPal" unit="g" startDate="2024-11-02 12:00:00 +0100" endDate="2024-11-02 12:00:00 +0100" value="31.5"/>
             </Correlation>
             <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Omron" startDate="2024-11-03 08:30:00 -0500" endDate="2024-11-03 08:30:00 -0500"/>
            </HealthData>
            """
        let sink = CollectingSink()
        let report = try ReaderRunner.run(ArchiveConverter(input: try writeFile(xml), kinds: [CorrelationKind.self]), into: ReaderSinks(metrics: DiscardingSink(), records: sink))
        #expect(report.count("correlations").records == 2 && report.notes == ["1 correlation without a member with a value skipped"])
        let pressure = try #require(sink.correlations.first)
        #expect(pressure.type == "bloodPressure" && pressure.sourceApp == "Omron" && pressure.startDate == 1_730_554_200)
        #expect(pressure.metadata.map(\.key) == ["sourceVersion", "HKWasUserEntered"])
        #expect(pressure.members == [.init(type: "HKQuantityTypeIdentifierBloodPressureSystolic", value: 121, unit: "mmHg"),
                                     .init(type: "HKQuantityTypeIdentifierBloodPressureDiastolic", value: 79, unit: "mmHg")])
        let food = try #require(sink.correlations.last)
        #expect(food.type == "food")
        // kJ becomes kcal, as the metric of the same sample has it.
        #expect(food.members.first?.unit == "kcal" && abs((food.members.first?.value ?? 0) - 500) < 0.01)
        #expect(food.members.last == .init(type: "HKQuantityTypeIdentifierDietaryProtein", value: 0.0315, unit: "kg"))   // the unit table's mass unit
    }
}
