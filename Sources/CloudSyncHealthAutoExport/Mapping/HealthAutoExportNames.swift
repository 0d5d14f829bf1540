/// The one table from Health Auto Export's metric names to HealthKit's types (docs/mapping.md, the
/// section "Health Auto Export"). Every name the real files show is here (the 87 of
/// `health-auto-export.md`), and a few more that the app documents. A name that is not here is kept
/// under its own name and unit, and reported.
public enum HealthAutoExportNames {
    /// How a name's points are read.
    public enum Shape: Sendable, Equatable {
        /// `qty` in `units`, converted by the unit table.
        case quantity
        /// `Min`/`Avg`/`Max` (or `qty`): the value is `Avg`, the extremes are metadata.
        case heartRate
        /// `systolic`/`diastolic`: two samples, as export.xml writes a blood-pressure correlation's members.
        case bloodPressure
        /// `sleep_analysis`: a summarised night or a segment (`SleepShapes`).
        case sleep
        /// A category type whose samples the export gives as their duration (`minutes`): `qty` is a duration.
        case categoryDuration
        /// Hours stood (a count), under the stand-hour category type.
        case standHours
    }

    public struct Entry: Sendable, Equatable {
        public var type: StaticString
        public var shape: Shape
        init(_ type: StaticString, _ shape: Shape) {
            self.type = type
            self.shape = shape
        }
        public static func == (a: Entry, b: Entry) -> Bool { a.type.description == b.type.description && a.shape == b.shape }
    }

    public static func entry(_ name: String) -> Entry? { table[name] }

    /// Every mapped name, for docs/mapping.md and its test.
    public static var names: [String] { table.keys.sorted() }

