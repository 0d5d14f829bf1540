/// A hospital record of the export: the attributes of its `<ClinicalRecord>` in export.xml and the
/// FHIR resource (DSTU2 or R4) of the `clinical-records/….json` file it names, unchanged.
///
/// A record whose file is missing or damaged is still given, with `problem` saying why and no
/// resource; a file that no `<ClinicalRecord>` names is given with its resource only.
public struct ClinicalResource: Sendable, Equatable {
    /// `HKClinicalTypeIdentifierLabResultRecord`, …
    public var type: String?
    public var identifier: String?
    public var sourceName: String?
    public var sourceURL: String?
    /// `1.0.2` (DSTU2), `4.0.1` (R4).
    public var fhirVersion: String?
    /// Seconds since 1970 UTC.
    public var receivedDate: Int64?
    /// The resource's path in the archive (`clinical-records/Observation-….json`).
    public var file: String?
    /// The resource as JSON on one line: every member, string and number as the file wrote it.
    public var resource: [UInt8]?
    public var problem: String?

    public init(type: String? = nil, identifier: String? = nil, sourceName: String? = nil, sourceURL: String? = nil,
                fhirVersion: String? = nil, receivedDate: Int64? = nil, file: String? = nil, resource: [UInt8]? = nil,
                problem: String? = nil) {
        self.type = type
        self.identifier = identifier
        self.sourceName = sourceName
        self.sourceURL = sourceURL
        self.fhirVersion = fhirVersion
        self.receivedDate = receivedDate
        self.file = file
        self.resource = resource
        self.problem = problem
    }

    /// What makes it the same record in the store: its file, else its identifier and type.
    public var key: String { file ?? "\(type ?? "")|\(identifier ?? "")" }
}

/// The clinical-record kind: hospital records with their FHIR resources. JSON Lines: one record per
/// line, the resource as the file wrote it; CSV: one row per record, the resource as JSON in a cell.
public enum ClinicalKind: RecordKind {
    public typealias Record = ClinicalResource
    public static let name = "clinical"
    public static let noun = Noun("clinical record")
    public static func date(of clinical: ClinicalResource) -> Int64? { clinical.receivedDate }

    /// `{"type","identifier","sourceName","sourceURL","fhirVersion","receivedDate","file","resource":{…},"problem"}`.
    public static func appendJSONLines(_ clinical: ClinicalResource, to out: inout ByteBuffer) {
        out.append("{\"type\":")
        RecordJSON.appendString(clinical.type, to: &out)
        out.append(",\"identifier\":")
        RecordJSON.appendString(clinical.identifier, to: &out)
        out.append(",\"sourceName\":")
        RecordJSON.appendString(clinical.sourceName, to: &out)
        out.append(",\"sourceURL\":")
        RecordJSON.appendString(clinical.sourceURL, to: &out)
        out.append(",\"fhirVersion\":")
        RecordJSON.appendString(clinical.fhirVersion, to: &out)
        out.append(",\"receivedDate\":")
        RecordJSON.appendDate(clinical.receivedDate, to: &out)
        out.append(",\"file\":")
        RecordJSON.appendString(clinical.file, to: &out)
        out.append(",\"resource\":")
        if let resource = clinical.resource {
            resource.withUnsafeBufferPointer { out.append($0) }
        } else {
            out.append("null")
        }
        out.append(",\"problem\":")
        RecordJSON.appendString(clinical.problem, to: &out)
        out.append("}\n")
    }

    /// `resourceType` is the resource's own; `resource` the resource as JSON (empty when missing).
    public static let csvColumns = ["type", "identifier", "sourceName", "sourceURL", "fhirVersion", "receivedDate", "file",
                                    "resourceType", "resource", "problem"]

    public static func appendCSVRows(_ clinical: ClinicalResource, to out: inout ByteBuffer) {
        out.appendCSVCell(clinical.type, first: true)
        for text in [clinical.identifier, clinical.sourceName, clinical.sourceURL, clinical.fhirVersion] { out.appendCSVCell(text) }
        out.appendCSVCell(date: clinical.receivedDate)
        out.appendCSVCell(clinical.file)
        out.appendCSVCell(clinical.resource.flatMap { JSONCompactor.topLevelString("resourceType", in: $0) })
        out.append(UInt8(ascii: ","))
        if let resource = clinical.resource { resource.withUnsafeBufferPointer { out.appendCSVField($0) } }
        out.appendCSVCell(clinical.problem)
        out.endCSVRow()
    }
}
