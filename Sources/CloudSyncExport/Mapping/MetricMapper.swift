public import CloudSyncModel
/// Maps top-level export elements to HealthMetrics, following `healthmetric.md`:
/// Records (quantity, category, data types), Workouts and ActivitySummaries become metrics;
/// Correlations do not (their Records are written again at top level), nor do the export facts.
///
/// The result is `metric`, whose views point into the element tree, static literals and this
/// mapper's scratch buffer; they stay valid until the next `map` call.
public final class MetricMapper {
    public enum Outcome: Equatable {
        case metric
        case invalid(InvalidRecordReason)
        case notAMetric
    }

    @exclusivity(unchecked) public private(set) var metric = MappedMetric()
    @exclusivity(unchecked) private var scratch = ByteBuffer(capacity: 64 << 10)
    @exclusivity(unchecked) private var unitCache = UnitCache()

    public init() {}

    public func map(_ tree: ElementTree) -> Outcome {
        metric.metadata.removeAll(keepingCapacity: true)
        metric.valueText = nil
        metric.creationDateText = nil
        metric.creationDate = nil
        metric.categoryValue = nil
        metric.unitRecognised = true
        metric.line = Int(tree.nodes[0].line)
        // Scratch holds generated text (numbers, category names); it must not move while the metric
        // points into it, so it is sized for the worst case of this element up front.
        // A huge element's scratch is given back at the next element, not kept for the run.
        scratch.removeAll(shrinkingAbove: 1 << 20, to: 64 << 10)
        scratch.reserve(16 << 10 + 2 * tree.byteCount)
        switch tree.name(tree.root) {
        case .record: return mapRecord(tree)
        case .workout: return mapWorkout(tree)
        case .activitySummary: return mapActivitySummary(tree)
        default: return .notAMetric
        }
    }

    // MARK: Record

    private func mapRecord(_ tree: ElementTree) -> Outcome {
        guard let type = tree.value(.type), type.count > 0 else { return .invalid(.missingType) }
        metric.type = type
        if let reason = mapDates(tree) { return .invalid(reason) }
        mapSource(tree)
        let valueText = tree.value(.value) ?? .empty
        if type.hasPrefix("HKCategoryTypeIdentifier") {
            metric.value = Double(metric.endDate - metric.startDate) / 60
            metric.unit = ByteText(literal: "minutes")
            metric.writtenUnit = .empty
            // Some event types (HighHeartRateEvent) are written without a value: no category then.
            if let categoryValue = tree.value(.value) {
                metric.categoryValue = categoryValue
                addMetadata("category", generated { CategoryRules.appendCategory(value: categoryValue, type: type, to: &$0) })
                addMetadata("categoryValue", categoryValue)
            }
        } else {
            // iOS 8 wrote some quantities (heart rate) as daily summaries: `min`, `max`, `average`
            // and `recordCount`, no `value`. The average is the value; the rest goes to metadata.
            let summary = tree.value(.value) == nil ? tree.value(.average) : nil
            let text = summary ?? valueText
            guard text.count > 0 else { return .invalid(.missingValue) }
            guard let parsed = summary == nil ? tree.parsedValue : DecimalParser.parse(text) else { return .invalid(.valueNotFinite) }
            let written = tree.value(.unit) ?? .empty
            let conversion = unitCache.conversion(unit: written, type: type)
            metric.writtenUnit = written
            metric.unitRecognised = conversion.isRecognised
            metric.unit = conversion.canonicalUnit.map { ByteText(literal: $0) } ?? written
            if conversion.isIdentity {
                metric.value = parsed.value
                if parsed.isCanonicalJSON { metric.valueText = text }
            } else {
                metric.value = conversion.apply(parsed.value)
            }
            if summary != nil { addSummaryMetadata(tree, conversion) }
        }
        addMetadataEntries(tree, of: tree.root)
        addMetadataAttributes(tree)
        return .metric
    }

    /// The extremes of an iOS 8 daily summary in the value's unit, and its number of samples as written.
    private func addSummaryMetadata(_ tree: ElementTree, _ conversion: UnitConversion) {
        for (name, key) in [(AttributeName.min, "min" as StaticString), (.max, "max")] {
            guard let text = tree.value(name) else { continue }
            if let parsed = DecimalParser.parse(text) {
                addMetadata(key, conversion.isIdentity ? text : number(conversion.apply(parsed.value)))
            } else {
                addMetadata(key, text)
            }
        }
        if let count = tree.value(.recordCount) { addMetadata("recordCount", count) }
    }

