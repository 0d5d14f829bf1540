/// One GPS point of a workout route, as Apple's GPX (or a pre-iOS 13 inline `Location`) gives it.
/// The optional values are nil when the file does not carry them.
public struct RoutePoint: Sendable, Equatable {
    /// Seconds since 1970, UTC.
    public var time: Int64?
    public var latitude: Double
    public var longitude: Double
    /// Metres.
    public var elevation: Double?
    /// Metres per second.
    public var speed: Double?
    /// Degrees.
    public var course: Double?
    public var horizontalAccuracy: Double?
    public var verticalAccuracy: Double?

    public init(time: Int64?, latitude: Double, longitude: Double, elevation: Double? = nil, speed: Double? = nil,
                course: Double? = nil, horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.elevation = elevation
        self.speed = speed
        self.course = course
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
    }
}

/// A workout's GPS track: the points of one GPX file (or of one workout's inline locations), and
/// the workout it belongs to when the export says so.
public struct Route: Sendable, Equatable {
    /// The entry's path in the archive from `workout-routes/` on (`workout-routes/route_….gpx`);
    /// nil for a route written inline in export.xml.
    public var file: String?
    /// The workout's `workoutActivityType`, start and end; nil for a route no workout references.
    public var workoutType: String?
    public var workoutStart: Int64?
    public var workoutEnd: Int64?
    public var points: [RoutePoint]

    public init(file: String?, workoutType: String? = nil, workoutStart: Int64? = nil, workoutEnd: Int64? = nil,
                points: [RoutePoint]) {
        self.file = file
        self.workoutType = workoutType
        self.workoutStart = workoutStart
        self.workoutEnd = workoutEnd
        self.points = points
    }

    /// What identifies the route in the store: its file, or for an inline route its workout.
    public var key: String {
        file ?? "inline:\(workoutType ?? ""):\(workoutStart.map(String.init) ?? "")"
    }
}

/// An Apple Watch electrocardiogram (`electrocardiograms/ecg_….csv`).
public struct ECGRecording: Sendable, Equatable {
    /// Seconds since 1970, UTC.
    public var recordedAt: Int64
    public var classification: String?
    public var symptoms: String?
    public var sampleRateHz: Double?
    public var lead: String?
    public var unit: String?
    public var device: String?
    public var softwareVersion: String?
    /// The entry's path from `electrocardiograms/` on.
    public var file: String?
    /// The voltages, in `unit`.
    public var samples: [Double]

    public init(recordedAt: Int64, classification: String? = nil, symptoms: String? = nil, sampleRateHz: Double? = nil,
                lead: String? = nil, unit: String? = nil, device: String? = nil, softwareVersion: String? = nil,
                file: String? = nil, samples: [Double]) {
        self.recordedAt = recordedAt
        self.classification = classification
        self.symptoms = symptoms
        self.sampleRateHz = sampleRateHz
        self.lead = lead
        self.unit = unit
        self.device = device
        self.softwareVersion = softwareVersion
        self.file = file
        self.samples = samples
    }

    public var key: String { file ?? "ecg:\(recordedAt)" }
}

/// Where routes, ECGs and beat series go: JSON Lines, GeoJSON, the store, a counter.
public protocol RecordSink: AnyObject {
    func write(_ route: Route) throws
    func write(_ ecg: ECGRecording) throws
    func write(_ series: BeatSeries) throws
    func write(_ correlation: CorrelationRecord) throws
    func write(_ clinical: ClinicalResource) throws
    /// After the last record, when the input was read completely.
    func finish() throws
}

extension RecordSink {
    public func write(_ route: Route) throws {}
    public func write(_ ecg: ECGRecording) throws {}
    public func write(_ series: BeatSeries) throws {}
    public func write(_ correlation: CorrelationRecord) throws {}
    public func write(_ clinical: ClinicalResource) throws {}
    public func finish() throws {}
}
