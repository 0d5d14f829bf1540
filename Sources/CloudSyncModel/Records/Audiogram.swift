/// A hearing test of the export (`Audiogram`): the hearing threshold at each tested frequency, for
/// each ear, in dBHL (the lower, the better the hearing).
public struct Audiogram: Sendable, Equatable {
    /// One tested frequency.
    public struct SensitivityPoint: Sendable, Equatable {
        public var frequencyHz: Double
        /// The thresholds in dBHL; nil when that ear was not tested.
        public var leftEar: Double?
        public var rightEar: Double?
        /// Whether the other ear was masked while this one was tested (newer exports).
        public var leftEarMasked: Bool?
        public var rightEarMasked: Bool?
        /// The range the test could measure, when the result is at one of its ends (newer exports).
        public var leftEarClampingLower: Double?
        public var leftEarClampingUpper: Double?
        public var rightEarClampingLower: Double?
        public var rightEarClampingUpper: Double?

        public init(frequencyHz: Double, leftEar: Double? = nil, rightEar: Double? = nil, leftEarMasked: Bool? = nil,
                    rightEarMasked: Bool? = nil, leftEarClampingLower: Double? = nil, leftEarClampingUpper: Double? = nil,
                    rightEarClampingLower: Double? = nil, rightEarClampingUpper: Double? = nil) {
            self.frequencyHz = frequencyHz
            self.leftEar = leftEar
            self.rightEar = rightEar
            self.leftEarMasked = leftEarMasked
            self.rightEarMasked = rightEarMasked
            self.leftEarClampingLower = leftEarClampingLower
            self.leftEarClampingUpper = leftEarClampingUpper
            self.rightEarClampingLower = rightEarClampingLower
            self.rightEarClampingUpper = rightEarClampingUpper
        }
    }

    /// `HKDataTypeIdentifierAudiogram`.
    public var type: String
    /// Seconds since 1970 UTC.
    public var startDate: Int64
    public var endDate: Int64
    public var sourceApp: String
    /// `device` and `sourceVersion` when written, then the `MetadataEntry`s, in order.
    public var metadata: [(key: String, value: String)]
    public var points: [SensitivityPoint]

    public init(type: String, startDate: Int64, endDate: Int64, sourceApp: String, metadata: [(key: String, value: String)],
                points: [SensitivityPoint]) {
        self.type = type
        self.startDate = startDate
        self.endDate = endDate
        self.sourceApp = sourceApp
        self.metadata = metadata
        self.points = points
    }

    public static func == (a: Audiogram, b: Audiogram) -> Bool {
        a.type == b.type && a.startDate == b.startDate && a.endDate == b.endDate && a.sourceApp == b.sourceApp
            && a.metadata.map(\.key) == b.metadata.map(\.key) && a.metadata.map(\.value) == b.metadata.map(\.value) && a.points == b.points
    }
}

/// The audiogram kind. JSON Lines: one audiogram per line with its points; CSV: one row per tested
/// frequency, the audiogram's fields on each.
public enum AudiogramKind: RecordKind {
    public typealias Record = Audiogram
    public static let name = "audiograms"
    public static let noun = Noun("audiogram")
    public static let part: Noun? = Noun("frequency", "frequencies")
    public static func parts(of audiogram: Audiogram) -> Int { audiogram.points.count }
    public static func date(of audiogram: Audiogram) -> Int64? { audiogram.startDate }

    /// `{"type","startDate","endDate","sourceApp","metadata":{…},"points":[{"frequencyHz","leftEarDBHL",
    /// "rightEarDBHL","leftEarMasked","rightEarMasked","leftEarClampingLower",…}]}`.
    public static func appendJSONLines(_ audiogram: Audiogram, to out: inout ByteBuffer) {
        out.append("{\"type\":")
        RecordJSON.appendString(audiogram.type, to: &out)
        out.append(",\"startDate\":")
        RecordJSON.appendDate(audiogram.startDate, to: &out)
        out.append(",\"endDate\":")
        RecordJSON.appendDate(audiogram.endDate, to: &out)
        out.append(",\"sourceApp\":")
        RecordJSON.appendString(audiogram.sourceApp, to: &out)
        out.append(",\"metadata\":")
        RecordJSON.appendObject(audiogram.metadata, to: &out)
        out.append(",\"points\":[")
        for (i, point) in audiogram.points.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append("{\"frequencyHz\":")
            RecordJSON.appendNumber(point.frequencyHz, to: &out)
            for (key, value) in [("leftEarDBHL", point.leftEar), ("rightEarDBHL", point.rightEar)] {
                out.append(",\"\(key)\":")
                RecordJSON.appendNumber(value, to: &out)
            }
            for (key, value) in [("leftEarMasked", point.leftEarMasked), ("rightEarMasked", point.rightEarMasked)] {
                out.append(",\"\(key)\":")
                out.append(value.map { $0 ? "true" : "false" } ?? "null")
            }
            for (key, value) in clamping(point) {
                out.append(",\"\(key)\":")
                RecordJSON.appendNumber(value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append("]}\n")
    }

    public static let csvColumns = ["type", "startDate", "endDate", "sourceApp", "frequencyHz", "leftEarDBHL", "rightEarDBHL",
                                    "leftEarMasked", "rightEarMasked", "leftEarClampingLower", "leftEarClampingUpper",
                                    "rightEarClampingLower", "rightEarClampingUpper"]

    public static func appendCSVRows(_ audiogram: Audiogram, to out: inout ByteBuffer) {
        for point in audiogram.points {
            out.appendCSVCell(audiogram.type, first: true)
            out.appendCSVCell(date: audiogram.startDate)
            out.appendCSVCell(date: audiogram.endDate)
            out.appendCSVCell(audiogram.sourceApp)
            for value in [point.frequencyHz, point.leftEar, point.rightEar] { out.appendCSVCell(value) }
            for masked in [point.leftEarMasked, point.rightEarMasked] { out.appendCSVCell(masked.map { $0 ? "true" : "false" }) }
            for (_, value) in clamping(point) { out.appendCSVCell(value) }
            out.endCSVRow()
        }
    }

    private static func clamping(_ point: Audiogram.SensitivityPoint) -> [(String, Double?)] {
        [("leftEarClampingLower", point.leftEarClampingLower), ("leftEarClampingUpper", point.leftEarClampingUpper),
         ("rightEarClampingLower", point.rightEarClampingLower), ("rightEarClampingUpper", point.rightEarClampingUpper)]
    }
}
