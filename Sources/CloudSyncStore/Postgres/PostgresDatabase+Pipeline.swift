import CLibPQ

/// What saves a received batch its round trips and its statements' parsing and planning: a batch of
/// 1,000 metrics is an import of its own, and made 32 round trips (a `SELECT 1` round trip costs the
/// two processes 66–86 µs of CPU on this project's VM when its cores idle, 20–33 µs when they are
/// busy: pgbench); the statements it sent as text were parsed, analysed and planned again at each
/// batch (281 ms of PostgreSQL's CPU for the 166 batches of `Benchmarks/receiver-ab.sh`,
/// `log_parser_stats` and `log_planner_stats`). Statements whose outcome matters only when they fail
/// are deferred to the next statement's round trip (`executeWithNext`), and reads asked next are run
/// together (`readAhead`), through libpq's pipeline mode where prepared statements are among them.
/// The server runs the same statements in the same order as one at a time.
extension PostgresDatabase {
    /// A statement deferred to the round trip of the connection's next one.
    struct DeferredStatement {
        /// One statement (a pipeline takes no more).
        var sql: String
        /// Its parameters as text when it is run as a prepared statement (planned once a
        /// connection); nil: sent as it is.
        var parameters: [String?]?
    }

    /// One statement of a pipeline (`pipeline`).
    struct PipelineCommand {
        var sql: String
        var parameters: [String?]
        /// Run as a statement prepared by name (prepared in the pipeline the first time), or as it is.
        var prepared: Bool
        /// Whether its result is handed back (else dropped once checked).
        var kept: Bool
    }

    /// Defers `sql` (one statement) to the round trip of the connection's next statement, in the
    /// open transaction (outside one, it runs at once): a savepoint's release, a role given back.
    /// Every statement sent after takes the deferred ones first (`withDeferred`, `run`); a whole
    /// rollback drops them with the rest of the transaction.
    package func executeWithNext(_ sql: String) throws {
        assert(!sql.contains("; "), "one statement: a pipeline takes no more")
        guard isInTransaction else { return try execute(sql) }
        dropReadAhead()   // a statement run between the reads and their answers
        deferred.append(DeferredStatement(sql: sql, parameters: nil))
    }

    /// The same for a statement each write runs (the summaries' counts, the hour marks), run as a
    /// prepared statement with `arguments`.
    package func executeWithNext(_ sql: String, _ arguments: [StoreValue]) throws {
        let translated = PlaceholderTranslation.postgres(sql).sql
        let parameters = arguments.map(PostgresStatement.text(of:))
        guard isInTransaction else {
            for result in try runInPipeline([PipelineCommand(sql: translated, parameters: parameters, prepared: true, kept: false)]) { PQclear(result) }
            return
        }
        dropReadAhead()
        deferred.append(DeferredStatement(sql: translated, parameters: parameters))
    }

    /// `sql` (one statement or several, sent as text) after the deferred statements, which it takes:
    /// in its own text when they are all text; else they are run first, in a pipeline of their own.
    func withDeferred(_ sql: String) throws -> String {
        dropReadAhead()
        guard !deferred.isEmpty else { return sql }
        if deferred.allSatisfy({ $0.parameters == nil }) {
            let text = deferred.map(\.sql).joined(separator: "; ")
            deferred.removeAll()
            return text + "; " + sql
        }
        _ = try pipeline(takeDeferred())
        return sql
    }

    /// The deferred statements as the first commands of a pipeline, taken.
    func takeDeferred() -> [PipelineCommand] {
        defer { deferred.removeAll() }
        return deferred.map { PipelineCommand(sql: $0.sql, parameters: $0.parameters ?? [], prepared: $0.parameters != nil, kept: false) }
    }

