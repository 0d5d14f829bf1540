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

extension RecordJSON {
    /// One clinical record per line: `{"type","identifier","sourceName","sourceURL","fhirVersion",
    /// "receivedDate","file","resource":{…},"problem"}`, the resource as the file wrote it (on one line).
    public static func appendLine(_ clinical: ClinicalResource, to out: inout ByteBuffer) {
        out.append("{\"type\":")
        appendString(clinical.type, to: &out)
        out.append(",\"identifier\":")
        appendString(clinical.identifier, to: &out)
        out.append(",\"sourceName\":")
        appendString(clinical.sourceName, to: &out)
        out.append(",\"sourceURL\":")
        appendString(clinical.sourceURL, to: &out)
        out.append(",\"fhirVersion\":")
        appendString(clinical.fhirVersion, to: &out)
        out.append(",\"receivedDate\":")
        appendDate(clinical.receivedDate, to: &out)
        out.append(",\"file\":")
        appendString(clinical.file, to: &out)
        out.append(",\"resource\":")
        if let resource = clinical.resource {
            resource.withUnsafeBufferPointer { out.append($0) }
        } else {
            out.append("null")
        }
        out.append(",\"problem\":")
        appendString(clinical.problem, to: &out)
        out.append("}\n")
    }
}
