/// The staging store's schema, versioned with `PRAGMA user_version` and migrated step by step.
enum StoreSchema {
    /// Each entry moves the schema from version `index` to `index + 1`.
    static let migrations: [String] = [
        """
        CREATE TABLE metric_type (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE source (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE unit (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE device (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE source_version (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);

        -- One row per HealthMetric. Dates are seconds since 1970 UTC. The metadata object is
        -- {"device": device, "sourceVersion": source_version, <extra>}: most samples carry only the
        -- first two, kept as ids, so `extra` (the other members as JSON, without braces) is mostly NULL.
        CREATE TABLE metric (
            id INTEGER PRIMARY KEY,
            type_id INTEGER NOT NULL REFERENCES metric_type(id),
            start_date INTEGER NOT NULL,
            end_date INTEGER NOT NULL,
            source_id INTEGER NOT NULL REFERENCES source(id),
            value REAL NOT NULL,
            unit_id INTEGER NOT NULL REFERENCES unit(id),
            device_id INTEGER NOT NULL REFERENCES device(id),
            source_version_id INTEGER REFERENCES source_version(id),
            extra TEXT,
            import_id INTEGER NOT NULL REFERENCES import_run(id)
        );
        -- A metric's identity: importing the same sample again adds nothing.
        CREATE UNIQUE INDEX metric_identity ON metric(type_id, start_date, end_date, source_id, value, unit_id);

        CREATE TABLE identity (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE export_fact (key TEXT PRIMARY KEY, value TEXT NOT NULL);

        CREATE TABLE import_run (
            id INTEGER PRIMARY KEY,
            input TEXT NOT NULL,
            input_size INTEGER,
            export_date TEXT,
            export_version INTEGER,
            locale TEXT,
            started_at INTEGER NOT NULL,
            ended_at INTEGER,
            outcome TEXT NOT NULL,          -- running, ok, failed, interrupted
            reason TEXT,
            new_count INTEGER NOT NULL DEFAULT 0,
            duplicate_count INTEGER NOT NULL DEFAULT 0,
            invalid_count INTEGER NOT NULL DEFAULT 0,
            filtered_count INTEGER NOT NULL DEFAULT 0
        );

        -- Upload state per target (cloudcare, flo, steps) and server: one store can feed several.
        CREATE TABLE upload_target (
            id INTEGER PRIMARY KEY,
            target TEXT NOT NULL,
            server TEXT NOT NULL,
            UNIQUE (target, server)
        );
        -- A metric acknowledged by a target's server.
        CREATE TABLE upload_ack (
            target_id INTEGER NOT NULL REFERENCES upload_target(id),
            metric_id INTEGER NOT NULL REFERENCES metric(id),
            PRIMARY KEY (target_id, metric_id)
        ) WITHOUT ROWID;
        -- The upload history, one row per batch (the iOS app's UploadTracker).
        CREATE TABLE upload_batch (
            id INTEGER PRIMARY KEY,
            target_id INTEGER NOT NULL REFERENCES upload_target(id),
            at INTEGER NOT NULL,
            count INTEGER NOT NULL,
            first_start INTEGER,
            last_end INTEGER,
            success INTEGER NOT NULL,
            error TEXT
        );
        CREATE TABLE backfill_state (
            target_id INTEGER PRIMARY KEY REFERENCES upload_target(id),
            complete INTEGER NOT NULL,
            backfill_date TEXT,
            recommended_start TEXT,
            updated_at INTEGER NOT NULL
        );
        """,
        // 2: the upload history per run (one row per `cloudsync upload`, its batches under it), and
        // what a server acknowledged without taking it (CloudCare drops types it does not know).
        """
        CREATE TABLE upload_run (
            id INTEGER PRIMARY KEY,
            target_id INTEGER NOT NULL REFERENCES upload_target(id),
            started_at INTEGER NOT NULL,
            ended_at INTEGER,
            outcome TEXT NOT NULL,          -- running, ok, failed, interrupted
            sent INTEGER NOT NULL DEFAULT 0,
            batches INTEGER NOT NULL DEFAULT 0,
            retries INTEGER NOT NULL DEFAULT 0,
            error TEXT
        );
        ALTER TABLE upload_batch ADD COLUMN run_id INTEGER REFERENCES upload_run(id);
        -- Metrics a server acknowledged but did not keep, per run and type.
        CREATE TABLE upload_not_taken (
            run_id INTEGER NOT NULL REFERENCES upload_run(id),
            type TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (run_id, type)
        ) WITHOUT ROWID;
        -- Batches written before runs existed become one run per target.
        INSERT INTO upload_run(target_id, started_at, ended_at, outcome, sent, batches)
            SELECT target_id, min(at), max(at), CASE WHEN min(success) = 1 THEN 'ok' ELSE 'failed' END,
                   sum(CASE WHEN success = 1 THEN count ELSE 0 END), count(*)
            FROM upload_batch GROUP BY target_id;
        UPDATE upload_batch SET run_id = (SELECT r.id FROM upload_run r WHERE r.target_id = upload_batch.target_id);
        """,
        // 3: the archive's other entries: workout routes (GPX files and inline locations) and ECGs.
        """
        -- One row per route; `key` is its file (workout-routes/route_….gpx) or, for a route written
        -- inline in export.xml, inline:<workout type>:<workout start>. Importing it again adds nothing.
        CREATE TABLE route (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL UNIQUE,
            file TEXT,
            workout_type TEXT,
            workout_start INTEGER,
            workout_end INTEGER,
            point_count INTEGER NOT NULL,
            import_id INTEGER NOT NULL REFERENCES import_run(id)
        );
        CREATE INDEX route_workout ON route(workout_start);
        CREATE TABLE route_point (
            route_id INTEGER NOT NULL REFERENCES route(id),
            seq INTEGER NOT NULL,
            time INTEGER,
            latitude REAL NOT NULL,
            longitude REAL NOT NULL,
            elevation REAL,
            speed REAL,
            course REAL,
            horizontal_accuracy REAL,
            vertical_accuracy REAL,
            PRIMARY KEY (route_id, seq)
        ) WITHOUT ROWID;
        -- One row per ECG; the voltages as little-endian float64 values.
        CREATE TABLE ecg (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL UNIQUE,
            recorded_at INTEGER NOT NULL,
            classification TEXT,
            symptoms TEXT,
            sample_rate REAL,
            lead TEXT,
            unit TEXT,
            device TEXT,
            software_version TEXT,
            file TEXT,
            sample_count INTEGER NOT NULL,
            samples BLOB NOT NULL,
            import_id INTEGER NOT NULL REFERENCES import_run(id)
        );
        ALTER TABLE import_run ADD COLUMN new_routes INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE import_run ADD COLUMN new_ecgs INTEGER NOT NULL DEFAULT 0;
        """,
        // 4: what export.xml holds besides metrics: HRV beat-to-beat series and correlations.
        """
        -- One row per HRV record with a beat list; `key` is type, start, end and source; the beats as
        -- little-endian pairs of int64 milliseconds and int64 bpm.
        CREATE TABLE beat_series (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL UNIQUE,
            type TEXT NOT NULL,
            start_date INTEGER NOT NULL,
            end_date INTEGER NOT NULL,
            source_app TEXT NOT NULL,
            value REAL,
            beat_count INTEGER NOT NULL,
            beats BLOB NOT NULL,
            import_id INTEGER NOT NULL REFERENCES import_run(id)
        );
        -- One row per Correlation; `key` is its type, dates, source and members; metadata and members
        -- as the JSON that `convert --kind correlations` writes.
        CREATE TABLE correlation (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL UNIQUE,
            type TEXT NOT NULL,
            start_date INTEGER NOT NULL,
            end_date INTEGER NOT NULL,
            source_app TEXT NOT NULL,
            line TEXT NOT NULL,
            import_id INTEGER NOT NULL REFERENCES import_run(id)
        );
        """,
        // 5: keep every sample HealthKit kept. Samples alike in everything but their creation date
        // are distinct samples (a re-synced workout, a food entry logged twice): the creation date
        // joins the identity. The later ones are marked as repeats, which queries count once.
        // And the archive's clinical records.
        """
        -- The record's creationDate; -62167219201 (a second before the year 0, a date no export can
        -- write) when it has none. Not NULL: a UNIQUE index lets NULLs repeat, and an index on
        -- ifnull(created_at, …) made the import 35% slower (an expression evaluated per insert).
        ALTER TABLE metric ADD COLUMN created_at INTEGER NOT NULL DEFAULT -62167219201;
        ALTER TABLE metric ADD COLUMN is_repeat INTEGER NOT NULL DEFAULT 0;
        DROP INDEX metric_identity;
        CREATE UNIQUE INDEX metric_identity ON metric(type_id, start_date, end_date, source_id, value, unit_id, created_at);
        -- The types that have rows without a creation date, among them every row stored before this
        -- version: the next import that has the date fills it in instead of adding the sample again.
        CREATE INDEX metric_undated ON metric(type_id) WHERE created_at = -62167219201;
        ALTER TABLE import_run ADD COLUMN repeat_count INTEGER NOT NULL DEFAULT 0;
        -- Records the export itself wrote twice (same sample, same creation date): stored once.
        ALTER TABLE import_run ADD COLUMN written_twice_count INTEGER NOT NULL DEFAULT 0;

        -- Per (type, unit, source): how many samples (repeats among them) and from when to when, kept
        -- by the import in the transactions that add the rows, so that `status`, `overview` and the
        -- MCP server answer without reading every row (a full scan took 5 s on 2.4 million rows).
        CREATE TABLE metric_summary (
            type_id INTEGER NOT NULL,
            unit_id INTEGER NOT NULL,
            source_id INTEGER NOT NULL,
            count INTEGER NOT NULL,
            repeats INTEGER NOT NULL,
            first_start INTEGER NOT NULL,
            last_end INTEGER NOT NULL,
            PRIMARY KEY (type_id, unit_id, source_id)
        ) WITHOUT ROWID;
        INSERT INTO metric_summary
            SELECT type_id, unit_id, source_id, count(*), sum(is_repeat), min(start_date), max(end_date)
            FROM metric GROUP BY type_id, unit_id, source_id;

        -- One row per clinical record (a ClinicalRecord of export.xml with its FHIR resource, or a
        -- resource file alone); `key` is its file (else type and identifier); `line` is the JSON that
        -- `convert --kind clinical` writes, the resource in it unchanged.
        CREATE TABLE clinical_record (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL UNIQUE,
            type TEXT,
            received_date INTEGER,
            file TEXT,
            has_resource INTEGER NOT NULL,
            line TEXT NOT NULL,
            import_id INTEGER NOT NULL REFERENCES import_run(id)
        );
        """,
        // 5 → 6: the hour summary that `aggregate` reads for long ranges (StagingStore+HourSummary).
        """
        -- Per type, unit and UTC hour of startDate: the samples counted once, and (merged_*) their
        -- values merged across sources, for the types that merge (NULL extremes: none counted).
        CREATE TABLE metric_hour (
            type_id INTEGER NOT NULL,
            unit_id INTEGER NOT NULL,
            hour INTEGER NOT NULL,
            count INTEGER NOT NULL,
            sum REAL NOT NULL,
            minimum REAL,
            maximum REAL,
            merged_count INTEGER NOT NULL,
            merged_sum REAL NOT NULL,
            merged_minimum REAL,
            merged_maximum REAL,
            PRIMARY KEY (type_id, unit_id, hour)
        ) WITHOUT ROWID;
        -- Per type: its longest sample (seconds), whether it has a summary (1; 0: not made yet; -1:
        -- none, the type is small or sparse), and the range of start and end dates of the rows
        -- added since the summary was made (NULL: it is current). An import widens the range in
        -- the transactions that add the rows.
        CREATE TABLE metric_hour_state (
            type_id INTEGER PRIMARY KEY,
            longest INTEGER NOT NULL,
            summarised INTEGER NOT NULL DEFAULT 0,
            dirty_from INTEGER,
            dirty_to INTEGER
        );
        INSERT INTO metric_hour_state(type_id, longest, dirty_from, dirty_to)
            SELECT type_id, max(end_date - start_date), min(start_date), max(end_date) FROM metric GROUP BY type_id;
        """,
        // 6 → 7: a category sample's category joins its identity. One app may write InBed and
        // Asleep over the same span in the same second; their value (the duration) is the same, so
        // without the category the second collided with the first and was lost.
        """
        CREATE TABLE category_value (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        -- The raw categoryValue (HKCategoryValueSleepAnalysisInBed) of a category sample; 0 for others.
        ALTER TABLE metric ADD COLUMN category_id INTEGER NOT NULL DEFAULT 0;
        CREATE TEMP TABLE category_row AS
            SELECT m.id, json_extract('{' || m.extra || '}', '$.categoryValue') AS name
            FROM metric m JOIN metric_type t ON t.id = m.type_id
            WHERE t.name LIKE 'HKCategoryTypeIdentifier%' AND m.extra IS NOT NULL AND json_valid('{' || m.extra || '}');
        DELETE FROM temp.category_row WHERE name IS NULL;
        INSERT OR IGNORE INTO category_value(name) SELECT DISTINCT name FROM temp.category_row;
        UPDATE metric SET category_id = (SELECT c.id FROM temp.category_row r JOIN category_value c ON c.name = r.name WHERE r.id = metric.id)
            WHERE id IN (SELECT id FROM temp.category_row);
        DROP TABLE temp.category_row;
        DROP INDEX metric_identity;
        CREATE UNIQUE INDEX metric_identity ON metric(type_id, start_date, end_date, source_id, value, unit_id, category_id, created_at);
        -- A row marked as a repeat of a sample of another category is no repeat.
        UPDATE metric SET is_repeat = 0 WHERE is_repeat = 1 AND category_id != 0 AND NOT EXISTS (
            SELECT 1 FROM metric o
            WHERE o.type_id = metric.type_id AND o.start_date = metric.start_date AND o.end_date = metric.end_date
              AND o.source_id = metric.source_id AND o.value = metric.value AND o.unit_id = metric.unit_id
              AND o.category_id = metric.category_id AND o.id < metric.id);
        -- The summaries of the category types are counted again: their repeats may have changed.
        DELETE FROM metric_summary WHERE type_id IN (SELECT DISTINCT type_id FROM metric WHERE category_id != 0);
        INSERT INTO metric_summary
            SELECT type_id, unit_id, source_id, count(*), sum(is_repeat), min(start_date), max(end_date)
            FROM metric WHERE type_id IN (SELECT DISTINCT type_id FROM metric WHERE category_id != 0)
            GROUP BY type_id, unit_id, source_id;
        UPDATE metric_hour_state SET
            dirty_from = (SELECT min(start_date) FROM metric WHERE type_id = metric_hour_state.type_id),
            dirty_to = (SELECT max(end_date) FROM metric WHERE type_id = metric_hour_state.type_id)
            WHERE type_id IN (SELECT DISTINCT type_id FROM metric WHERE category_id != 0);
        """,
        // 7 → 8: the record kinds keep their tables' versions themselves (StoredKind), and an import's
        // new records are counted per kind.
        """
        CREATE TABLE kind_schema (kind TEXT PRIMARY KEY, version INTEGER NOT NULL);
        CREATE TABLE import_run_kind (
            run_id INTEGER NOT NULL REFERENCES import_run(id),
            kind TEXT NOT NULL,
            new_count INTEGER NOT NULL,
            PRIMARY KEY (run_id, kind)
        ) WITHOUT ROWID;
        """,
        // 8 → 9: Health Auto Export's pushes and files, a second source beside the export
        // (docs/store.md, "Two sources, each moment counted once").
        """
        -- 1 for a summarised bucket of Health Auto Export ("Summarize Data" on): its interval is its
        -- start and end dates. A push's rows are the ids hae_push names: no row is written twice to
        -- say where it came from.
        ALTER TABLE metric ADD COLUMN summary INTEGER NOT NULL DEFAULT 0;
        -- Why a pushed row is kept but not counted: 0 it counts; 1 it is before an export's
        -- ExportDate (the export is the truth there); 2 a summary with a counted individual sample
        -- of its type in its interval; 3 a summary of the same bucket pushed again later.
        ALTER TABLE metric ADD COLUMN superseded INTEGER NOT NULL DEFAULT 0;
        -- The summaries only, by type and time: the rule reads them, never the export's millions.
        CREATE INDEX metric_bucket ON metric(type_id, start_date) WHERE summary = 1;
        -- 'export' or 'health-auto-export'.
        ALTER TABLE import_run ADD COLUMN source_kind TEXT NOT NULL DEFAULT 'export';
        -- One row per push (or file) of Health Auto Export, in its import's transaction.
        CREATE TABLE hae_push (
            run_id INTEGER PRIMARY KEY REFERENCES import_run(id),
            received_at INTEGER NOT NULL,
            via TEXT NOT NULL,              -- push or file
            automation_name TEXT,
            automation_id TEXT,
            aggregation TEXT,
            period TEXT,
            session_id TEXT,
            first_metric_id INTEGER,        -- the rows this push added: ids first_metric_id…last_metric_id
            last_metric_id INTEGER,
            stored INTEGER NOT NULL,
            already INTEGER NOT NULL,
            not_kept INTEGER NOT NULL
        );
        -- The types with rows that do not count: their hour summary is not kept (aggregate reads
        -- their rows, which know what counts).
        CREATE TABLE superseded_type (type_id INTEGER PRIMARY KEY);
        """,
        // 9 → 10: every type has an hour summary, not only dense ones (issue 24). The types that had
        // none are marked dirty over their whole range: the next import builds their summary, and
        // until then queries read their rows.
        """
        UPDATE metric_hour_state SET summarised = 0,
            dirty_from = (SELECT min(first_start) FROM metric_summary s WHERE s.type_id = metric_hour_state.type_id),
            dirty_to = (SELECT max(last_end) FROM metric_summary s WHERE s.type_id = metric_hour_state.type_id)
            WHERE summarised < 0;
        """,
        // 10 → 11: one definition of what counts (CountedRows, docs/store.md "What counts"), and where
        // each row came from.
        """
        -- 0: an export's row; 1: a row pushed (or filed) by Health Auto Export. Before, a push's rows
        -- were the id range hae_push kept; an export's sample that matches a pushed one becomes the
        -- export's row (its creation date filled in), which a range cannot say.
        ALTER TABLE metric ADD COLUMN origin INTEGER NOT NULL DEFAULT 0;
        UPDATE metric SET origin = 1 WHERE id IN (
            SELECT m.id FROM hae_push p JOIN metric m ON m.id BETWEEN p.first_metric_id AND p.last_metric_id);
        -- The pushed rows by start: an export supersedes those before its date without reading its own.
        CREATE INDEX metric_pushed ON metric(start_date) WHERE origin = 1;
        -- Per (type, unit, source): the rows that count, the repeats and the superseded rows (kept,
        -- not counted), and the range of those not superseded; range_stale: a row at its edge left
        -- what counts, and the range is read again from the rows in the same transaction.
        DROP TABLE metric_summary;
        CREATE TABLE metric_summary (
            type_id INTEGER NOT NULL,
            unit_id INTEGER NOT NULL,
            source_id INTEGER NOT NULL,
            count INTEGER NOT NULL,
            repeats INTEGER NOT NULL,
            superseded INTEGER NOT NULL,
            first_start INTEGER,
            last_end INTEGER,
            range_stale INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (type_id, unit_id, source_id)
        ) WITHOUT ROWID;
        INSERT INTO metric_summary(type_id, unit_id, source_id, count, repeats, superseded, first_start, last_end)
            SELECT type_id, unit_id, source_id, sum(is_repeat = 0 AND superseded = 0), sum(is_repeat != 0 AND superseded = 0),
                   sum(superseded != 0), min(CASE WHEN superseded = 0 THEN start_date END), max(CASE WHEN superseded = 0 THEN end_date END)
            FROM metric GROUP BY type_id, unit_id, source_id;
        \(CountedRows.schema)
        -- The types whose hour summary was left to their rows (superseded_type) get one again: it
        -- counts what counts, like every reader.
        UPDATE metric_hour_state SET summarised = 0,
            dirty_from = (SELECT coalesce(min(s.first_start), 0) FROM metric_summary s WHERE s.type_id = metric_hour_state.type_id),
            dirty_to = (SELECT coalesce(max(s.last_end), 0) FROM metric_summary s WHERE s.type_id = metric_hour_state.type_id)
            WHERE type_id IN (SELECT type_id FROM superseded_type);
        DROP TABLE superseded_type;
        """,
        // 11 → 12: the store always on (docs/store.md, "Always on"): what serve's forwarding to a
        // target last did and will do, and the files of a watched folder, each known by content.
        """
        CREATE TABLE forwarding (
            target_id INTEGER PRIMARY KEY REFERENCES upload_target(id),
            every_seconds INTEGER NOT NULL,
            last_try_at INTEGER,
            last_success_at INTEGER,
            last_sent INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            last_error_at INTEGER,
            failures INTEGER NOT NULL DEFAULT 0,
            next_try_at INTEGER,
            pending INTEGER
        );
        CREATE TABLE watched_file (
            id INTEGER PRIMARY KEY,
            folder TEXT NOT NULL,
            name TEXT NOT NULL,
            size INTEGER NOT NULL,
            modified_at INTEGER NOT NULL,
            sha256 TEXT,
            outcome TEXT NOT NULL,
            problem TEXT,
            run_id INTEGER,
            seen_at INTEGER NOT NULL
        );
        CREATE INDEX watched_file_version ON watched_file(folder, name, size, modified_at);
        CREATE INDEX watched_file_content ON watched_file(sha256) WHERE outcome = 'imported';
        """,
        // 12 → 13: a summarised night of sleep is one more measure of its night, not a bucket that
        // segments replace (docs/aggregation.md, "Sleep"): the nights that segments superseded (2)
        // count again, and the night's rule weighs them (SleepNightRule). The trigger moves the counts.
        """
        UPDATE metric SET superseded = 0
        WHERE superseded = 2 AND summary = 1
          AND type_id IN (SELECT id FROM metric_type WHERE name = 'HKCategoryTypeIdentifierSleepAnalysis');
        """,
        // 13 → 14: what a server acknowledged is the account's that sent it, not the server's: an
        // upload with bob's token by mistake, then with alice's, sends alice everything (it said
        // "acknowledged before", and her metrics sat in bob's account). `account` is the token's
        // fingerprint (UploadAccount); a target from before has none, and is taken by the first
        // account that uploads to it after.
        """
        CREATE TABLE upload_target_14 (
            id INTEGER PRIMARY KEY,
            target TEXT NOT NULL,
            server TEXT NOT NULL,
            account TEXT,
            UNIQUE (target, server, account)
        );
        INSERT INTO upload_target_14(id, target, server) SELECT id, target, server FROM upload_target;
        DROP TABLE upload_target;
        ALTER TABLE upload_target_14 RENAME TO upload_target;
        """,
    ]

    static var currentVersion: Int { migrations.count }

    /// Runs the migrations after version `found` and records the current version, in the caller's
    /// transaction: an old store's upgrade, and a new store's whole schema (`NewStoreFile`).
    static func migrate(_ database: any StoreDatabase, from found: Int) throws {
        for step in found..<currentVersion { try database.execute(migrations[step]) }
        try database.execute("PRAGMA user_version = \(currentVersion)")
    }

    /// `metric.created_at` of a sample without a creation date (see migration 5).
    static let undated: Int64 = -62_167_219_201
}