    /// Runs `sqls` (statements without parameters) in one round trip, as prepared statements (each
    /// prepared in it the first time: planned once a connection), after the deferred ones, and keeps
    /// their results for `run`, which answers each from them once, as long as no other statement
    /// ran (which drops them): a received batch's first reads (its name tables, its stored types'
    /// states, the latest starts) were five round trips. (Sent as one query of several statements,
    /// they were planned again at each batch: 88 ms more of PostgreSQL's planning for the 166
    /// batches, pg_stat_statements, more than the round trips saved.)
    package func readAhead(_ sqls: [String]) throws {
        let results = try runInPipeline(sqls.map { PipelineCommand(sql: $0, parameters: [], prepared: true, kept: true) })
        readAheadResults = Array(zip(sqls, results))
    }

    /// `commands` in one round trip after the deferred statements, once what was sent before is read
    /// and what was read ahead is dropped: the kept ones' results.
    func runInPipeline(_ commands: [PipelineCommand]) throws -> [OpaquePointer] {
        try finishSent()
        dropReadAhead()
        return try pipeline(takeDeferred() + commands)
    }

    /// The result read ahead for `sql`, taken; nil (and every other one dropped) when there is none.
    func takeReadAhead(_ sql: String) -> OpaquePointer? {
        guard let index = readAheadResults.firstIndex(where: { $0.sql == sql }) else {
            dropReadAhead()
            return nil
        }
        return readAheadResults.remove(at: index).result
    }

    func dropReadAhead() {
        for (_, result) in readAheadResults { PQclear(result) }
        readAheadResults.removeAll()
    }

    /// `commands` in one round trip (libpq's pipeline mode): the kept ones' results, in order. The
    /// first error is thrown (the commands after it are not run), with no result kept.
    func pipeline(_ commands: [PipelineCommand]) throws -> [OpaquePointer] {
        guard !commands.isEmpty else { return [] }
        guard PQenterPipelineMode(connection) == 1 else { throw error(nil, sql: commands[0].sql) }
        // What was sent: each command's preparation (the name it makes) and its run (nil).
        var sent: [(command: PipelineCommand, preparing: String?)] = []
        var failure: PostgresError?
        for command in commands {
            var name = command.prepared ? prepared[command.sql] : nil
            if command.prepared, name == nil {
                let made = nextStatementName()
                guard PQsendPrepare(connection, made, command.sql, Int32(command.parameters.count), nil) == 1 else {
                    failure = error(nil, sql: command.sql)
                    break
                }
                sent.append((command, made))
                name = made
            }
            let queued = Self.withCStrings(command.parameters) { count, values in
                if let name { return PQsendQueryPrepared(connection, name, count, values, nil, nil, 0) }
                return PQsendQueryParams(connection, command.sql, count, nil, values, nil, nil, 0)
            }
            guard queued == 1 else {
                failure = error(nil, sql: command.sql)
                break
            }
            sent.append((command, nil))
        }
        // What was queued is sent with the sync, and read back, even when a later command could not be queued.
        if !sent.isEmpty, PQpipelineSync(connection) != 1 { failure = failure ?? error(nil, sql: commands[0].sql) }
        // Each command's result and a nil after it, then the sync's; a connection that broke gives
        // nil for ever.
        var results: [OpaquePointer] = []
        var index = 0, nils = 0
        while !sent.isEmpty {
            guard let result = PQgetResult(connection) else {
                nils += 1
                if nils > sent.count { break }
                continue
            }
            let status = PQresultStatus(result)
            if status == PGRES_PIPELINE_SYNC {
                PQclear(result)
                break
            }
            let (command, preparing) = sent[min(index, sent.count - 1)]
            let succeeded = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK
            if !succeeded, failure == nil { failure = error(result, sql: command.sql) }
            if let preparing, succeeded { prepared[command.sql] = preparing }
            if preparing == nil, command.kept, failure == nil { results.append(result) } else { PQclear(result) }
            index += 1
        }
        PQexitPipelineMode(connection)
        guard let failure else { return results }
        for result in results { PQclear(result) }
        throw failure
    }
}
