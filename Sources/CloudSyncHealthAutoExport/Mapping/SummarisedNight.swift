/// What a summarised night of `sleep_analysis` measured, read by the app's version (docs/mapping.md,
/// "Sleep"): which members are stages, kept as samples, and which is the night's total asleep.
///
/// - `totalSleep` (the app's versions since 2024) is the night's total; `asleep` beside it is the
///   stage "asleep without a stage" (0 on a Watch's night, where `totalSleep` = core + deep + REM:
///   so in all 2,955 nights of the corpus's 15-year file).
/// - Without `totalSleep`, a night with stages and `asleep` (the 2023 shape) gives in `asleep` the
///   app's own total of the night, not one more stage: on the corpus's 90 such nights it is within
///   −66…+118 minutes of core + deep + REM, and adding it to them would count the night twice. It is
///   kept as the total, not as a sample.
/// - Without stages, `asleep` (else `totalSleep`) is the night's one measure.
struct SummarisedNight {
    struct Stage {
        var category: StaticString
        var value: StaticString
        var hours: Double
    }

    /// The samples to keep, each a stage with time in it.
    private(set) var stages: [Stage] = []
    /// The night's total asleep in hours, where the file gives one that the stages do not.
    private(set) var totalSleep: Double?

    init(_ sleep: PointFields.SleepFields) {
        func positive(_ value: Double?) -> Double? { value.flatMap { $0 > 0 ? $0 : nil } }
        let core = positive(sleep.core), deep = positive(sleep.deep), rem = positive(sleep.rem)
        let asleep = positive(sleep.asleep), total = positive(sleep.totalSleep)
        let hasStages = core != nil || deep != nil || rem != nil
        let asleepIsAStage = sleep.totalSleep != nil || !hasStages
        totalSleep = total ?? (hasStages && !asleepIsAStage ? asleep : nil)
        add("core", "HKCategoryValueSleepAnalysisAsleepCore", core)
        add("deep", "HKCategoryValueSleepAnalysisAsleepDeep", deep)
        add("rem", "HKCategoryValueSleepAnalysisAsleepREM", rem)
        add("asleep", "HKCategoryValueSleepAnalysisAsleepUnspecified", asleepIsAStage ? (asleep ?? (hasStages ? nil : total)) : nil)
        add("awake", "HKCategoryValueSleepAnalysisAwake", positive(sleep.awake))
    }

    private mutating func add(_ category: StaticString, _ value: StaticString, _ hours: Double?) {
        if let hours { stages.append(Stage(category: category, value: value, hours: hours)) }
    }
}
