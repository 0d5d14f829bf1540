public import CloudSyncModel
import Foundation

/// A reader of one file of the archive (a GPX route, an ECG CSV, a FHIR resource): fed the file's
/// bytes in chunks, inflated straight from the zip, it gives one record at the end.
public protocol EntryReader<Record>: AnyObject {
    associatedtype Record
    func consume(_ chunk: ByteText) throws
    /// `path`: the file's path from its kind's folder on (`workout-routes/route_1.gpx`).
    func finish(path: String) throws -> Record
}

/// The files of one kind in the archive: a folder (`workout-routes/`) and an extension (`.gpx`).
public struct ArchiveFiles: Sendable, Equatable {
    public var folder: String
    public var suffix: String

    public init(folder: String, suffix: String) {
        self.folder = folder
        self.suffix = suffix
    }

    /// Whether the entry at `path` is one of these files (macOS resource forks are not).
    public func matches(_ path: String) -> Bool {
        let lower = path.lowercased()
        let name = lower.split(separator: "/").last.map(String.init) ?? lower
        guard !lower.hasSuffix("/"), !name.hasPrefix("._"), !lower.hasPrefix("__macosx/"), !lower.contains("/__macosx/") else { return false }
        return lower.contains(folder) && name.hasSuffix(suffix)
    }

    /// The path from the folder on (`workout-routes/route_1.gpx`), as export.xml's `FileReference`
    /// and `resourceFilePath` name a file (without their leading `/`); the whole path otherwise.
    public func archivePath(_ path: String) -> String {
        guard let range = path.range(of: folder) else { return path }
        return String(path[range.lowerBound...])
    }
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
