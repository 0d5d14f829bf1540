/// A type name a person gave, resolved against the types a store holds.
public enum TypeResolution: Sendable, Equatable {
    /// One of the store's types, named as the store names it (`HKQuantityTypeIdentifierStepCount`).
    case stored(String)
    /// A real type (its short name) of which the store has no samples.
    case notRecorded(String)
    /// No type by that name: the store's closest names (short names, best first; maybe none).
    case unknown(suggestions: [String])

    /// Resolves `name` among `stored` (the store's type names): the exact name, then the same key
    /// (`TypeNames.key`: case, spaces and the identifier prefix ignored), then an alias. A name that
    /// is none of the store's but a type HealthKit has is `notRecorded`; anything else is `unknown`
    /// with the store's closest names, so that a typo is never answered "never recorded".
    public static func resolve(_ name: String, stored: [String]) -> TypeResolution {
        if stored.contains(name) { return .stored(name) }
        let wanted = TypeNames.key(name)
        if let match = stored.first(where: { TypeNames.key($0) == wanted }) { return .stored(match) }
        if let canonical = TypeNames.canonical(name) {
            let target = TypeNames.key(canonical)
            if let match = stored.first(where: { TypeNames.key($0) == target }) { return .stored(match) }
            return .notRecorded(canonical)
        }
        let suggestions = closest(to: wanted, among: stored)
        // An identifier Apple added after this release: a type, just not one the store has.
        if suggestions.isEmpty && name.hasPrefix("HK") && name.contains("TypeIdentifier") {
            return .notRecorded(MetricFilter.shortName(name))
        }
        return .unknown(suggestions: suggestions)
    }

    /// The store's names nearest to `key`, as short names: those within a few edits (of the name or
    /// of an alias of it: `step` finds `stepCount` through `steps`), then those that contain it
    /// (`glucose` finds `bloodGlucose`).
    static func closest(to key: String, among stored: [String], count: Int = 3) -> [String] {
        let limit = max(2, key.count / 3)
        var scored: [(name: String, score: Int)] = []
        for type in stored {
            let short = MetricFilter.shortName(type)
            let typeKey = TypeNames.key(type)
            var distance = EditDistance.between(key, typeKey)
            for (alias, target) in TypeNames.aliases where TypeNames.key(target) == typeKey {
                distance = min(distance, EditDistance.between(key, alias))
            }
            if distance <= limit {
                scored.append((short, distance))
            } else if key.count >= 3 && typeKey.contains(key) {
                // After every near miss, the shorter (closer) names first.
                scored.append((short, limit + 1 + typeKey.count - key.count))
            }
        }
        var seen: Set<String> = []
        return scored.sorted { $0.score != $1.score ? $0.score < $1.score : $0.name < $1.name }
            .map(\.name).filter { seen.insert($0).inserted }.prefix(count).map { $0 }
    }
}
