/// A glasses or contact-lens prescription of the export (`VisionPrescription`): each eye's
/// correction, and the documents attached to it, by name.
public struct VisionPrescription: Sendable, Equatable {
    /// One measure of an eye's correction, with its unit as written (`D` for dioptres, `mm`, `deg`).
    public struct Measure: Sendable, Equatable {
        public var value: Double
        public var unit: String?
        public init(value: Double, unit: String?) {
            self.value = value
            self.unit = unit
        }
    }

    /// One eye (`RightEye`, `LeftEye`): each measure the prescription gives, nil when it gives none.
    public struct Eye: Sendable, Equatable {
        public var sphere, cylinder, axis, add, vertex, prismAmount, prismAngle, farPD, nearPD, baseCurve, diameter: Measure?

        /// The measures in their order: the attribute names of export.xml.
        public static let measureNames = ["sphere", "cylinder", "axis", "add", "vertex", "prismAmount", "prismAngle", "farPD", "nearPD",
                                          "baseCurve", "diameter"]

        public init(measures: [String: Measure]) {
            sphere = measures["sphere"]
            cylinder = measures["cylinder"]
            axis = measures["axis"]
            add = measures["add"]
            vertex = measures["vertex"]
            prismAmount = measures["prismAmount"]
            prismAngle = measures["prismAngle"]
            farPD = measures["farPD"]
            nearPD = measures["nearPD"]
            baseCurve = measures["baseCurve"]
            diameter = measures["diameter"]
        }

        public var measures: [(name: String, measure: Measure?)] {
            zip(Self.measureNames, [sphere, cylinder, axis, add, vertex, prismAmount, prismAngle, farPD, nearPD, baseCurve, diameter])
                .map { ($0, $1) }
        }
    }

    /// `HKVisionPrescriptionTypeGlasses`, `HKVisionPrescriptionTypeContacts`.
    public var type: String
    /// Seconds since 1970 UTC.
    public var dateIssued: Int64
    public var expirationDate: Int64?
    public var brand: String?
    public var rightEye: Eye?
    public var leftEye: Eye?
    /// The attached documents' names (`identifier`).
    public var attachments: [String]
    /// The `MetadataEntry`s, in order.
    public var metadata: [(key: String, value: String)]

    public init(type: String, dateIssued: Int64, expirationDate: Int64? = nil, brand: String? = nil, rightEye: Eye? = nil,
                leftEye: Eye? = nil, attachments: [String] = [], metadata: [(key: String, value: String)] = []) {
        self.type = type
        self.dateIssued = dateIssued
        self.expirationDate = expirationDate
        self.brand = brand
        self.rightEye = rightEye
        self.leftEye = leftEye
        self.attachments = attachments
        self.metadata = metadata
    }

    public static func == (a: VisionPrescription, b: VisionPrescription) -> Bool {
        a.type == b.type && a.dateIssued == b.dateIssued && a.expirationDate == b.expirationDate && a.brand == b.brand
            && a.rightEye == b.rightEye && a.leftEye == b.leftEye && a.attachments == b.attachments
            && a.metadata.map(\.key) == b.metadata.map(\.key) && a.metadata.map(\.value) == b.metadata.map(\.value)
    }
}

/// The vision-prescription kind. JSON Lines: one prescription per line, each eye an object of its
/// measures (`{"value","unit"}`); CSV: one row per eye, its measures and their units in columns.
public enum VisionPrescriptionKind: RecordKind {
    public typealias Record = VisionPrescription
    public static let name = "vision-prescriptions"
    public static let noun = Noun("vision prescription")
    public static func date(of prescription: VisionPrescription) -> Int64? { prescription.dateIssued }

    /// `{"type","dateIssued","expirationDate","brand","rightEye":{"sphere":{"value","unit"},…},"leftEye":…,
    /// "attachments":[…],"metadata":{…}}`; an eye without a prescription is null, a measure it lacks is left out.
    public static func appendJSONLines(_ prescription: VisionPrescription, to out: inout ByteBuffer) {
        out.append("{\"type\":")
        RecordJSON.appendString(prescription.type, to: &out)
        out.append(",\"dateIssued\":")
        RecordJSON.appendDate(prescription.dateIssued, to: &out)
        out.append(",\"expirationDate\":")
        RecordJSON.appendDate(prescription.expirationDate, to: &out)
        out.append(",\"brand\":")
        RecordJSON.appendString(prescription.brand, to: &out)
        for (key, eye) in [("rightEye", prescription.rightEye), ("leftEye", prescription.leftEye)] {
            out.append(",\"\(key)\":")
            guard let eye else { out.append("null"); continue }
            out.append(UInt8(ascii: "{"))
            var first = true
            for (name, measure) in eye.measures {
                guard let measure else { continue }
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                RecordJSON.appendString(name, to: &out)
                out.append(":{\"value\":")
                RecordJSON.appendNumber(measure.value, to: &out)
                out.append(",\"unit\":")
                RecordJSON.appendString(measure.unit, to: &out)
                out.append(UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(",\"attachments\":[")
        for (i, name) in prescription.attachments.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            RecordJSON.appendString(name, to: &out)
        }
        out.append("],\"metadata\":")
        RecordJSON.appendObject(prescription.metadata, to: &out)
        out.append("}\n")
    }

    /// `eye` is `right` or `left`; each measure, then its unit; `attachments` the names joined by `;`.
    public static let csvColumns = ["type", "dateIssued", "expirationDate", "brand", "eye"]
        + VisionPrescription.Eye.measureNames.flatMap { [$0, $0 + "Unit"] } + ["attachments"]

    public static func appendCSVRows(_ prescription: VisionPrescription, to out: inout ByteBuffer) {
        for (side, eye) in [("right", prescription.rightEye), ("left", prescription.leftEye)] {
            guard let eye else { continue }
            out.appendCSVCell(prescription.type, first: true)
            out.appendCSVCell(date: prescription.dateIssued)
            out.appendCSVCell(date: prescription.expirationDate)
            out.appendCSVCell(prescription.brand)
            out.appendCSVCell(side)
            for (_, measure) in eye.measures {
                out.appendCSVCell(measure?.value)
                out.appendCSVCell(measure?.unit)
            }
            out.appendCSVCell(prescription.attachments.joined(separator: ";"))
            out.endCSVRow()
        }
    }
}
