/// A patient's connection sees the tables partitioned by owner through temporary views of the same
/// names (`metric`, `metric_hour`, `route_point`) that hold the owner's rows by a constant
/// (`WHERE owner = 'alice'`), and the store's views made again over them. PostgreSQL looks for a
/// name among the session's temporary objects first, so the store's SQL, which names the shared
/// tables, reads and writes through them; row-level security still holds beneath (the views read
/// with the caller's rights).
///
/// Why: row-level security's `owner = current_setting('cloudsync.owner')` is not a constant when a
/// statement is planned, so every statement was planned over every patient's partition and its
/// indexes. With 50 patients, a push of 4,320 samples spent 99 of its 212 ms of PostgreSQL's time
/// planning (`SELECT coalesce(max(id), 0) FROM metric`: 19.9 ms to plan, 0.18 ms through the view),
/// and 50 pushes cost PostgreSQL 11.1 s of CPU against serve's 1.2 s; the cost grew with each
/// patient.
///
/// What names the shared tables as tables (DDL, `regclass`, `pg_get_serial_sequence`) names them
/// with their schema (`shared`).
enum OwnerViews {
    /// Makes the views, on a connection opened for an owner, once the store's schema is there.
    static func make(_ database: PostgresDatabase) throws {
        // The store's views as they are defined, read before the tables' views exist: their
        // definitions then name the tables without a schema, and made again they read the views.
        var statements = try database.texts("""
            SELECT format('CREATE TEMPORARY VIEW %I WITH (security_invoker = true) AS SELECT * FROM %I.%I WHERE owner = %L',
                          t, current_schema(), t, \(OwnerPartitions.currentOwner))
            FROM unnest(?::text[]) WITH ORDINALITY AS tables(t, n) ORDER BY n
            """, [.text("{" + OwnerPartitions.tables.joined(separator: ",") + "}")])
        // The store's views only: another view of the schema (an extension's) is none of the store's,
        // and a temporary view is found before the catalog's own.
        statements += try database.texts("""
            SELECT format('CREATE TEMPORARY VIEW %I WITH (security_invoker = true) AS %s', c.relname, rtrim(pg_get_viewdef(c.oid), ';'))
            FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'v' AND c.relname = ANY(?::text[])
            ORDER BY c.oid
            """, [.text("{" + storeViews.joined(separator: ",") + "}")])
        for statement in statements { try database.execute(statement) }
    }

    /// The store's views that read the partitioned tables.
    private static let storeViews = [CountedRows.view, CountedRows.viewWithRepeats]

    /// The shared table `table` itself, named with its schema (SQL that gives the name: `table` is a
    /// parameter unless said), for what must reach the table rather than the connection's view of it.
    static func sharedSQL(_ table: String = "?::text") -> String { "format('%I.%I', current_schema(), \(table))" }

    /// The same, as a name to write in a statement.
    static func shared(_ table: String, in database: PostgresDatabase) throws -> String {
        try database.scalarText("SELECT \(sharedSQL())", [.text(table)]) ?? PostgresStoreSchema.quoted(table)
    }
}
