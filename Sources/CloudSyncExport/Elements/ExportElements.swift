import CloudSyncModel
/// Typed values for every element of the export DTD (versions 8 to 14), for Swift programs that
/// use the library. Attributes are kept as written in `attributes`; the common ones also have
/// typed properties. Dates are seconds since 1970 UTC (`nil` when absent or unparsable).
///
/// Building these costs a `String` per attribute: the converter's hot path does not use them
/// (it maps `ElementTree`s directly); `ExportReader` does.
public enum ExportElement: Sendable, Equatable {
    case exportDate(ExportDate)
    case me(Me)
    case record(Record)
    case correlation(Correlation)
    case workout(Workout)
    case activitySummary(ActivitySummary)
    case clinicalRecord(ClinicalRecord)
    case audiogram(AudiogramElement)
    case visionPrescription(VisionPrescriptionElement)
    /// An element outside the DTD, by name.
    case unknown(String, attributes: [String: String])
}

/// Attributes by name, as written.
public typealias Attributes = [String: String]

public struct MetadataEntry: Sendable, Equatable {
    public var key: String
    public var value: String
}

public struct ExportDate: Sendable, Equatable {
    public var value: String
    public var date: Int64? { value.epochSeconds }
}

/// The `HKCharacteristicTypeIdentifier…` attributes (date of birth, sex, blood type…).
public struct Me: Sendable, Equatable {
    public var attributes: Attributes
}

public struct Record: Sendable, Equatable {
    public var attributes: Attributes
    public var metadata: [MetadataEntry]
    /// HRV records: the `InstantaneousBeatsPerMinute` list.
    public var beats: [InstantaneousBeatsPerMinute]

    public var type: String { attributes["type"] ?? "" }
    /// `sourceName`, or iOS 8's `source`.
    public var sourceName: String? { attributes["sourceName"] ?? attributes["source"] }
    public var unit: String? { attributes["unit"] }
    public var value: String? { attributes["value"] }
    public var startDate: Int64? { attributes["startDate"]?.epochSeconds }
    public var endDate: Int64? { attributes["endDate"]?.epochSeconds }
}

/// One beat of an HRV list. `time` is written in the phone's locale (`7:20:37.80 AM`,
/// `00:20:37,80`); `secondsSinceMidnight` reads all of those forms.
public struct InstantaneousBeatsPerMinute: Sendable, Equatable {
    public var bpm: Int?
    public var time: String
    public var secondsSinceMidnight: Double? { LocaleTimeParser.secondsSinceMidnight(time) }
}

public struct Correlation: Sendable, Equatable {
    public var attributes: Attributes
    public var metadata: [MetadataEntry]
    /// Also written at top level of the export (and emitted from there only).
    public var records: [Record]
    public var type: String { attributes["type"] ?? "" }
}

public struct Workout: Sendable, Equatable {
    public var attributes: Attributes
    public var metadata: [MetadataEntry]
    public var events: [WorkoutEvent]
    public var statistics: [WorkoutStatistics]
    public var activities: [WorkoutActivity]
    public var routes: [WorkoutRoute]

    public var activityType: String { attributes["workoutActivityType"] ?? "" }
    public var startDate: Int64? { attributes["startDate"]?.epochSeconds }
    public var endDate: Int64? { attributes["endDate"]?.epochSeconds }
}

public struct WorkoutEvent: Sendable, Equatable {
    public var attributes: Attributes
    public var metadata: [MetadataEntry]
}

public struct WorkoutStatistics: Sendable, Equatable {
    public var attributes: Attributes
    public var type: String { attributes["type"] ?? "" }
}

public struct WorkoutActivity: Sendable, Equatable {
    public var attributes: Attributes
    public var metadata: [MetadataEntry]
    public var events: [WorkoutEvent]
    public var statistics: [WorkoutStatistics]
}

/// A route: a GPX file reference (iOS 13+) or inline `Location` points (older exports).
public struct WorkoutRoute: Sendable, Equatable {
    public var attributes: Attributes
    public var metadata: [MetadataEntry]
    public var filePath: String?
    public var locations: [Location]
}

public struct Location: Sendable, Equatable {
    public var attributes: Attributes
    public var latitude: Double? { attributes["latitude"].flatMap(Double.init) }
    public var longitude: Double? { attributes["longitude"].flatMap(Double.init) }
    public var date: Int64? { attributes["date"]?.epochSeconds }
}

public struct ActivitySummary: Sendable, Equatable {
    public var attributes: Attributes
    public var day: String { attributes["dateComponents"] ?? "" }
}

public struct ClinicalRecord: Sendable, Equatable {
    public var attributes: Attributes
}

/// The `Audiogram` element as written (the model's `Audiogram` record is read from it).
public struct AudiogramElement: Sendable, Equatable {
    public var attributes: Attributes
    public var metadata: [MetadataEntry]
    public var sensitivityPoints: [Attributes]
}

/// The `VisionPrescription` element as written (the model's `VisionPrescription` record is read from it).
public struct VisionPrescriptionElement: Sendable, Equatable {
    public var attributes: Attributes
    public var metadata: [MetadataEntry]
    public var rightEye: Attributes?
    public var leftEye: Attributes?
    public var attachments: [Attributes]
}

extension String {
    /// Seconds since 1970 UTC of an export date (`2024-10-25 07:05:11 -0500`).
    package var epochSeconds: Int64? {
        var copy = self
        return copy.withUTF8 { ExportDateParser.epochSeconds($0) }
    }
}
