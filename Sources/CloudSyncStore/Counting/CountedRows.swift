/// What counts: the one definition every reader of metrics uses (docs/store.md, "What counts").
///
/// A stored row counts unless it is a repeat (alike a row stored before it but for its creation
/// date: `is_repeat`) or superseded (pushed by Health Auto Export where another source is the truth:
/// `superseded`, with its reason). Both kinds of row are kept, and shown as such (`status` counts
/// them by reason), never counted.
///
/// The schema says it once (schema 11): the views `counted_metric` (each sample once) and
/// `counted_metric_with_repeats` (`--count-repeats`), and `metric_summary`'s counts, which the import
/// adds as it inserts each row with its flags and which the trigger `metric_counting` moves when a
/// row's flags change later (a bucket pushed again, an export that supersedes pushed rows). Every
/// query reads metrics through `rows(countingRepeats:)`, never `metric` with a filter of its own;
/// the MCP `sql` tool's `metrics` view is `counted_metric` too.
package enum CountedRows {
    /// Each sample once: what `status`, `aggregate`, `export`, `upload`, the MCP tools and `report` count.
    static let view = "counted_metric"
    /// The rows that count and their repeats: what `--count-repeats` counts.
    static let viewWithRepeats = "counted_metric_with_repeats"

    static func rows(countingRepeats: Bool) -> String { countingRepeats ? viewWithRepeats : view }

    /// The schema of the definition (migration 11): the views, and the trigger that keeps
    /// `metric_summary` and the hour summary's dirty ranges in step with a row whose flags change.
    static let schema = """
        CREATE VIEW counted_metric AS SELECT * FROM metric WHERE is_repeat = 0 AND superseded = 0;
        CREATE VIEW counted_metric_with_repeats AS SELECT * FROM metric WHERE superseded = 0;
        CREATE TRIGGER metric_counting AFTER UPDATE OF is_repeat, superseded ON metric
        WHEN (OLD.is_repeat = 0 AND OLD.superseded = 0) != (NEW.is_repeat = 0 AND NEW.superseded = 0)
          OR (OLD.superseded = 0) != (NEW.superseded = 0)
        BEGIN
            UPDATE metric_summary SET
                count = count + (NEW.is_repeat = 0 AND NEW.superseded = 0) - (OLD.is_repeat = 0 AND OLD.superseded = 0),
                repeats = repeats + (NEW.is_repeat != 0 AND NEW.superseded = 0) - (OLD.is_repeat != 0 AND OLD.superseded = 0),
                superseded = superseded + (NEW.superseded != 0) - (OLD.superseded != 0),
                first_start = CASE WHEN NEW.superseded = 0 THEN min(coalesce(first_start, NEW.start_date), NEW.start_date) ELSE first_start END,
                last_end = CASE WHEN NEW.superseded = 0 THEN max(coalesce(last_end, NEW.end_date), NEW.end_date) ELSE last_end END,
                range_stale = range_stale OR (OLD.superseded = 0 AND NEW.superseded != 0
                                              AND (OLD.start_date <= first_start OR OLD.end_date >= last_end))
            WHERE type_id = OLD.type_id AND unit_id = OLD.unit_id AND source_id = OLD.source_id;
            UPDATE metric_hour_state SET dirty_from = min(coalesce(dirty_from, OLD.start_date), OLD.start_date),
                                         dirty_to = max(coalesce(dirty_to, OLD.end_date), OLD.end_date)
            WHERE type_id = OLD.type_id;
        END;
        """

    /// The same trigger in PostgreSQL's words (`PostgresStoreSchema` adds it): a function and a row
    /// trigger; a comparison is a boolean there, turned into 0 or 1 (`::int`) where SQLite adds it,
    /// and the two-value `min` and `max` are `LEAST` and `GREATEST`. The rows it updates are the
    /// owner's: row-level security applies inside it. `StoreEnginesTests` changes flags on both
    /// engines and compares what the two triggers left.
    static let postgresTrigger = [
        """
        CREATE FUNCTION metric_counting() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE metric_summary SET
                count = count + (NEW.is_repeat = 0 AND NEW.superseded = 0)::int - (OLD.is_repeat = 0 AND OLD.superseded = 0)::int,
                repeats = repeats + (NEW.is_repeat != 0 AND NEW.superseded = 0)::int - (OLD.is_repeat != 0 AND OLD.superseded = 0)::int,
                superseded = superseded + (NEW.superseded != 0)::int - (OLD.superseded != 0)::int,
                first_start = CASE WHEN NEW.superseded = 0 THEN LEAST(coalesce(first_start, NEW.start_date), NEW.start_date) ELSE first_start END,
                last_end = CASE WHEN NEW.superseded = 0 THEN GREATEST(coalesce(last_end, NEW.end_date), NEW.end_date) ELSE last_end END,
                range_stale = (range_stale != 0 OR (OLD.superseded = 0 AND NEW.superseded != 0
                                                    AND (OLD.start_date <= first_start OR OLD.end_date >= last_end)))::int
            WHERE type_id = OLD.type_id AND unit_id = OLD.unit_id AND source_id = OLD.source_id;
            UPDATE metric_hour_state SET dirty_from = LEAST(coalesce(dirty_from, OLD.start_date), OLD.start_date),
                                         dirty_to = GREATEST(coalesce(dirty_to, OLD.end_date), OLD.end_date)
            WHERE type_id = OLD.type_id;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER metric_counting AFTER UPDATE OF is_repeat, superseded ON metric FOR EACH ROW
        WHEN ((OLD.is_repeat = 0 AND OLD.superseded = 0) != (NEW.is_repeat = 0 AND NEW.superseded = 0)
              OR (OLD.superseded = 0) != (NEW.superseded = 0))
        EXECUTE FUNCTION metric_counting()
        """,
    ]

    /// The ranges that a row leaving what counts may have narrowed (`range_stale`), read again from
    /// the rows of their type, unit and source; in the caller's transaction. Rare: only superseding
    /// the first or last row of a source does it.
    static func refreshStaleRanges(in database: any StoreDatabase) throws {
        try database.execute("""
            UPDATE metric_summary SET
                first_start = (SELECT min(m.start_date) FROM counted_metric_with_repeats m WHERE m.type_id = metric_summary.type_id
                               AND m.unit_id = metric_summary.unit_id AND m.source_id = metric_summary.source_id),
                last_end = (SELECT max(m.end_date) FROM counted_metric_with_repeats m WHERE m.type_id = metric_summary.type_id
                            AND m.unit_id = metric_summary.unit_id AND m.source_id = metric_summary.source_id),
                range_stale = 0
            WHERE range_stale = 1
            """)
    }

    /// Every count read again from the rows, and every type's hours marked to be built again: what
    /// an import does when its counts went wrong (never seen: see `MetricWriter.flushChunk`). In
    /// the caller's transaction.
    static func recountAll(in database: any StoreDatabase) throws {
        try database.execute("""
            DELETE FROM metric_summary;
            INSERT INTO metric_summary(type_id, unit_id, source_id, count, repeats, superseded, first_start, last_end)
                SELECT type_id, unit_id, source_id, sum(CASE WHEN is_repeat = 0 AND superseded = 0 THEN 1 ELSE 0 END),
                       sum(CASE WHEN is_repeat != 0 AND superseded = 0 THEN 1 ELSE 0 END),
                       sum(CASE WHEN superseded != 0 THEN 1 ELSE 0 END), min(CASE WHEN superseded = 0 THEN start_date END), max(CASE WHEN superseded = 0 THEN end_date END)
                FROM metric GROUP BY type_id, unit_id, source_id;
            UPDATE metric_hour_state SET summarised = 0,
                dirty_from = (SELECT coalesce(min(s.first_start), 0) FROM metric_summary s WHERE s.type_id = metric_hour_state.type_id),
                dirty_to = (SELECT coalesce(max(s.last_end), 0) FROM metric_summary s WHERE s.type_id = metric_hour_state.type_id);
            """)
    }
}
