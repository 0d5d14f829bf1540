#!/usr/bin/env bash
# What a patient's export costs PostgreSQL, and what a bulk load would (issue 35, item 2; issue 34, item 5).
#
#   Benchmarks/pg-bulk.sh [--dir EXPORT_DIR] [--no-build]
#
# 1. `cloudsync import` of EXPORT_DIR/export.zip (default: the 1 GB export of Benchmarks/run.sh) into a
#    file, then into a patient's store on a PostgreSQL cluster of its own, one right after the other:
#    wall time of each, their ratio (issue 35's target: 2x), and the CPU PostgreSQL used.
# 2. Then, in that database, the same rows (the patient's metric table, copied) written again for a
#    second patient in four ways, each timed by PostgreSQL (psql's \timing, in a transaction rolled back):
#      A   today's statement, `INSERT … SELECT` into the metric table with its indexes, as the patient
#          (row-level security);
#      A2  the same, the rows sorted in the identity index's order first (its inserts then fall
#          on pages in cache, one after the other);
#      A3  the same without the identity index (what that index costs a row);
#      B   a table of the patient's own without indexes: `COPY`, then each index built by sort, then a
#          CHECK on the owner (what attaching it as a partition by owner would read);
#      C   `COPY` alone into a table without indexes or defaults (PostgreSQL's floor for these rows).
# 3. D: what a statement on one patient's rows costs to plan among 1,000 partitions by owner, through
#    row-level security alone and through a temporary view that names the owner.
# Not part of the test suite: a run takes minutes and its numbers depend on the machine.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
DIR=/tmp/cloudsync-bench/1024 BUILD=1
while (($#)); do
    case "$1" in
        --dir) DIR="${2:?}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "pg-bulk.sh: unknown argument: $1 (try --help)" >&2; exit 2 ;;
    esac
done
[[ -f "$DIR/export.zip" ]] || { echo "pg-bulk.sh: no $DIR/export.zip (Benchmarks/run.sh makes it)" >&2; exit 2; }
((BUILD)) && (cd "$ROOT" && swift build -c release >&2)
BIN="$ROOT/.build/release/cloudsync"
# shellcheck source=serve-lib.sh
source "$HERE/serve-lib.sh"
WORK="$(mktemp -d)"
[[ $(id -u) -eq 0 ]] && chmod 755 "$WORK"
trap 'pg_stop; rm -rf "$WORK"' EXIT
pg_start "$WORK/pg"
PSQL=("${AS_PG[@]}" "$PG_BIN/psql" -X -h "$WORK/pg" -U cloudsync -v ON_ERROR_STOP=1 -q)
"${AS_PG[@]}" "$PG_BIN/createdb" -h "$WORK/pg" -U cloudsync bench

/usr/bin/time -f '%e' -o "$WORK/file.time" "$BIN" import "$DIR/export.zip" --store "$WORK/file.store" --quiet
cpu0="$(pg_cpu)"
/usr/bin/time -f '%e' -o "$WORK/pg.time" "$BIN" import "$DIR/export.zip" --store "postgres://cloudsync@localhost/bench?host=$WORK/pg" \
    --user alice --quiet
sleep 1   # the import's backend ends after its client: counted once the postmaster has reaped it
file="$(tail -n 1 "$WORK/file.time")" pg="$(tail -n 1 "$WORK/pg.time")"
echo "import into a file: $file s; into PostgreSQL: $pg s ($(awk -v a="$pg" -v b="$file" 'BEGIN { printf "%.2f", a / b }')x;" \
     "PostgreSQL's CPU $(awk -v a="$(pg_cpu)" -v b="$cpu0" 'BEGIN { printf "%.1f", a - b }') s)"

columns="type_id, start_date, end_date, source_id, value, unit_id, category_id, device_id, source_version_id, extra, import_id, created_at, is_repeat, summary, superseded, origin"
identity="type_id, start_date, end_date, source_id, value, unit_id, category_id, created_at"
cat > "$WORK/bulk.sql" <<SQL
CREATE UNLOGGED TABLE src AS SELECT $columns FROM metric;
GRANT SELECT ON src TO cloudsync_patient;
COPY src TO '$WORK/pg/rows.txt';
SELECT set_config('cloudsync.owner', 'bob', false);
-- Bob's partition of the metric table (partitioned by owner), as his first write makes it.
CREATE TABLE metric_bob_rows (LIKE metric INCLUDING DEFAULTS);
ALTER TABLE metric ATTACH PARTITION metric_bob_rows FOR VALUES IN ('bob');
\\timing on
\\echo A: INSERT … SELECT into the metric table, as a patient
SET ROLE cloudsync_patient;
BEGIN; INSERT INTO metric($columns) SELECT * FROM src; ROLLBACK;
RESET ROLE;
\\echo A2: the same sorted in the identity order
SET ROLE cloudsync_patient;
BEGIN; INSERT INTO metric($columns) SELECT * FROM src ORDER BY $identity; ROLLBACK;
RESET ROLE;
\\echo A3: the same without the identity index
BEGIN; DROP INDEX metric_identity; INSERT INTO metric($columns) SELECT * FROM src; ROLLBACK;
\\echo B: COPY into a table of its own, then indexed by sort (primary key, identity, three partial indexes), a CHECK on the owner
BEGIN;
CREATE SEQUENCE bob_ids CACHE 8192;
CREATE TABLE metric_bob (LIKE metric INCLUDING DEFAULTS EXCLUDING IDENTITY);
ALTER TABLE metric_bob ALTER COLUMN id SET DEFAULT nextval('bob_ids');
COPY metric_bob($columns) FROM '$WORK/pg/rows.txt';
ALTER TABLE metric_bob ADD PRIMARY KEY (owner, id);
CREATE UNIQUE INDEX metric_bob_identity ON metric_bob(owner, $identity);
CREATE INDEX ON metric_bob(owner, type_id, start_date) WHERE summary = 1;
CREATE INDEX ON metric_bob(owner, start_date) WHERE origin = 1;
CREATE INDEX ON metric_bob(owner, type_id) WHERE created_at = -62167219201;
ALTER TABLE metric_bob ADD CONSTRAINT owner_is CHECK (owner = 'bob');
ROLLBACK;
\\echo C: COPY alone into a table without indexes or defaults
BEGIN; CREATE TABLE metric_c (LIKE src); COPY metric_c FROM '$WORK/pg/rows.txt'; ROLLBACK;
SQL
"${PSQL[@]}" bench -f "$WORK/bulk.sql" 2>&1 | grep -v '^$\|set_config\|^-\|^ bob\|row)'

# D: one patient's rows among 1,000 partitions by owner (issue 35's bulk load would give each patient
# a partition). Row-level security alone names the owner as `current_setting(…)`, which PostgreSQL
# prunes by only as the statement starts: it plans for every partition. A temporary view of the same
# name that names the owner as a constant (pg_temp comes first in the search path, so the store's
# SQL stays as it is) is pruned as it is planned.
cat > "$WORK/partitions.sql" <<'SQL'
CREATE ROLE d_owner;
GRANT CREATE ON SCHEMA public TO d_owner;
SET ROLE d_owner;
CREATE TABLE d (owner text COLLATE "C" NOT NULL DEFAULT current_setting('cloudsync.owner'), id bigint NOT NULL, x bigint NOT NULL,
                PRIMARY KEY (owner, id)) PARTITION BY LIST (owner);
ALTER TABLE d ENABLE ROW LEVEL SECURITY;
ALTER TABLE d FORCE ROW LEVEL SECURITY;
CREATE POLICY d_owner ON d USING (owner = current_setting('cloudsync.owner')) WITH CHECK (owner = current_setting('cloudsync.owner'));
DO $$ BEGIN FOR i IN 1..1000 LOOP EXECUTE format('CREATE TABLE d_%s PARTITION OF d FOR VALUES IN (%L)', i, 'p' || i); END LOOP; END $$;
SELECT set_config('cloudsync.owner', 'p7', false);
INSERT INTO d(id, x) SELECT g, g FROM generate_series(1, 1000) g;
SELECT count(*) FROM d WHERE x > 5;
\echo D: through row-level security alone
EXPLAIN (ANALYZE, SUMMARY) SELECT count(*) FROM d WHERE x > 5;
EXPLAIN (ANALYZE, SUMMARY) SELECT count(*) FROM d WHERE x > 5;
CREATE TEMPORARY VIEW d AS SELECT * FROM public.d WHERE owner = 'p7';
SELECT count(*) FROM d WHERE x > 5;
\echo D: through a temporary view that names the owner
EXPLAIN (ANALYZE, SUMMARY) SELECT count(*) FROM d WHERE x > 5;
EXPLAIN (ANALYZE, SUMMARY) SELECT count(*) FROM d WHERE x > 5;
INSERT INTO d(id, x) VALUES (1, 1) ON CONFLICT DO NOTHING;
UPDATE d SET x = 2 WHERE id = 1;
SQL
"${PSQL[@]}" bench -f "$WORK/partitions.sql" 2>&1 | grep '^D:\|Planning Time\|Subplans Removed\|^INSERT\|^UPDATE\|ERROR'
