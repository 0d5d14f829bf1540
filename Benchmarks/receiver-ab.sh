#!/usr/bin/env bash
# A/B of two cloudsync binaries as the PostgreSQL receiver, in pairs: each run uploads the 100 MB
# export's store (166,056 metrics, batches of 1,000) from one uploader into `serve --db postgres://`
# on a fresh database, and measures the CPU that serve and PostgreSQL spent per stored metric.
#
#   Benchmarks/receiver-ab.sh [--runs N] [--log DIR] [--as-owner] BEFORE AFTER
#
# The machine's speed drifts by up to 2x within minutes: the two binaries alternate, each pair run
# one right after the other (which of them goes first alternates too), and the medians of the pairs
# are what counts. Prints every run (wall, serve's and PostgreSQL's CPU, microseconds per stored
# metric), then each binary's median. `--log DIR`: PostgreSQL logs every statement with its
# duration (`log_min_duration_statement = 0`), and each run's log is kept in DIR. `serve` connects
# as the cluster's superuser (it acts as `cloudsync_patient` for the patient, and copies new rows
# straight into the patient's partition: OwnerPartitions.straightCopyTarget); `--as-owner`: as a role
# that owns the database and nothing more, as docs/serve.md deploys it (the statement's way).
# Issue 34's target: 15 us of CPU per stored metric. Exit status 0 = ran, 2 = could not run.
# Not part of the test suite.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/serve-lib.sh"
BENCH_DIR="${BENCH_DIR:-/tmp/cloudsync-bench}"
RUNS=3 LOG_DIR="" AS_OWNER=0
die() { echo "receiver-ab.sh: $*" >&2; exit 2; }
while (($#)); do
    case "$1" in
        --runs) RUNS="${2:?}"; shift 2 ;;
        --log) LOG_DIR="${2:?}"; shift 2 ;;
        --as-owner) AS_OWNER=1; shift ;;
        -*) die "unknown argument $1" ;;
        *) break ;;
    esac
done
(($# == 2)) || die "two binaries, BEFORE and AFTER"
A="$(realpath "$1")" B="$(realpath "$2")"
[[ -x "$A" && -x "$B" ]] || die "no binary at $A or $B"
[[ -x /usr/bin/time ]] || die "GNU time is not installed"
[[ -f "$BENCH_DIR/100/export.zip" ]] || die "no 100 MB export in $BENCH_DIR/100 (Benchmarks/serve-load.sh makes it)"
[[ -n "$LOG_DIR" ]] && mkdir -p "$LOG_DIR"

WORK="$BENCH_DIR/receiver-ab"
rm -rf "$WORK"; mkdir -p "$WORK"; chmod 777 "$WORK"
# The store to upload, made once by BEFORE: both binaries send the same rows.
"$A" import "$BENCH_DIR/100/export.zip" --store "$WORK/pristine.store" --quiet || die "import failed"
echo "u1 u1-token-0123456789abcdef" > "$WORK/tokens"
echo -n "u1-token-0123456789abcdef" > "$WORK/u1.token"

# one BINARY NAME: one upload into a fresh cluster; prints "wall serve_cpu pg_cpu metrics".
one() {
    local binary="$1" name="$2" run="$WORK/run"
    rm -rf "$run"; mkdir -p "$run"; chmod 777 "$run"
    pg_start "$run/pg" || die "could not start PostgreSQL"
    local psql=("$PG_BIN/psql" -X -q -A -t -h "$run/pg" -U cloudsync)
    local role=cloudsync
    if ((AS_OWNER)); then
        role=clinic
        "${psql[@]}" -d postgres -c "CREATE ROLE clinic LOGIN" > /dev/null
        "${psql[@]}" -d postgres -c "CREATE DATABASE received OWNER clinic" > /dev/null
    else
        "${psql[@]}" -d postgres -c "CREATE DATABASE received" > /dev/null
    fi
    if [[ -n "$LOG_DIR" ]]; then
        "${psql[@]}" -d postgres -c "ALTER SYSTEM SET log_min_duration_statement = 0" -c "SELECT pg_reload_conf()" > /dev/null
    fi
    /usr/bin/time -f '%U %S' -o "$run/serve.time" "$binary" serve --port 0 \
        --db "postgres://$role@localhost/received?host=$run/pg" --tokens "$WORK/tokens" 2> "$run/serve.err" &
    local server=$!
    local port; port="$(serve_port "$run/serve.err")"
    [[ -n "$port" ]] || { pg_stop; die "serve did not start: $run/serve.err"; }
    cp "$WORK/pristine.store" "$run/up.store"
    local before after start end
    before="$(pg_cpu)"; start="$(date +%s.%N)"
    "$binary" upload --store "$run/up.store" --server "http://127.0.0.1:$port/api/v1" --token-file "$WORK/u1.token" --quiet \
        || { pg_stop; die "the upload failed"; }
    end="$(date +%s.%N)"; after="$(pg_cpu)"
    pkill -TERM -P "$server" || true
    wait "$server" || true
    local stored; stored="$("${psql[@]}" -d received -c "SELECT count(*) FROM metric")"
    pg_stop
    [[ -n "$LOG_DIR" ]] && cp "$run/pg/log" "$LOG_DIR/$name.log"
    local user system; read -r user system < "$run/serve.time"
    echo "$(echo "$end - $start" | bc) $(echo "$user + $system" | bc) $(echo "$after - $before" | bc) $stored"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: > "$WORK/A.us"; : > "$WORK/B.us"
for run in $(seq "$RUNS"); do
    order="A B"; ((run % 2 == 0)) && order="B A"
    for side in $order; do
        binary="$A"; [[ $side == B ]] && binary="$B"
        read -r wall serve pg stored <<< "$(one "$binary" "run$run-$side")"
        us="$(echo "($serve + $pg) * 1000000 / $stored" | bc -l)"
        printf 'run %d %s: wall %.2f s, %d metrics stored, serve %.2f s, PostgreSQL %.2f s, %.1f us a stored metric\n' \
            "$run" "$side" "$wall" "$stored" "$serve" "$pg" "$us"
        echo "$us" >> "$WORK/$side.us"
    done
done
printf 'A (%s): median %.1f us a stored metric\n' "$A" "$(median < "$WORK/A.us")"
printf 'B (%s): median %.1f us a stored metric\n' "$B" "$(median < "$WORK/B.us")"
