/// The elements of the export DTD (every version from 8 to 14).
public enum ElementName: UInt8, CaseIterable, Sendable {
    case unknown
    case healthData = 1, exportDate, me, record, metadataEntry
    case heartRateVariabilityMetadataList, instantaneousBeatsPerMinute
    case correlation, workout, workoutEvent, workoutStatistics, workoutActivity, workoutRoute
    case fileReference, location, activitySummary, clinicalRecord
    case audiogram, sensitivityPoint, visionPrescription, rightEye, leftEye, attachment

    /// The name as written in export.xml.
    public var xmlName: String {
        switch self {
        case .unknown: return "?"
        case .healthData: return "HealthData"
        case .exportDate: return "ExportDate"
        case .me: return "Me"
        case .record: return "Record"
        case .metadataEntry: return "MetadataEntry"
        case .heartRateVariabilityMetadataList: return "HeartRateVariabilityMetadataList"
        case .instantaneousBeatsPerMinute: return "InstantaneousBeatsPerMinute"
        case .correlation: return "Correlation"
        case .workout: return "Workout"
        case .workoutEvent: return "WorkoutEvent"
        case .workoutStatistics: return "WorkoutStatistics"
        case .workoutActivity: return "WorkoutActivity"
        case .workoutRoute: return "WorkoutRoute"
        case .fileReference: return "FileReference"
        case .location: return "Location"
        case .activitySummary: return "ActivitySummary"
        case .clinicalRecord: return "ClinicalRecord"
        case .audiogram: return "Audiogram"
        case .sensitivityPoint: return "SensitivityPoint"
        case .visionPrescription: return "VisionPrescription"
        case .rightEye: return "RightEye"
        case .leftEye: return "LeftEye"
        case .attachment: return "Attachment"
        }
    }

    static let byXMLName: [String: ElementName] = Dictionary(
        uniqueKeysWithValues: allCases.filter { $0 != .unknown }.map { ($0.xmlName, $0) })

    /// Classifies a name. Called once per distinct interned name (see `InternedNameCache`).
    init(_ name: ByteText) {
        self = ElementName.byXMLName[name.string] ?? .unknown
    }
}

/// The attributes the mapping reads. Others are kept by name only (`.other`), for the typed model.
public enum AttributeName: UInt8, CaseIterable, Sendable {
    case other
    case type = 1, sourceName, source, sourceVersion, unit, creationDate, startDate, endDate, value, device
    case key, workoutActivityType, duration, durationUnit
    case totalDistance, totalDistanceUnit, totalEnergyBurned, totalEnergyBurnedUnit
    case sum, average, minimum, maximum, date, path
    case dateComponents, activeEnergyBurned, activeEnergyBurnedGoal, activeEnergyBurnedUnit
    case appleMoveTime, appleMoveTimeGoal, appleExerciseTime, appleExerciseTimeGoal
    case appleStandHours, appleStandHoursGoal
    case locale, bpm, time, latitude, longitude, altitude
    /// iOS 8's daily summaries of a quantity: `min`, `max`, `average` and `recordCount`, no `value`.
    case min, max, recordCount

    public var xmlName: String { String(describing: self) }

    static let byXMLName: [String: AttributeName] = Dictionary(
        uniqueKeysWithValues: allCases.filter { $0 != .other }.map { ($0.xmlName, $0) })

    init(_ name: ByteText) {
        self = AttributeName.byXMLName[name.string] ?? .other
    }
}

/// libxml2 interns element and attribute names in its dictionary, so the same name always arrives
/// at the same address for the life of a parser. Classifying by address costs one load instead of
/// a string comparison per attribute (about 10 per record, 70 million in a 3 GB export).
/// Fixed unsafe storage: an `Array` here cost a uniqueness check and a retain per lookup.
final class InternedNameCache<Name> {
    private static var slots: Int { 256 }
    private let keys: UnsafeMutablePointer<UnsafeRawPointer?>
    private let names: UnsafeMutablePointer<Name>
    private let classify: (ByteText) -> Name

    init(placeholder: Name, classify: @escaping (ByteText) -> Name) {
        keys = .allocate(capacity: Self.slots)
        keys.initialize(repeating: nil, count: Self.slots)
        names = .allocate(capacity: Self.slots)
        names.initialize(repeating: placeholder, count: Self.slots)
        self.classify = classify
    }

    deinit {
        keys.deallocate()
        names.deinitialize(count: Self.slots)
        names.deallocate()
    }

    @inline(__always)
    func name(_ cString: UnsafePointer<UInt8>) -> Name {
        let slot = Int(truncatingIfNeeded: UInt(bitPattern: cString) >> 3) & (Self.slots - 1)
        if keys[slot] == UnsafeRawPointer(cString) { return names[slot] }
        let name = classify(ByteText(start: cString, count: strlen(cString)))
        keys[slot] = UnsafeRawPointer(cString)
        names[slot] = name
        return name
    }
}

#if canImport(Glibc)
import CloudSyncModel
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
