package import CloudSyncModel

/// The `<ClinicalRecord>`s of export.xml, for joining each to the FHIR resource file it names
/// (`resourceFilePath`). Small: hundreds to thousands per export.
///
/// Every record comes out once: with its resource when the file was read, else with the problem
/// (the file is missing from the archive, or was damaged); a file that no record names comes out
/// with its resource alone.
package final class ClinicalIndex {
    private let files: ArchiveFiles

    package init(files: ArchiveFiles) { self.files = files }

    private var records: [ClinicalResource] = []
    private var byFile: [String: [Int]] = [:]
    private var written: Set<Int> = []
    private var problems: [String: String] = [:]

    package func add(_ element: CloudSyncExport.ClinicalRecord) {
        let attributes = element.attributes
        let file = attributes["resourceFilePath"].map(files.archivePath)
        if let file { byFile[file, default: []].append(records.count) }
        records.append(ClinicalResource(
            type: attributes["type"], identifier: attributes["identifier"], sourceName: attributes["sourceName"],
            sourceURL: attributes["sourceURL"], fhirVersion: attributes["fhirVersion"],
            receivedDate: attributes["receivedDate"]?.epochSeconds, file: file))
    }

    package var count: Int { records.count }

    /// The records naming `resource`'s file, each with the resource; the resource alone when none does.
    package func link(_ resource: ClinicalResource) -> [ClinicalResource] {
        guard let file = resource.file, let indices = byFile[file] else {
            var alone = resource
            alone.problem = "no ClinicalRecord in export.xml names this file"
            return [alone]
        }
        return indices.map { index in
            written.insert(index)
            var record = records[index]
            record.resource = resource.resource
            return record
        }
    }

    /// The file at `path` could not be read: the records naming it say why.
    package func damaged(path: String, problem: String) {
        problems[files.archivePath(path)] = problem
    }

    /// The records whose resource never came, in export.xml's order, each with its problem.
    package func unlinked() -> [ClinicalResource] {
        records.indices.filter { !written.contains($0) }.map { index in
            var record = records[index]
            if let file = record.file {
                record.problem = problems[file].map { "its file \(file) is damaged: \($0)" } ?? "its file \(file) is not in the archive"
            } else {
                record.problem = "it names no resource file"
            }
            return record
        }
    }
}
