import CloudSyncModel
import Foundation

/// A file of a watched folder as the folder shows it: one version of it (a changed file is
/// another version).
package struct WatchedFileVersion: Sendable, Hashable {
    package var folder: String
    package var name: String
    package var size: Int64
    package var modifiedAt: Int64

    package init(folder: String, name: String, size: Int64, modifiedAt: Int64) {
        self.folder = folder
        self.name = name
        self.size = size
        self.modifiedAt = modifiedAt
    }
}

/// A file of a watched folder that could not be imported, as `status` says it.
public struct WatchedFileProblem: Sendable, Codable, Equatable {
    public var file: String
    public var problem: String
    public var at: String
}

/// What `serve --watch` did with each file it saw (`watched_file`): imported (with its content's
/// SHA-256: the same content under another name or again is not imported twice), or failed with its
/// problem (not tried again until the file changes). A restart reads it: nothing is imported twice.
package struct WatchedFileLedger {
    let store: StagingStore

    package init(_ store: StagingStore) { self.store = store }

    /// Whether this version of the file was dealt with (imported, same content as an imported
    /// file, or failed).
    package func knows(_ version: WatchedFileVersion) throws -> Bool {
        try store.storeErrors {
            try store.database.scalarInt("SELECT 1 FROM watched_file WHERE folder = ? AND name = ? AND size = ? AND modified_at = ? LIMIT 1",
                                         [.text(version.folder), .text(version.name), .int(version.size), .int(version.modifiedAt)]) != nil
        }
    }

    /// The name of a file imported with this content, if any.
    package func imported(sha256: String) throws -> String? {
        try store.storeErrors {
            try store.database.scalarText("SELECT name FROM watched_file WHERE sha256 = ? AND outcome = 'imported' LIMIT 1", [.text(sha256)])
        }
    }

    /// `outcome`: imported, same-content, failed.
    package func record(_ version: WatchedFileVersion, sha256: String?, outcome: String, problem: String?, runID: Int64?) throws {
        try store.storeErrors {
            try store.database.prepare("""
                INSERT INTO watched_file(folder, name, size, modified_at, sha256, outcome, problem, run_id, seen_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).run([.text(version.folder), .text(version.name), .int(version.size), .int(version.modifiedAt),
                          sha256.map { .text($0) } ?? .null, .text(outcome), problem.map { .text($0) } ?? .null,
                          runID.map { .int($0) } ?? .null, .int(StoreClock.now)])
        }
    }

    /// The files whose latest version failed, latest first.
    package func problems(limit: Int = 20) throws -> [WatchedFileProblem] {
        try store.storeErrors {
            let rows = try store.database.prepare("""
                SELECT w.folder || '/' || w.name, w.problem, w.seen_at FROM watched_file w
                WHERE w.outcome = 'failed' AND w.id = (SELECT max(id) FROM watched_file v WHERE v.folder = w.folder AND v.name = w.name)
                ORDER BY w.id DESC LIMIT ?
                """)
            try rows.bind([.int(Int64(limit))])
            var found: [WatchedFileProblem] = []
            while try rows.step() {
                found.append(WatchedFileProblem(file: rows.text(0) ?? "", problem: rows.text(1) ?? "", at: UTCDateFormatter.string(rows.int64(2))))
            }
            return found
        }
    }

    /// Files imported from watched folders.
    package func importedCount() throws -> Int {
        try store.storeErrors { Int(try store.database.scalarInt("SELECT count(*) FROM watched_file WHERE outcome = 'imported'") ?? 0) }
    }
}
