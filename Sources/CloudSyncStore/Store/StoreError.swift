/// Why the store cannot be used. Every case names the store.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    case cannotOpen(String, String)
    /// No store at the path (and the command does not create one).
    case missing(String)
    /// A file of 0 bytes (or an SQLite file without tables) where a store should be: nothing to read,
    /// and a command that only reads does not make a store of it.
    case empty(String)
    /// A folder where the store's file should be.
    case folder(String)
    /// Another process uploads to this target and server now (at most one upload per target).
    case uploading(String, target: String, since: String?)
    case readOnly(String)
    case newerSchema(String, found: Int, known: Int)
    /// Opened read-only, the store's schema is older than this cloudsync's (a writer upgrades it).
    case olderSchema(String, found: Int)
    case notAStore(String, String)
    /// A kind of record the store has no table for (a kind left out of the store's configuration).
    case unstorable(String)
    case sqlite(SQLiteError)
    /// PostgreSQL refused or failed (a clinic's store): its message names the database, never a password.
    case postgres(PostgresError)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let why): return "\(path): cannot open the store: \(why)"
        case .missing(let path): return "\(path): no store there yet; import an export first (cloudsync import export.zip)"
        case .empty(let path):
            return "\(path): the file is empty, not a store; it is left as it is (import an export into it to make one: cloudsync import export.zip --store \(path))"
        case .folder(let path):
            let example = (path.hasSuffix("/") ? path : path + "/") + "staging.sqlite"
            return "\(path): it is a folder; give the store's file (for example \(example))"
        case .uploading(let path, let target, let since):
            return "\(path): another cloudsync process is uploading to \(target)\(since.map { " (since \($0))" } ?? ""); "
                + "at most one upload per target runs at a time: this one sends nothing (run it again when that one ends)"
        case .readOnly(let path): return "\(path): the store is read-only (check the file's and the folder's permissions)"
        case .olderSchema(let path, let found):
            return "\(path): the store's schema (\(found)) is older than this cloudsync's (\(StoreSchema.currentVersion)); a reader does not "
                + "upgrade it: `cloudsync status --upgrade` does (so does any command that writes: import, upload, serve --store)"
        case .newerSchema(let path, let found, let known):
            return "\(path): the store was written by a newer cloudsync (schema \(found); this one knows up to \(known))"
        case .notAStore(let path, let why): return "\(path): not a cloudsync store: \(why)"
        case .unstorable(let kind): return "the store keeps no \(kind): this cloudsync's store is not configured for that kind"
        case .postgres(let error): return error.description
        case .sqlite(let error):
            if error.isDiskFull { return "\(error.path): the disk is full; the store is intact, with everything committed before" }
            if error.isBusy {
                return "\(error.path): another cloudsync process held the store's write lock for longer than this one waits; "
                    + "the store is intact, with everything committed before: try again"
            }
            return error.description
        }
    }
}
