import Foundation

/// The names the app gives symptoms and cycle-tracking samples, as the HealthKit category types and
/// values export.xml writes for the same samples (docs/mapping.md, "The app's other arrays"): a
/// headache logged in Health is `HKCategoryTypeIdentifierHeadache` with
/// `HKCategoryValueSeverityModerate` in both, so the two are one sample.
enum AppCategories {
    /// A name folded for lookup: letters and digits only, lower case (`Chest Tightness or Pain` →
    /// `chesttightnessorpain`).
    static func folded(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init))
    }

    /// `Egg White` → `EggWhite`: each word capitalised, joined.
    static func joinedWords(_ text: String) -> String {
        text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    // MARK: Symptoms

    /// HealthKit's symptom types (iOS 13.6 and later), by folded name.
    static let symptoms: [String: String] = Dictionary([
        "AbdominalCramps", "Acne", "AppetiteChanges", "BladderIncontinence", "Bloating", "BreastPain", "ChestTightnessOrPain", "Chills",
        "Constipation", "Coughing", "Diarrhea", "Dizziness", "DrySkin", "Fainting", "Fatigue", "Fever", "GeneralizedBodyAche", "HairLoss",
        "Headache", "Heartburn", "HotFlashes", "LossOfSmell", "LossOfTaste", "LowerBackPain", "MemoryLapse", "MoodChanges", "Nausea",
        "NightSweats", "PelvicPain", "RapidPoundingOrFlutteringHeartbeat", "RunnyNose", "ShortnessOfBreath", "SinusCongestion",
        "SkippedHeartbeat", "SleepChanges", "SoreThroat", "VaginalDryness", "Vomiting", "Wheezing",
    ].map { (folded($0), "HKCategoryTypeIdentifier" + $0) } + [
        // The app's and Health's other spellings.
        (folded("Body and Muscle Ache"), "HKCategoryTypeIdentifierGeneralizedBodyAche"),
        (folded("Cough"), "HKCategoryTypeIdentifierCoughing"),
        (folded("Congestion"), "HKCategoryTypeIdentifierSinusCongestion"),
    ], uniquingKeysWith: { first, _ in first })

    /// A symptom's value: its severity (`HKCategoryValueSeverity…`), or for the three symptoms
    /// that are not graded by severity their own values; nil when the words are not known (another
    /// language): the value is then kept as written.
    static func symptomValue(type: String, written: String) -> String? {
        let word = folded(written)
        switch type {
        case "HKCategoryTypeIdentifierAppetiteChanges":
            let values = ["unspecified": "Unspecified", "nochange": "NoChange", "decreased": "Decreased", "increased": "Increased"]
            return values[word].map { "HKCategoryValueAppetiteChanges" + $0 }
        case "HKCategoryTypeIdentifierMoodChanges", "HKCategoryTypeIdentifierSleepChanges":
            let values = ["present": "Present", "notpresent": "NotPresent", "absent": "NotPresent"]
            return values[word].map { "HKCategoryValuePresence" + $0 }
        default:
            let values = ["unspecified": "Unspecified", "notpresent": "NotPresent", "absent": "NotPresent", "mild": "Mild",
                          "moderate": "Moderate", "severe": "Severe"]
            return values[word].map { "HKCategoryValueSeverity" + $0 }
        }
    }

    // MARK: Cycle tracking

    /// How one cycle-tracking name is kept.
    struct CycleType {
        /// The HealthKit type.
        var type: String
        /// The value prefix (`HKCategoryValueMenstrualFlow`); nil: the type has no values of its own
        /// (`HKCategoryValueNotApplicable`).
        var values: String?
        /// Written words that are not the value's own name (`LH Surge` → `LuteinizingHormoneSurge`).
        var synonyms: [String: String] = [:]
    }

    static let cycleTypes: [String: CycleType] = {
        var types: [String: CycleType] = [:]
        func add(_ names: [String], _ type: CycleType) { for name in names { types[folded(name)] = type } }
        add(["Menstrual Flow", "Menstruation", "Period"], CycleType(type: "HKCategoryTypeIdentifierMenstrualFlow",
                                                                    values: "HKCategoryValueMenstrualFlow"))
        add(["Cervical Mucus Quality", "Cervical Mucus"], CycleType(type: "HKCategoryTypeIdentifierCervicalMucusQuality",
                                                                    values: "HKCategoryValueCervicalMucusQuality"))
        add(["Ovulation Test Result", "Ovulation Test"], CycleType(type: "HKCategoryTypeIdentifierOvulationTestResult",
                                                                   values: "HKCategoryValueOvulationTestResult",
                                                                   synonyms: ["lhsurge": "LuteinizingHormoneSurge", "positive": "LuteinizingHormoneSurge"]))
        add(["Pregnancy Test Result", "Pregnancy Test"], CycleType(type: "HKCategoryTypeIdentifierPregnancyTestResult",
                                                                   values: "HKCategoryValuePregnancyTestResult"))
        add(["Progesterone Test Result", "Progesterone Test"], CycleType(type: "HKCategoryTypeIdentifierProgesteroneTestResult",
                                                                         values: "HKCategoryValueProgesteroneTestResult"))
        add(["Contraceptive", "Contraceptives"], CycleType(type: "HKCategoryTypeIdentifierContraceptive", values: "HKCategoryValueContraceptive",
                                                          synonyms: ["iud": "IntrauterineDevice", "ring": "IntravaginalRing",
                                                                     "vaginalring": "IntravaginalRing", "pill": "Oral"]))
        add(["Sexual Activity"], CycleType(type: "HKCategoryTypeIdentifierSexualActivity"))
        add(["Intermenstrual Bleeding", "Spotting"], CycleType(type: "HKCategoryTypeIdentifierIntermenstrualBleeding"))
        add(["Pregnancy"], CycleType(type: "HKCategoryTypeIdentifierPregnancy"))
        add(["Lactation"], CycleType(type: "HKCategoryTypeIdentifierLactation"))
        add(["Irregular Menstrual Cycles", "Irregular Cycles"], CycleType(type: "HKCategoryTypeIdentifierIrregularMenstrualCycles"))
        add(["Infrequent Menstrual Cycles", "Infrequent Periods"], CycleType(type: "HKCategoryTypeIdentifierInfrequentMenstrualCycles"))
        add(["Persistent Intermenstrual Bleeding", "Persistent Spotting"],
            CycleType(type: "HKCategoryTypeIdentifierPersistentIntermenstrualBleeding"))
        add(["Prolonged Menstrual Periods", "Prolonged Periods"], CycleType(type: "HKCategoryTypeIdentifierProlongedMenstrualPeriods"))
        return types
    }()

    /// `Cycle Irregularities`: the app names the deviation in the value.
    static let cycleIrregularities = folded("Cycle Irregularities")

    /// `Light` → `HKCategoryValueMenstrualFlowLight`; nil when the type has values and the words are
    /// none of them (kept as written then).
    static func cycleValue(_ type: CycleType, written: String?) -> String? {
        guard let prefix = type.values else { return "HKCategoryValueNotApplicable" }
        guard let written, !written.isEmpty else { return prefix + "Unspecified" }
        if let synonym = type.synonyms[folded(written)] { return prefix + synonym }
        let known: Set<String> = ["Unspecified", "None", "Light", "Medium", "Heavy", "Dry", "Sticky", "Creamy", "Watery", "EggWhite",
                                  "Negative", "LuteinizingHormoneSurge", "Indeterminate", "EstrogenSurge", "Positive", "Implant",
                                  "Injection", "IntrauterineDevice", "IntravaginalRing", "Oral", "Patch"]
        let words = joinedWords(written)
        return known.contains(words) ? prefix + words : nil
    }
}