    static let table: [String: Entry] = [
        "active_energy": Entry("HKQuantityTypeIdentifierActiveEnergyBurned", .quantity),
        "alcohol_consumption": Entry("HKQuantityTypeIdentifierNumberOfAlcoholicBeverages", .quantity),
        "apple_exercise_time": Entry("HKQuantityTypeIdentifierAppleExerciseTime", .quantity),
        "apple_sleeping_wrist_temperature": Entry("HKQuantityTypeIdentifierAppleSleepingWristTemperature", .quantity),
        "apple_stand_hour": Entry("HKCategoryTypeIdentifierAppleStandHour", .standHours),
        "apple_stand_time": Entry("HKQuantityTypeIdentifierAppleStandTime", .quantity),
        "atrial_fibrillation_burden": Entry("HKQuantityTypeIdentifierAtrialFibrillationBurden", .quantity),
        "basal_body_temperature": Entry("HKQuantityTypeIdentifierBasalBodyTemperature", .quantity),
        "basal_energy_burned": Entry("HKQuantityTypeIdentifierBasalEnergyBurned", .quantity),
        "blood_alcohol_content": Entry("HKQuantityTypeIdentifierBloodAlcoholContent", .quantity),
        "blood_glucose": Entry("HKQuantityTypeIdentifierBloodGlucose", .quantity),
        "blood_oxygen_saturation": Entry("HKQuantityTypeIdentifierOxygenSaturation", .quantity),
        "blood_pressure": Entry("HKCorrelationTypeIdentifierBloodPressure", .bloodPressure),
        "body_fat_percentage": Entry("HKQuantityTypeIdentifierBodyFatPercentage", .quantity),
        "body_mass_index": Entry("HKQuantityTypeIdentifierBodyMassIndex", .quantity),
        "body_temperature": Entry("HKQuantityTypeIdentifierBodyTemperature", .quantity),
        "breathing_disturbances": Entry("HKQuantityTypeIdentifierAppleSleepingBreathingDisturbances", .quantity),
        "caffeine": Entry("HKQuantityTypeIdentifierDietaryCaffeine", .quantity),
        "calcium": Entry("HKQuantityTypeIdentifierDietaryCalcium", .quantity),
        "carbohydrates": Entry("HKQuantityTypeIdentifierDietaryCarbohydrates", .quantity),
        "cardio_recovery": Entry("HKQuantityTypeIdentifierHeartRateRecoveryOneMinute", .quantity),
        "chloride": Entry("HKQuantityTypeIdentifierDietaryChloride", .quantity),
        "cholesterol": Entry("HKQuantityTypeIdentifierDietaryCholesterol", .quantity),
        "chromium": Entry("HKQuantityTypeIdentifierDietaryChromium", .quantity),
        "copper": Entry("HKQuantityTypeIdentifierDietaryCopper", .quantity),
        "cycling_distance": Entry("HKQuantityTypeIdentifierDistanceCycling", .quantity),
        "dietary_biotin": Entry("HKQuantityTypeIdentifierDietaryBiotin", .quantity),
        "dietary_caffeine": Entry("HKQuantityTypeIdentifierDietaryCaffeine", .quantity),
        "dietary_cholesterol": Entry("HKQuantityTypeIdentifierDietaryCholesterol", .quantity),
        "dietary_energy": Entry("HKQuantityTypeIdentifierDietaryEnergyConsumed", .quantity),
        "dietary_sugar": Entry("HKQuantityTypeIdentifierDietarySugar", .quantity),
        "dietary_water": Entry("HKQuantityTypeIdentifierDietaryWater", .quantity),
        "distance_downhill_snow_sports": Entry("HKQuantityTypeIdentifierDistanceDownhillSnowSports", .quantity),
        "environmental_audio_exposure": Entry("HKQuantityTypeIdentifierEnvironmentalAudioExposure", .quantity),
        "fiber": Entry("HKQuantityTypeIdentifierDietaryFiber", .quantity),
        "flights_climbed": Entry("HKQuantityTypeIdentifierFlightsClimbed", .quantity),
        "folate": Entry("HKQuantityTypeIdentifierDietaryFolate", .quantity),
        "forced_expiratory_volume_1": Entry("HKQuantityTypeIdentifierForcedExpiratoryVolume1", .quantity),
        "forced_vital_capacity": Entry("HKQuantityTypeIdentifierForcedVitalCapacity", .quantity),
        "handwashing": Entry("HKCategoryTypeIdentifierHandwashingEvent", .categoryDuration),
        "headphone_audio_exposure": Entry("HKQuantityTypeIdentifierHeadphoneAudioExposure", .quantity),
        "heart_rate": Entry("HKQuantityTypeIdentifierHeartRate", .heartRate),
        "heart_rate_variability": Entry("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", .quantity),
        "iron": Entry("HKQuantityTypeIdentifierDietaryIron", .quantity),
        "lean_body_mass": Entry("HKQuantityTypeIdentifierLeanBodyMass", .quantity),
        "magnesium": Entry("HKQuantityTypeIdentifierDietaryMagnesium", .quantity),
        "manganese": Entry("HKQuantityTypeIdentifierDietaryManganese", .quantity),
        "mindful_minutes": Entry("HKCategoryTypeIdentifierMindfulSession", .categoryDuration),
        "monounsaturated_fat": Entry("HKQuantityTypeIdentifierDietaryFatMonounsaturated", .quantity),
        "niacin": Entry("HKQuantityTypeIdentifierDietaryNiacin", .quantity),
        "pantothenic_acid": Entry("HKQuantityTypeIdentifierDietaryPantothenicAcid", .quantity),
        "phosphorus": Entry("HKQuantityTypeIdentifierDietaryPhosphorus", .quantity),
        "physical_effort": Entry("HKQuantityTypeIdentifierPhysicalEffort", .quantity),
        "polyunsaturated_fat": Entry("HKQuantityTypeIdentifierDietaryFatPolyunsaturated", .quantity),
        "potassium": Entry("HKQuantityTypeIdentifierDietaryPotassium", .quantity),
        "protein": Entry("HKQuantityTypeIdentifierDietaryProtein", .quantity),
        "respiratory_rate": Entry("HKQuantityTypeIdentifierRespiratoryRate", .quantity),
        "resting_heart_rate": Entry("HKQuantityTypeIdentifierRestingHeartRate", .quantity),
        "riboflavin": Entry("HKQuantityTypeIdentifierDietaryRiboflavin", .quantity),
        "saturated_fat": Entry("HKQuantityTypeIdentifierDietaryFatSaturated", .quantity),
        "selenium": Entry("HKQuantityTypeIdentifierDietarySelenium", .quantity),
        "six_minute_walking_test_distance": Entry("HKQuantityTypeIdentifierSixMinuteWalkTestDistance", .quantity),
        "sleep_analysis": Entry("HKCategoryTypeIdentifierSleepAnalysis", .sleep),
        "sodium": Entry("HKQuantityTypeIdentifierDietarySodium", .quantity),
        "stair_speed_down": Entry("HKQuantityTypeIdentifierStairDescentSpeed", .quantity),
        "stair_speed_up": Entry("HKQuantityTypeIdentifierStairAscentSpeed", .quantity),
        "step_count": Entry("HKQuantityTypeIdentifierStepCount", .quantity),
        "swimming_distance": Entry("HKQuantityTypeIdentifierDistanceSwimming", .quantity),
        "thiamin": Entry("HKQuantityTypeIdentifierDietaryThiamin", .quantity),
        "time_in_daylight": Entry("HKQuantityTypeIdentifierTimeInDaylight", .quantity),
        "total_fat": Entry("HKQuantityTypeIdentifierDietaryFatTotal", .quantity),
        "vitamin_a": Entry("HKQuantityTypeIdentifierDietaryVitaminA", .quantity),
        "vitamin_b12": Entry("HKQuantityTypeIdentifierDietaryVitaminB12", .quantity),
        "vitamin_b6": Entry("HKQuantityTypeIdentifierDietaryVitaminB6", .quantity),
        "vitamin_c": Entry("HKQuantityTypeIdentifierDietaryVitaminC", .quantity),
        "vitamin_d": Entry("HKQuantityTypeIdentifierDietaryVitaminD", .quantity),
        "vitamin_e": Entry("HKQuantityTypeIdentifierDietaryVitaminE", .quantity),
        "vitamin_k": Entry("HKQuantityTypeIdentifierDietaryVitaminK", .quantity),
        "vo2_max": Entry("HKQuantityTypeIdentifierVO2Max", .quantity),
        "walking_asymmetry_percentage": Entry("HKQuantityTypeIdentifierWalkingAsymmetryPercentage", .quantity),
        "walking_double_support_percentage": Entry("HKQuantityTypeIdentifierWalkingDoubleSupportPercentage", .quantity),
        "walking_heart_rate_average": Entry("HKQuantityTypeIdentifierWalkingHeartRateAverage", .quantity),
        "walking_running_distance": Entry("HKQuantityTypeIdentifierDistanceWalkingRunning", .quantity),
        "walking_speed": Entry("HKQuantityTypeIdentifierWalkingSpeed", .quantity),
        "walking_step_length": Entry("HKQuantityTypeIdentifierWalkingStepLength", .quantity),
        "weight_body_mass": Entry("HKQuantityTypeIdentifierBodyMass", .quantity),
        "zinc": Entry("HKQuantityTypeIdentifierDietaryZinc", .quantity),        // Documented by the app, not seen in the real files.
        "height": Entry("HKQuantityTypeIdentifierHeight", .quantity),
        "waist_circumference": Entry("HKQuantityTypeIdentifierWaistCircumference", .quantity),
        "number_of_times_fallen": Entry("HKQuantityTypeIdentifierNumberOfTimesFallen", .quantity),
        "insulin_delivery": Entry("HKQuantityTypeIdentifierInsulinDelivery", .quantity),
        "uv_exposure": Entry("HKQuantityTypeIdentifierUVExposure", .quantity),
        "push_count": Entry("HKQuantityTypeIdentifierPushCount", .quantity),
        "wheelchair_distance": Entry("HKQuantityTypeIdentifierDistanceWheelchair", .quantity),
        "running_speed": Entry("HKQuantityTypeIdentifierRunningSpeed", .quantity),
        "running_power": Entry("HKQuantityTypeIdentifierRunningPower", .quantity),
        "cycling_speed": Entry("HKQuantityTypeIdentifierCyclingSpeed", .quantity),
        "cycling_power": Entry("HKQuantityTypeIdentifierCyclingPower", .quantity),
        "cycling_cadence": Entry("HKQuantityTypeIdentifierCyclingCadence", .quantity),
        "peak_expiratory_flow_rate": Entry("HKQuantityTypeIdentifierPeakExpiratoryFlowRate", .quantity),
        "inhaler_usage": Entry("HKQuantityTypeIdentifierInhalerUsage", .quantity),
        "electrodermal_activity": Entry("HKQuantityTypeIdentifierElectrodermalActivity", .quantity),
        "underwater_depth": Entry("HKQuantityTypeIdentifierUnderwaterDepth", .quantity),
        "water_temperature": Entry("HKQuantityTypeIdentifierWaterTemperature", .quantity),
        "dietary_fiber": Entry("HKQuantityTypeIdentifierDietaryFiber", .quantity),
        "dietary_protein": Entry("HKQuantityTypeIdentifierDietaryProtein", .quantity),
        "dietary_carbohydrates": Entry("HKQuantityTypeIdentifierDietaryCarbohydrates", .quantity),
        "dietary_fat_total": Entry("HKQuantityTypeIdentifierDietaryFatTotal", .quantity),
        "dietary_sodium": Entry("HKQuantityTypeIdentifierDietarySodium", .quantity),
    ]
}
