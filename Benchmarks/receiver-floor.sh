#!/usr/bin/env bash
# Where the PostgreSQL receiver's CPU per stored metric goes, layer by layer, and what PostgreSQL
# spends when it does nothing but keep the same rows (issue 34's target: 15 us a stored metric).
#
#   Benchmarks/receiver-floor.sh [--runs N] BINARY
#
# The bodies are the 100 MB store's upload (166,056 metrics, batches of 1,000) as BINARY's
# `upload` sends them, kept once (Benchmarks/cloudcare_bodies.py) and sent again on one connection
# to `serve --db postgres://`, on a fresh cluster each time:
#   started   serve started and stopped, nothing sent (serve's CPU)
#   unread    each body to a route that answers without reading it: HTTP alone (serve's CPU)
#   refused   each body read and mapped whole, then refused at its last metric's date: nothing
#             stored (serve's CPU)
#   stored    each body as sent (serve's CPU, and PostgreSQL's: the receiver's figure)
# Then PostgreSQL alone, on the stored run's cluster, with the rows it stored (psql scripts; the
# cluster's CPU only, autovacuum off):
#   copy-indexed  COPY straight into the patient's partition (its key and indexes), a transaction
#                 per 1,000 rows: what keeping a batch at once costs at the least
#   copy-journal  COPY into a table with no index, a transaction per 1,000 rows: a journal
#   merge         the journal into the emptied partition, one INSERT … SELECT … ON CONFLICT DO NOTHING
# Prints each run in us per metric, then the medians. The machine's speed drifts by up to 2x within
# minutes: compare the layers of one run, not runs of different moments. Exit status 0 = ran,
# 2 = could not run. Not part of the test suite.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/serve-lib.sh"
BENCH_DIR="${BENCH_DIR:-/tmp/cloudsync-bench}"
RUNS=3
die() { echo "receiver-floor.sh: $*" >&2; exit 2; }
while (($#)); do
    case "$1" in
        --runs) RUNS="${2:?}"; shift 2 ;;
        -*) die "unknown argument $1" ;;
        *) break ;;
    esac