    // MARK: Workout

    private func mapWorkout(_ tree: ElementTree) -> Outcome {
        metric.type = ByteText(literal: "workout")
        if let reason = mapDates(tree) { return .invalid(reason) }
        mapSource(tree)
        metric.unit = ByteText(literal: "min")
        metric.writtenUnit = .empty
        if let duration = tree.value(.duration).flatMap(DecimalParser.parse) {
            let unit = tree.value(.durationUnit) ?? ByteText(literal: "min")
            metric.value = UnitTable.conversion(unit: unit.string, isHeartRate: false, isDistance: false).apply(duration.value)
        } else {
            metric.value = Double(metric.endDate - metric.startDate) / 60
        }
        if let activity = tree.value(.workoutActivityType) {
            addMetadata("activityType", generated { CategoryRules.appendLowerCamel(Self.strip("HKWorkoutActivityType", from: activity), to: &$0) })
        }
        let statistics = WorkoutStatisticsSummary(tree)
        if let km = quantity(tree, .totalDistance, .totalDistanceUnit, isDistance: true) ?? statistics.distanceKm {
            addMetadata("totalDistanceKm", number(km))
        }
        if let kcal = quantity(tree, .totalEnergyBurned, .totalEnergyBurnedUnit, isDistance: false) ?? statistics.activeEnergyKcal {
            addMetadata("totalEnergyKcal", number(kcal))
        }
        if let average = statistics.heartRateAverage { addMetadata("heartRateAverage", number(average)) }
        if let minimum = statistics.heartRateMinimum { addMetadata("heartRateMinimum", number(minimum)) }
        if let maximum = statistics.heartRateMaximum { addMetadata("heartRateMaximum", number(maximum)) }
        var routeFiles = 0
        var routePoints = 0
        tree.forEachChild(of: tree.root, named: .workoutRoute) { route in
            tree.forEachChild(of: route, named: .fileReference) { file in
                if routeFiles == 0, let path = tree.value(.path, of: file) { addMetadata("routeFile", path) }
                routeFiles += 1
            }
            tree.forEachChild(of: route, named: .location) { _ in routePoints += 1 }
        }
        if routeFiles > 1 { addMetadata("routeFileCount", number(Double(routeFiles))) }
        if routePoints > 0 { addMetadata("routePointCount", number(Double(routePoints))) }
        addMetadataEntries(tree, of: tree.root)
        return .metric
    }

    /// An amount written as a value attribute plus a unit attribute, in km (distance) or kcal.
    private func quantity(_ tree: ElementTree, _ valueName: AttributeName, _ unitName: AttributeName, isDistance: Bool) -> Double? {
        guard let parsed = tree.value(valueName).flatMap(DecimalParser.parse) else { return nil }
        let unit = tree.value(unitName) ?? ByteText(literal: isDistance ? "km" : "kcal")
        let conversion = UnitTable.conversion(unit: unit.string, isHeartRate: false, isDistance: isDistance)
        return conversion.isRecognised ? conversion.apply(parsed.value) : parsed.value
    }

    // MARK: ActivitySummary

    private func mapActivitySummary(_ tree: ElementTree) -> Outcome {
        guard let day = tree.value(.dateComponents), let start = ExportDateParser.dayStartSeconds(day) else {
            return .invalid(.startDateUnparsable)
        }
        metric.type = ByteText(literal: "activitySummary")
        metric.startDate = start
        metric.endDate = start + 86_400
        metric.sourceApp = ByteText(literal: "Apple Health")
        metric.unit = ByteText(literal: "kcal")
        metric.writtenUnit = tree.value(.activeEnergyBurnedUnit) ?? ByteText(literal: "kcal")
        metric.device = ByteText(literal: DeviceName.unknown)
        addMetadata("device", metric.device)
        guard let energy = quantity(tree, .activeEnergyBurned, .activeEnergyBurnedUnit, isDistance: false) else {
            return .invalid(.valueNotFinite)
        }
        metric.value = energy
        // The goal is in the same unit as the energy: kcal like the value.
        if let goal = quantity(tree, .activeEnergyBurnedGoal, .activeEnergyBurnedUnit, isDistance: false) {
            addMetadata("activeEnergyBurnedGoal", number(goal))
        }
        for name in [AttributeName.appleMoveTime, .appleMoveTimeGoal, .appleExerciseTime,
                     .appleExerciseTimeGoal, .appleStandHours, .appleStandHoursGoal] {
            if let value = tree.value(name) { addMetadata(name.xmlName, value) }
        }
        return .metric
    }

