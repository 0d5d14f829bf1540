import CloudSyncModel
/// Totals of a Workout's `WorkoutStatistics`, for workouts that do not carry the old
/// `totalDistance` / `totalEnergyBurned` attributes (watchOS 9 and later).
///
/// The Workout's own statistics cover the whole workout; a multi-part workout repeats them per
/// `WorkoutActivity`, so activity statistics are only summed when the Workout has none of its own.
struct WorkoutStatisticsSummary {
    var distanceKm: Double?
    var activeEnergyKcal: Double?
    var heartRateAverage: Double?
    var heartRateMinimum: Double?
    var heartRateMaximum: Double?

    init(_ tree: ElementTree) {
        var found = false
        tree.forEachChild(of: tree.root, named: .workoutStatistics) { node in
            found = true
            add(tree, node)
        }
        if !found {
            tree.forEachChild(of: tree.root, named: .workoutActivity) { activity in
                tree.forEachChild(of: activity, named: .workoutStatistics) { add(tree, $0) }
            }
        }
    }

    private mutating func add(_ tree: ElementTree, _ node: Int) {
        guard let type = tree.value(.type, of: node) else { return }
        let unit = (tree.value(.unit, of: node) ?? .empty).string
        func read(_ name: AttributeName, distance: Bool, heartRate: Bool) -> Double? {
            guard let parsed = tree.value(name, of: node).flatMap(DecimalParser.parse) else { return nil }
            let conversion = UnitTable.conversion(unit: unit, isHeartRate: heartRate, isDistance: distance)
            return conversion.isRecognised ? conversion.apply(parsed.value) : parsed.value
        }
        if type.contains("Distance"), let sum = read(.sum, distance: true, heartRate: false) {
            distanceKm = (distanceKm ?? 0) + sum
        } else if type.equals("HKQuantityTypeIdentifierActiveEnergyBurned"), let sum = read(.sum, distance: false, heartRate: false) {
            activeEnergyKcal = (activeEnergyKcal ?? 0) + sum
        } else if type.equals("HKQuantityTypeIdentifierHeartRate") {
            heartRateAverage = read(.average, distance: false, heartRate: true) ?? heartRateAverage
            heartRateMinimum = read(.minimum, distance: false, heartRate: true) ?? heartRateMinimum
            heartRateMaximum = read(.maximum, distance: false, heartRate: true) ?? heartRateMaximum
        }
    }
}