done
(($# == 1)) || die "one binary"
BINARY="$(realpath "$1")"
[[ -x "$BINARY" ]] || die "no binary at $1"
[[ -x /usr/bin/time ]] || die "GNU time is not installed"
[[ -f "$BENCH_DIR/100/export.zip" ]] || die "no 100 MB export in $BENCH_DIR/100 (Benchmarks/serve-load.sh makes it)"

WORK="$BENCH_DIR/receiver-floor"
rm -rf "$WORK"; mkdir -p "$WORK/bodies"; chmod 777 "$WORK"
TOKEN="u1-token-0123456789abcdef"
echo "u1 $TOKEN" > "$WORK/tokens"; echo -n "$TOKEN" > "$WORK/u1.token"

# --- the bodies, as the uploader sends them ------------------------------------------------------------------------
"$BINARY" import "$BENCH_DIR/100/export.zip" --store "$WORK/up.store" --quiet || die "import failed"
python3 "$HERE/cloudcare_bodies.py" capture "$WORK/bodies" 0 > "$WORK/capture.out" 2>&1 &
capture=$!
for _ in $(seq 100); do grep -q ready "$WORK/capture.out" && break; sleep 0.05; done
port="$(awk '/ready/ { print $2 }' "$WORK/capture.out")"
[[ -n "$port" ]] || die "the capturing backend did not start: $WORK/capture.out"
"$BINARY" upload --store "$WORK/up.store" --server "http://127.0.0.1:$port/api/v1" --token-file "$WORK/u1.token" --quiet \
    || { kill "$capture"; die "the upload to the capturing backend failed"; }
kill "$capture"; wait "$capture" 2> /dev/null || true
METRICS="$(python3 -c "import glob, json; print(sum(len(json.load(open(f))['metrics']) for f in glob.glob('$WORK/bodies/*.json')))")"

# The cluster of each run, in the same place (pg_start sets the same; the runs are in subshells).
PG_DIR="$WORK/run/pg"
PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
AS_PG=(); [[ $(id -u) -eq 0 ]] && AS_PG=(runuser -u postgres --)
PSQL=("$PG_BIN/psql" -X -q -A -t -h "$PG_DIR" -U cloudsync -v ON_ERROR_STOP=1)

# serve_run MODE: one serve on a fresh cluster, the bodies sent in MODE (or none for started);
# prints "serve_cpu pg_cpu stored". The cluster keeps running after a stored run (pg_stop ends it).
serve_run() {
    local mode="$1" run="$WORK/run"
    pg_stop; rm -rf "$run"; mkdir -p "$run"; chmod 777 "$run"
    pg_start "$run/pg" || die "could not start PostgreSQL"
    "${PSQL[@]}" -d postgres -c "CREATE DATABASE received" > /dev/null
    /usr/bin/time -f '%U %S' -o "$run/serve.time" "$BINARY" serve --port 0 \
        --db "postgres://cloudsync@localhost/received?host=$run/pg" --tokens "$WORK/tokens" 2> "$run/serve.err" &
    local server=$!
    local port; port="$(serve_port "$run/serve.err")"
    [[ -n "$port" ]] || { pg_stop; die "serve did not start: $run/serve.err"; }
    local before after
    before="$(pg_cpu)"
    if [[ $mode != started ]]; then
        python3 "$HERE/cloudcare_bodies.py" replay "$WORK/bodies" "$port" "$TOKEN" "$mode" > "$run/replay.out" \
            || { pg_stop; die "sending the bodies failed"; }
    fi
    after="$(pg_cpu)"
    pkill -TERM -P "$server" || true
    wait "$server" || true
    local stored; stored="$("${PSQL[@]}" -d received -c "SELECT count(*) FROM metric")"
    [[ $mode == stored ]] || pg_stop
    local user system; read -r user system < "$run/serve.time"
    echo "$(echo "$user + $system" | bc) $(echo "$after - $before" | bc) $stored"
}

# pg_alone: PostgreSQL's CPU (seconds) for the copies and the merge of the stored run's rows.
pg_alone() {
    local db=("${PSQL[@]}" -d received)
    local partition; partition="$("${db[@]}" -c "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                                                  WHERE i.inhparent = 'metric'::regclass")"
    "${db[@]}" -c "\\copy (SELECT * FROM $partition ORDER BY id) TO '$WORK/rows.tsv'"
    "${db[@]}" -c "ALTER SYSTEM SET autovacuum = off" -c "SELECT pg_reload_conf()" > /dev/null
    "${db[@]}" -c "CREATE TABLE journal (LIKE $partition INCLUDING DEFAULTS)"
    # A script of transactions of 1,000 rows each into TABLE.
    script() {
        split -l 1000 -d -a 4 "$WORK/rows.tsv" "$WORK/chunk."
        for chunk in "$WORK"/chunk.*; do printf 'BEGIN;\nCOPY %s FROM STDIN;\n' "$1"; cat "$chunk"; printf '\\.\nCOMMIT;\n'; done
        rm -f "$WORK"/chunk.*
    }
    script "$partition" > "$WORK/copy-indexed.sql"
    script journal > "$WORK/copy-journal.sql"
    # cpu ARGS…: the cluster's CPU for one psql call, after a checkpoint (each starts from clean buffers).
    cpu() {
        "${db[@]}" -c "CHECKPOINT"; sleep 1
        local before after; before="$(pg_cpu)"
        "${db[@]}" "$@" > /dev/null
        sleep 1; after="$(pg_cpu)"
        echo "$after - $before" | bc
    }
    "${db[@]}" -c "TRUNCATE $partition"
    local indexed journal merge
    indexed="$(cpu -f "$WORK/copy-indexed.sql")"
    journal="$(cpu -f "$WORK/copy-journal.sql")"
    "${db[@]}" -c "TRUNCATE $partition"
    merge="$(cpu -c "INSERT INTO $partition SELECT * FROM journal ON CONFLICT DO NOTHING")"
    echo "$indexed $journal $merge"
}

us() { echo "($1) * 1000000 / $METRICS" | bc -l; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
columns=(started unread refused serve postgres total copy-indexed copy-journal merge)
for column in "${columns[@]}"; do : > "$WORK/$column.us"; done
echo "== $METRICS metrics in $(ls "$WORK/bodies" | wc -l) bodies; us a metric (CPU)"
for run in $(seq "$RUNS"); do
    read -r started _ _ <<< "$(serve_run started)"
    read -r unread _ _ <<< "$(serve_run unread)"
    read -r refused _ stored_refused <<< "$(serve_run refused)"
    read -r serve postgres stored <<< "$(serve_run stored)"
    ((stored == METRICS && stored_refused == 0)) || { pg_stop; die "stored $stored of $METRICS (refused run: $stored_refused)"; }
    read -r indexed journal merge <<< "$(pg_alone)"
    pg_stop
    values=("$(us "$started")" "$(us "$unread")" "$(us "$refused")" "$(us "$serve")" "$(us "$postgres")"
            "$(us "$serve + $postgres")" "$(us "$indexed")" "$(us "$journal")" "$(us "$merge")")
    line="run $run:"
    for i in "${!columns[@]}"; do
        echo "${values[$i]}" >> "$WORK/${columns[$i]}.us"
        line+="$(printf ' %s %.1f' "${columns[$i]}" "${values[$i]}")"
    done
    echo "$line"
done
line="median:"
for column in "${columns[@]}"; do line+="$(printf ' %s %.1f' "$column" "$(median < "$WORK/$column.us")")"; done
echo "$line"
echo "(started, unread, refused, serve: serve's CPU; postgres, copy-indexed, copy-journal, merge: PostgreSQL's; total: the receiver's)"
