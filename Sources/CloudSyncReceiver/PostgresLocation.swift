import CloudSyncStore
import Foundation
import PostgresNIO

/// Where `serve --db` finds PostgreSQL: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE` (or
/// `postgresql://`), with `?host=/dir` for a Unix socket directory (libpq's spelling) and
/// `?sslmode=disable|prefer|require`.
struct PostgresLocation: Sendable, CustomStringConvertible {
    enum Endpoint: Sendable, CustomStringConvertible {
        case socket(path: String)
        case tcp(host: String, port: Int)

        /// `HOST:PORT`, or the socket's path: what a message names.
        var description: String {
            switch self {
            case .socket(let path): return path
            case .tcp(let host, let port): return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            }
        }
    }

    enum SSLMode: String, Sendable { case disable, prefer, require }

    let endpoint: Endpoint
    let user: String
    let password: String?
    let database: String
    let sslMode: SSLMode
    /// The URL without its password, for messages.
    let description: String

    /// The server's socket, for a `?host=/dir` address.
    var socketPath: String? {
        if case .socket(let path) = endpoint { return path }
        return nil
    }

    /// A `postgres://` or `postgresql://` address (the scheme in any case, as URLs allow).
    static func isPostgres(_ text: String) -> Bool { StoreAddress.isPostgres(text) }

    /// Meant as an address but not one: another scheme (`postgress://`, `mysql://`) or a
    /// `postgres` scheme without its `//` (`postgresql:/db`). Taken for an SQLite path, it made a
    /// file of that name or failed with "SQLite error 14".
    static func isMistypedAddress(_ text: String) -> Bool {
        guard !isPostgres(text) else { return false }
        return text.contains("://") || text.lowercased().hasPrefix("postgres") && text.contains(":")
    }

    init(_ text: String) throws {
        // The scheme in lower case (POSTGRES:// is an address too), the rest as written.
        let text = Self.isPostgres(text) ? StoreAddress.libpqAddress(text) : text
        guard Self.isPostgres(text), let url = URLComponents(string: text) else {
            throw StorageError("'\(text)' is not a postgres://USER@HOST:PORT/DATABASE address")
        }
        guard let user = url.user, !user.isEmpty else { throw StorageError("\(text): the address names no user (postgres://USER@HOST/DB)") }
        let database = String(url.path.drop { $0 == "/" })
        guard !database.isEmpty else { throw StorageError("\(text): the address names no database (postgres://USER@HOST/DB)") }
        let query = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        let port = url.port ?? 5432
        guard (1...65535).contains(port) else { throw StorageError("\(text): the port \(port) is not between 1 and 65535") }
        if let directory = query["host"], directory.hasPrefix("/") {
            endpoint = .socket(path: "\(directory)/.s.PGSQL.\(port)")
        } else {
            guard let host = url.host, !host.isEmpty else { throw StorageError("\(text): the address names no host") }
            // An IPv6 address comes in brackets ([::1]), which are not part of it.
            let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            endpoint = .tcp(host: bare, port: port)
        }
        guard let mode = SSLMode(rawValue: query["sslmode"] ?? "prefer") else {
            throw StorageError("\(text): sslmode '\(query["sslmode"] ?? "")' is not disable, prefer or require")
        }
        self.user = user
        self.password = url.password
        self.database = database
        sslMode = mode
        var shown = url
        if shown.password != nil { shown.password = "…" }
        description = shown.string ?? text
    }

    /// The pool's configuration (`PostgresClient`).
    var clientConfiguration: PostgresClient.Configuration {
        switch endpoint {
        case .socket(let path):
            return .init(unixSocketPath: path, username: user, password: password, database: database)
        case .tcp(let host, let port):
            let tls: PostgresClient.Configuration.TLS
            switch sslMode {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(.makeClientConfiguration())
            case .require: tls = .require(.makeClientConfiguration())
            }
            return .init(host: host, port: port, username: user, password: password, database: database, tls: tls)
        }
    }

    /// The same server for one connection of its own (the start-up check and the migration).
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        switch endpoint {
        case .socket(let path):
            return .init(unixSocketPath: path, username: user, password: password, database: database)
        case .tcp(let host, let port):
            let tls: PostgresConnection.Configuration.TLS
            switch sslMode {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
            return .init(host: host, port: port, username: user, password: password, database: database, tls: tls)
        }
    }
}

/// A storage problem in words (a bad address, a schema from a newer cloudsync).
struct StorageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