    // MARK: Shared parts

    private func mapDates(_ tree: ElementTree) -> InvalidRecordReason? {
        let dates = tree.dates
        guard let start = dates.start else { return .startDateUnparsable }
        guard let end = dates.end else { return .endDateUnparsable }
        guard end >= start else { return .endBeforeStart }
        metric.startDate = start
        metric.endDate = end
        metric.creationDateText = tree.value(.creationDate)
        if metric.creationDateText != nil { metric.creationDate = tree.creationSeconds }
        return nil
    }

    /// `sourceApp`, and the metadata every metric starts with: `device`, then `sourceVersion`.
    private func mapSource(_ tree: ElementTree) {
        // iOS 8 wrote `source`; every later version `sourceName`.
        metric.sourceApp = tree.value(.sourceName) ?? tree.value(.source) ?? .empty
        metric.device = tree.deviceName ?? ByteText(literal: DeviceName.unknown)
        addMetadata("device", metric.device)
        if let version = tree.value(.sourceVersion) { addMetadata("sourceVersion", version) }
    }

    /// Every `MetadataEntry` child of `node`, as written. A key the mapping already set wins.
    private func addMetadataEntries(_ tree: ElementTree, of node: Int) {
        tree.forEachChild(of: node, named: .metadataEntry) { entry in
            guard let key = tree.value(.key, of: entry) else { return }
            let value = tree.value(.value, of: entry) ?? .empty
            for existing in metric.metadata where existing.key.equals(key) { return }
            metric.metadata.append((key, value))
        }
    }

    /// A Record's attributes outside the DTD, as metadata: iOS 8 wrote the metadata that way
    /// (`HKWasUserEntered="1"`, `Some App Version="2.6.2"`, its spaces repaired by
    /// `AttributeNameRepair`). Keys come out as written; a key already set wins.
    private func addMetadataAttributes(_ tree: ElementTree) {
        tree.forEachOtherAttribute(of: tree.root) { name, value in
            // The name itself (interned by libxml2, alive longer than the metric) unless it holds an
            // escaped space; the decoded key is shorter, and goes to scratch only while scratch has
            // room, since scratch must not move (see `map`).
            let escaped = AttributeNameRepair.holdsEscape(name)
            let key = escaped && scratch.count + name.count <= scratch.capacity
                ? generated { AttributeNameRepair.appendKey(name, to: &$0) } : name
            for existing in metric.metadata where existing.key.equals(key) { return }
            metric.metadata.append((key, value))
        }
    }

    private func addMetadata(_ key: StaticString, _ value: ByteText) {
        metric.metadata.append((ByteText(literal: key), value))
    }

    /// Disfavoured: a literal key (`"device"`) goes to the `StaticString` form, not copied (as a
    /// `String`, 458,000 copies into scratch for the 100 MB export's 221,000 metrics).
    @_disfavoredOverload
    private func addMetadata(_ key: String, _ value: ByteText) {
        // Attribute names of the ActivitySummary: keep their bytes in scratch.
        let keyText = generated { $0.append(key) }
        metric.metadata.append((keyText, value))
    }

    /// Text written into scratch by `body`; scratch never grows during a map call (see `map`).
    private func generated(_ body: (inout ByteBuffer) -> Void) -> ByteText {
        let start = scratch.count
        body(&scratch)
        return scratch.bytes(start..<scratch.count)
    }

    private func number(_ value: Double) -> ByteText {
        generated { NumberFormatting.append(value, to: &$0) }
    }

    static func strip(_ prefix: StaticString, from text: ByteText) -> ByteText {
        text.hasPrefix(prefix) ? text.slice(prefix.utf8CodeUnitCount..<text.count) : text
    }
}

/// Caches the unit conversion of the last (type, unit) pair: export.xml groups records by type,
/// so the table is consulted about once per type instead of once per record.
struct UnitCache {
    private var type: [UInt8] = []
    private var unit: [UInt8] = []
    private var cached: UnitConversion?

    mutating func conversion(unit written: ByteText, type recordType: ByteText) -> UnitConversion {
        if let cached, type.withUnsafeBufferPointer({ $0.equals(recordType) }),
           unit.withUnsafeBufferPointer({ $0.equals(written) }) {
            return cached
        }
        let conversion = UnitTable.conversion(unit: written, type: recordType)
        type = Array(recordType)
        unit = Array(written)
        cached = conversion
        return conversion
    }
}

@available(*, unavailable)
extension MetricMapper: Sendable {}
