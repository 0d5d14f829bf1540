/// The HealthKit sample types an export can hold, by their short names (`heartRate` for
/// `HKQuantityTypeIdentifierHeartRate`), plus cloudsync's own `workout` and `activitySummary`.
/// `--types` checks names against this list so that a typo ("heartrate") is an error with the
/// closest names instead of a run that silently keeps nothing.
public enum KnownTypes {
    public static let quantity: [String] = [
        "activeEnergyBurned", "appleExerciseTime", "appleMoveTime", "appleSleepingBreathingDisturbances",
        "appleSleepingWristTemperature", "appleStandTime", "appleWalkingSteadiness", "atrialFibrillationBurden",
        "basalBodyTemperature", "basalEnergyBurned", "bloodAlcoholContent", "bloodGlucose", "bloodPressureDiastolic",
        "bloodPressureSystolic", "bodyFatPercentage", "bodyMass", "bodyMassIndex", "bodyTemperature",
        "crossCountrySkiingSpeed", "cyclingCadence", "cyclingFunctionalThresholdPower", "cyclingPower", "cyclingSpeed",
        "dietaryBiotin", "dietaryCaffeine", "dietaryCalcium", "dietaryCarbohydrates", "dietaryChloride",
        "dietaryCholesterol", "dietaryChromium", "dietaryCopper", "dietaryEnergyConsumed", "dietaryFatMonounsaturated",
        "dietaryFatPolyunsaturated", "dietaryFatSaturated", "dietaryFatTotal", "dietaryFiber", "dietaryFolate",
        "dietaryIodine", "dietaryIron", "dietaryMagnesium", "dietaryManganese", "dietaryMolybdenum", "dietaryNiacin",
        "dietaryPantothenicAcid", "dietaryPhosphorus", "dietaryPotassium", "dietaryProtein", "dietaryRiboflavin",
        "dietarySelenium", "dietarySodium", "dietarySugar", "dietaryThiamin", "dietaryVitaminA", "dietaryVitaminB12",
        "dietaryVitaminB6", "dietaryVitaminC", "dietaryVitaminD", "dietaryVitaminE", "dietaryVitaminK", "dietaryWater",
        "dietaryZinc", "distanceCrossCountrySkiing", "distanceCycling", "distanceDownhillSnowSports", "distancePaddleSports",
        "distanceRowing", "distanceSkatingSports", "distanceSwimming", "distanceWalkingRunning", "distanceWheelchair",
        "electrodermalActivity", "environmentalAudioExposure", "environmentalSoundReduction", "estimatedWorkoutEffortScore",
        "flightsClimbed", "forcedExpiratoryVolume1", "forcedVitalCapacity", "headphoneAudioExposure", "heartRate",
        "heartRateRecoveryOneMinute", "heartRateVariabilitySDNN", "height", "inhalerUsage", "insulinDelivery",
        "leanBodyMass", "nikeFuel", "numberOfAlcoholicBeverages", "numberOfTimesFallen", "oxygenSaturation",
        "paddleSportsSpeed", "peakExpiratoryFlowRate", "peripheralPerfusionIndex", "physicalEffort", "pushCount",
        "respiratoryRate", "restingHeartRate", "rowingSpeed", "runningGroundContactTime", "runningPower", "runningSpeed",
        "runningStrideLength", "runningVerticalOscillation", "sixMinuteWalkTestDistance", "stairAscentSpeed",
        "stairDescentSpeed", "stepCount", "swimmingStrokeCount", "timeInDaylight", "underwaterDepth", "uVExposure",
        "vO2Max", "waistCircumference", "walkingAsymmetryPercentage", "walkingDoubleSupportPercentage",
        "walkingHeartRateAverage", "walkingSpeed", "walkingStepLength", "waterTemperature", "workoutEffortScore",
    ]

    public static let category: [String] = [
        "abdominalCramps", "acne", "appetiteChanges", "appleStandHour", "appleWalkingSteadinessEvent",
        "audioExposureEvent", "bladderIncontinence", "bloating", "breastPain", "cervicalMucusQuality", "chestTightnessOrPain",
        "chills", "constipation", "contraceptive", "coughing", "diarrhea", "dizziness", "drySkin", "environmentalAudioExposureEvent",
        "fainting", "fatigue", "fever", "generalizedBodyAche", "hairLoss", "handwashingEvent", "headache",
        "headphoneAudioExposureEvent", "heartburn", "hotFlashes", "highHeartRateEvent", "infrequentMenstrualCycles",
        "intermenstrualBleeding", "irregularHeartRhythmEvent", "irregularMenstrualCycles", "lactation",
        "lossOfSmell", "lossOfTaste", "lowCardioFitnessEvent", "lowHeartRateEvent", "lowerBackPain", "memoryLapse",
        "menstrualFlow", "mindfulSession", "moodChanges", "nausea", "nightSweats", "ovulationTestResult",
        "pelvicPain", "persistentIntermenstrualBleeding", "pregnancy", "pregnancyTestResult", "progesteroneTestResult",
        "prolongedMenstrualPeriods", "rapidPoundingOrFlutteringHeartbeat", "runnyNose", "sexualActivity", "shortnessOfBreath",
        "sinusCongestion", "skippedHeartbeat", "sleepAnalysis", "sleepApneaEvent", "sleepChanges", "soreThroat",
        "toothbrushingEvent", "vaginalDryness", "vomiting", "wheezing",
    ]

    /// cloudsync's own types and other identifiers seen in exports.
    public static let other: [String] = ["workout", "activitySummary", "sleepDurationGoal", "bloodPressure", "food"]

    public static let all: [String] = quantity + category + other
    private static let lookup = Set(all)

    public static func isKnown(_ shortName: String) -> Bool { lookup.contains(shortName) }

    /// The known names closest to `name` (case-insensitive edit distance), best first.
    public static func closest(to name: String, count: Int = 3) -> [String] {
        let scored = all.map { candidate -> (String, Int) in (candidate, EditDistance.between(name, candidate)) }
        let limit = max(2, name.count / 3)
        return scored.filter { $0.1 <= limit }.sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }.prefix(count).map(\.0)
    }
}
