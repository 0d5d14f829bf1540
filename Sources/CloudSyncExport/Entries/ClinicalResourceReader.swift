package import CloudSyncModel

/// Reads one FHIR resource (`clinical-records/….json`, DSTU2 or R4) from bytes: checked to be one
/// JSON object with a `resourceType`, bounded in size and nesting, and kept as written, on one line.
package final class ClinicalResourceReader: EntryReader {
    /// A real resource is a few KB; one with an attached document (a PDF in base64) a few MB.
    static let maximumBytes = 64 << 20

    private var bytes: [UInt8] = []

    package init() {}

    package func consume(_ chunk: ByteText) throws {
        guard bytes.count + chunk.count <= Self.maximumBytes else {
            throw EntryProblem("larger than \(Self.maximumBytes >> 20) MiB")
        }
        bytes.append(contentsOf: chunk)
    }

    package func finish(path: String) throws -> ClinicalResource {
        let compact: [UInt8]
        do {
            compact = try bytes.withUnsafeBufferPointer { try JSONCompactor.compact($0) }
        } catch {
            throw EntryProblem("not JSON: \(error)")
        }
        guard compact.first == UInt8(ascii: "{"), JSONCompactor.topLevelString("resourceType", in: compact) != nil else {
            throw EntryProblem("not a FHIR resource: no resourceType")
        }
        return ClinicalResource(file: path, resource: compact)
    }
}
