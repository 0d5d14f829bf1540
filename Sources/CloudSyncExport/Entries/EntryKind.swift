import CloudSyncModel
import Foundation

/// What a file of the export archive holds, by its path (Apple's layout):
/// `apple_health_export/export.xml`, `workout-routes/route_….gpx`, `electrocardiograms/ecg_….csv`,
/// `clinical-records/….json`, `export_cda.xml`.
public enum EntryKind: String, Sendable, CaseIterable, Codable {
    case export, route, ecg, clinicalRecord, cda, unknown

    public static func of(_ path: String) -> EntryKind {
        let lower = path.lowercased()
        let name = lower.split(separator: "/").last.map(String.init) ?? lower
        if lower.hasSuffix("/") || name.hasPrefix("._") || lower.hasPrefix("__macosx/") || lower.contains("/__macosx/") { return .unknown }
        if lower.contains("workout-routes/") && name.hasSuffix(".gpx") { return .route }
        if lower.contains("electrocardiograms/") && name.hasSuffix(".csv") { return .ecg }
        if lower.contains("clinical-records/") && name.hasSuffix(".json") { return .clinicalRecord }
        if name == "export_cda.xml" { return .cda }
        if name.hasSuffix(".xml") { return .export }
        return .unknown
    }

    /// The path from the kind's folder on (`workout-routes/route_1.gpx`), as export.xml's
    /// `FileReference` names it (without its leading `/`); the whole path for other entries.
    public static func archivePath(_ path: String) -> String {
        for folder in ["workout-routes/", "electrocardiograms/", "clinical-records/"] {
            if let range = path.range(of: folder) { return String(path[range.lowerBound...]) }
        }
        return path
    }
}

/// A reader of one kind of entry: fed the entry's bytes in chunks, it gives one record at the end.
/// Adding a kind is one such type and one line in `EntryReaders.make`.
protocol EntryReader: AnyObject {
    associatedtype Record
    static var kind: EntryKind { get }
    init()
    func consume(_ chunk: ByteText) throws
    func finish(path: String) throws -> Record
}

/// Why an entry could not be read: said with the entry's name, and the entry is skipped.
struct EntryProblem: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A damaged or unreadable entry, reported and skipped; everything else converts.
public struct EntryDamage: Error, Sendable, Codable, Equatable {
    public var entry: String
    public var problem: String
}
