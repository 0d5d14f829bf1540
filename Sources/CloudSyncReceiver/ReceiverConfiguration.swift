package import CloudSyncStore

/// How `cloudsync serve` runs.
package struct ReceiverConfiguration: Sendable {
    /// Address to bind; 127.0.0.1 unless told otherwise.
    package var host = "127.0.0.1"
    /// 0 picks a free port (printed when listening).
    package var port = 8080
    /// The receiver's own SQLite file (not a staging store).
    package var databasePath = "cloudsync-serve.sqlite"
    /// The JSONL file of the steps API with an SQLite database; next to it by default.
    package var stepsFilePath: String?
    /// When set, every route but `/health` requires `Authorization: Bearer <token>` of one of the
    /// users, and what a request stores belongs to that user.
    package var users: ReceiverUsers?
    /// The file `users` came from (`--tokens`), read again on SIGHUP.
    package var tokensFile: String?
    /// Larger request bodies get 413. A CloudCare batch of 1000 metrics is about 300 KB.
    package var maxBodySize = 16 << 20
    /// What `sync-status` recommends as the start of a historical backfill.
    package var recommendedStartDate = "2021-12-07T00:00:00.000Z"
    /// Faults to inject into the data endpoints, for testing clients (see `FaultPlan`).
    package var faults = FaultPlan()
    /// Behave like the real CloudCare backend: drop metrics of the types it does not know, and
    /// count only the others in `total_metrics` (for testing what clients make of that).
    package var dropsUnknownTypes = false

    /// Where each patient's data goes, whatever route it came by (`serve --store`: one person's
    /// store; `serve --db FILE`: a store per patient; `serve --db postgres://…`: their rows there).
    /// Required: a receiver without it does not start.
    package var patientStores: (any PatientStores)?
    /// `GET /report`'s page of the store at a path as it is now; throws `ReportRequestError` for a
    /// query it cannot take (400). Nil: no such route.
    package var reportPage: (@Sendable (_ store: StoreAddress, ReportQuery) throws -> String)?
    /// With `--store`: forwarding and the watched folder (nil: neither).
    package var alwaysOn: AlwaysOn?
    /// Larger pushes get 413: a month of raw heart rate is about 100 MB.
    package var maxPushSize = 128 << 20
    /// Larger exports get 413 (and nothing of them is kept): the largest exports seen are 4 GB as XML.
    package var maxExportSize = 16 << 30

    package init() {}

    /// Whether `--db` names a PostgreSQL database (postgres://…) rather than an SQLite file.
    package static func isPostgres(_ database: String) -> Bool { PostgresLocation.isPostgres(database) }

    /// The steps API's JSONL files with an SQLite database.
    var stepsFile: StepsFile { StepsFile(path: stepsFilePath ?? databasePath + ".steps.jsonl") }
}
