import CloudSyncModel
import Testing

/// A type name a person gives, against the types a store holds: `steps`, `stepcount` and
/// `HKQuantityTypeIdentifierStepCount` all find the steps; a typo gets the closest stored names,
/// never "never recorded".
@Suite struct TypeResolutionTests {
    let stored = ["HKCategoryTypeIdentifierSleepAnalysis", "HKQuantityTypeIdentifierHeartRate",
                  "HKQuantityTypeIdentifierRestingHeartRate", "HKQuantityTypeIdentifierStepCount", "workout"]

    @Test(arguments: ["HKQuantityTypeIdentifierStepCount", "stepCount", "stepcount", "STEPCOUNT", "step count", "step_count",
                      "steps", "Steps", "hkquantitytypeidentifierstepcount"])
    func everyNameOfTheStepsFindsThem(_ name: String) {
        #expect(TypeResolution.resolve(name, stored: stored) == .stored("HKQuantityTypeIdentifierStepCount"))
    }

    @Test func aliasesAndSpacesFindTheirTypes() {
        #expect(TypeResolution.resolve("sleep", stored: stored) == .stored("HKCategoryTypeIdentifierSleepAnalysis"))
        #expect(TypeResolution.resolve("hr", stored: stored) == .stored("HKQuantityTypeIdentifierHeartRate"))
        #expect(TypeResolution.resolve("heart rate", stored: stored) == .stored("HKQuantityTypeIdentifierHeartRate"))
        #expect(TypeResolution.resolve("Resting Heart Rate", stored: stored) == .stored("HKQuantityTypeIdentifierRestingHeartRate"))
        #expect(TypeResolution.resolve("workout", stored: stored) == .stored("workout"))
    }

    @Test func aRealTypeTheStoreLacksIsNotRecordedByItsShortName() {
        #expect(TypeResolution.resolve("bloodglucose", stored: stored) == .notRecorded("bloodGlucose"))
        #expect(TypeResolution.resolve("weight", stored: stored) == .notRecorded("bodyMass"))
        #expect(TypeResolution.resolve("HKQuantityTypeIdentifierBodyMass", stored: stored) == .notRecorded("bodyMass"))
        #expect(TypeResolution.resolve("hr", stored: []) == .notRecorded("heartRate"))
        // An identifier newer than this release, near nothing the store has: a type, not a typo.
        #expect(TypeResolution.resolve("HKQuantityTypeIdentifierFutureThing", stored: stored) == .notRecorded("futureThing"))
    }

    @Test func aTypoGetsTheClosestStoredNames() {
        #expect(TypeResolution.resolve("stepcont", stored: stored) == .unknown(suggestions: ["stepCount"]))
        // Through the alias `steps` (and `sleep`, two edits away).
        #expect(TypeResolution.resolve("step", stored: stored) == .unknown(suggestions: ["stepCount", "sleepAnalysis"]))
        #expect(TypeResolution.resolve("heartrat", stored: stored) == .unknown(suggestions: ["heartRate", "restingHeartRate"]))
        #expect(TypeResolution.resolve("heart", stored: stored) == .unknown(suggestions: ["heartRate", "restingHeartRate"]))
        #expect(TypeResolution.resolve("zzzzzzzz", stored: stored) == .unknown(suggestions: []))
    }

    @Test func theAliasTableNamesKnownTypesOnly() {
        for (alias, type) in TypeNames.aliases {
            #expect(KnownTypes.isKnown(type), "\(alias) → \(type)")
            #expect(TypeNames.key(alias) == alias, "aliases are written as their keys: \(alias)")
            #expect(TypeNames.canonical(alias) == type)
        }
        #expect(TypeNames.canonical("HKQuantityTypeIdentifierHeartRate") == "heartRate")
        #expect(TypeNames.canonical("nonsense") == nil)
    }
}
