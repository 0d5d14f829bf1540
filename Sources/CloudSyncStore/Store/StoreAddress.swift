/// Where a store is: a file (`staging.sqlite`, or a patient's file of a clinic on one machine), or
/// one patient's rows in a clinic's PostgreSQL. What a command or a route opens; the store behind
/// either is the same (`StagingStore`).
public enum StoreAddress: Sendable, Equatable, CustomStringConvertible {
    case file(String)
    /// `address`: libpq's URI (`postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?host=/socket/folder]`).
    case postgres(address: String, owner: String)

    /// Whether `text` is a PostgreSQL address (`postgres://` or `postgresql://`, the scheme in any case).
    public static func isPostgres(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    public func open(_ access: StagingStore.Access, configuration: StagingStore.Configuration) throws -> StagingStore {
        switch self {
        case .file(let path): return try StagingStore(path: path, access: access, configuration: configuration)
        case .postgres(let address, let owner):
            return try StagingStore.open(postgres: address, owner: owner, access: access, configuration: configuration)
        }
    }

    /// A `--store` or `--db` as messages say it: a PostgreSQL address without its password.
    public static func shown(_ text: String) -> String { isPostgres(text) ? PostgresDatabase.withoutPassword(text) : text }

    /// The address as libpq reads it: its scheme in lower case (`POSTGRES://` is an address too).
    package static func libpqAddress(_ address: String) -> String {
        let scheme = address.prefix { $0 != ":" }
        return scheme.lowercased() + address.dropFirst(scheme.count)
    }

    /// As messages say it: the path, or the address without its password and the patient's name.
    public var description: String {
        switch self {
        case .file(let path): return path
        case .postgres(let address, let owner): return PostgresDatabase.withoutPassword(address) + " (" + owner + ")"
        }
    }
}
