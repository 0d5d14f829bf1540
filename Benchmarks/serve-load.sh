#!/usr/bin/env bash
# The receiving side under load: `cloudsync serve` on SQLite, on PostgreSQL, and four instances on
# one PostgreSQL database behind nginx, each with 1, 4 and 8 concurrent uploaders (one user each,
# each uploading the whole store of the 100 MB generated export).
#
#   Benchmarks/serve-load.sh [--no-build] [--uploaders "1 4 8"]
#
# Prints per row: metrics/s stored (all uploaders, first request to last answer), p50/p99 batch
# latency (the receivers' own request times, from their logs: the time a batch of 1000 took to be
# parsed and stored), peak RSS per instance, and the CPU seconds used by the receivers, PostgreSQL
# and the uploaders (what bounds throughput on this machine).
#
# Goals: four instances with eight uploaders store >= 2x the metrics/s of one SQLite serve with one
# uploader (measured in this run), p99 batch latency <= 250 ms, RSS <= 128 MiB per instance.
# Exit status 0 = PASS, 1 = FAIL, 2 = could not run. Not part of the test suite. PostgreSQL runs
# with its defaults (fsync and synchronous_commit on: an acknowledged batch is on disk).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
source "$HERE/serve-lib.sh"
BENCH_DIR="${BENCH_DIR:-/tmp/cloudsync-bench}"
CLOUDSYNC="${CLOUDSYNC:-$ROOT/.build/release/cloudsync}"
BUILD=1 UPLOADERS="1 4 8" SEED=1
die() { echo "serve-load.sh: $*" >&2; exit 2; }
while (($#)); do
    case "$1" in
        --no-build) BUILD=0; shift ;;
        --uploaders) UPLOADERS="${2:?}"; shift 2 ;;
        *) die "unknown argument $1" ;;
    esac
done
command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || die "nginx is not installed (scripts/install-system-packages.sh)"
[[ -x /usr/bin/time ]] || die "GNU time is not installed"

if ((BUILD)); then (cd "$ROOT" && swift build -c release --product cloudsync) >&2 || die "swift build failed"; fi
[[ -x "$CLOUDSYNC" ]] || die "no binary at $CLOUDSYNC"

# --- the 100 MB export's store, imported once; each uploader gets a fresh copy per run -------------------------
EXPORT_DIR="$BENCH_DIR/100"
stamp="$(sha256sum < "$HERE/generate-export.py" | cut -c1-16) seed=$SEED size=100"
if [[ ! -f "$EXPORT_DIR/export.zip" || "$(cat "$EXPORT_DIR/.stamp" 2>/dev/null)" != "$stamp" ]]; then
    echo "== generating the 100 MB export in $EXPORT_DIR" >&2
    python3 "$HERE/generate-export.py" --size-mb 100 --seed "$SEED" --out "$EXPORT_DIR" --no-xml >&2
    echo "$stamp" > "$EXPORT_DIR/.stamp"
fi
WORK="$BENCH_DIR/serve-load"
rm -rf "$WORK"; mkdir -p "$WORK"; chmod 777 "$WORK"
STORE="$WORK/pristine.store"
"$CLOUDSYNC" import "$EXPORT_DIR/export.zip" --store "$STORE" --quiet || die "import failed"
PENDING="$("$CLOUDSYNC" upload --store "$STORE" --server http://127.0.0.1:9/api/v1 --dry-run --no-token 2>&1 \
    | grep -o 'dry run: [0-9]* metrics' | grep -o '[0-9]*' || true)"
[[ -n "$PENDING" ]] || die "could not count what one upload sends"
for i in $(seq 8); do
    echo "user$i user$i-token-0123456789abcdef" >> "$WORK/tokens"
    echo -n "user$i-token-0123456789abcdef" > "$WORK/user$i.token"
done

# --- PostgreSQL: a cluster of the benchmark's own (serve-lib.sh) ------------------------------------------------
pg_start "$WORK/pg" || die "could not start PostgreSQL"
NGINX_PID="" SERVE_PIDS=()
cleanup() {
    [[ -n "$NGINX_PID" ]] && kill "$NGINX_PID" 2>/dev/null
    for pid in "${SERVE_PIDS[@]}"; do pkill -TERM -P "$pid" 2>/dev/null || true; done
    pg_stop
}
trap cleanup EXIT
PG_URL="postgres://cloudsync@localhost/received?host=$PG_DIR"
psql_() { "$PG_BIN/psql" -X -q -A -t -h "$PG_DIR" -U cloudsync -d "${2:-received}" -c "$1"; }
CLK_TCK="$(getconf CLK_TCK)"

# --- one row -------------------------------------------------------------------------------------------------------
ROWS=() FAIL=0 REFERENCE="" VERDICTS=()
# run NAME DB INSTANCES UPLOADERS
run() {
    local name="$1" db="$2" instances="$3" uploaders="$4" i
    local dir="$WORK/${name//[^A-Za-z0-9]/_}-$uploaders"; mkdir -p "$dir"
    # A new database for each row: the patients' stores start empty.
    [[ "$db" == postgres* ]] && { psql_ "DROP DATABASE IF EXISTS received" postgres; psql_ "CREATE DATABASE received" postgres; }
    local serves=() ports=()
    for ((i = 0; i < instances; i++)); do
        /usr/bin/time -f '%M %U %S' -o "$dir/serve$i.time" "$CLOUDSYNC" serve --port 0 --db "$db" --tokens "$WORK/tokens" \
            2> "$dir/serve$i.err" &
        serves+=($!)
        SERVE_PIDS+=($!)
    done
    for ((i = 0; i < instances; i++)); do
        local port; port="$(serve_port "$dir/serve$i.err")"
        [[ -n "$port" ]] || die "serve $i did not start in 30 s: $(tail -n 3 "$dir/serve$i.err")"
        ports+=("$port")
    done
    local url="http://127.0.0.1:${ports[0]}/api/v1"
    if ((instances > 1)); then
        local nginx_port; nginx_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
        mkdir -p "$dir/nginx"; chmod 777 "$dir/nginx"
        {
            echo "worker_processes 1; pid $dir/nginx/nginx.pid; error_log $dir/nginx/error.log warn;"
            echo "events { worker_connections 1024; }"
            echo "http { access_log off; client_body_temp_path $dir/nginx/body; proxy_temp_path $dir/nginx/proxy;"
            echo "  fastcgi_temp_path $dir/nginx/f; uwsgi_temp_path $dir/nginx/u; scgi_temp_path $dir/nginx/s;"
            echo "  client_max_body_size 64m; client_body_buffer_size 16m;"
            echo "  upstream serve {"; for port in "${ports[@]}"; do echo "    server 127.0.0.1:$port;"; done; echo "    keepalive 32; }"
            echo "  server { listen 127.0.0.1:$nginx_port; location / { proxy_pass http://serve; proxy_http_version 1.1;"
            echo "    proxy_set_header Connection \"\"; } } }"
        } > "$dir/nginx/nginx.conf"
        nginx -e "$dir/nginx/error.log" -p "$dir/nginx" -c "$dir/nginx/nginx.conf" -g "daemon off;" &
        NGINX_PID=$!
        for _ in $(seq 100); do (echo > "/dev/tcp/127.0.0.1/$nginx_port") 2>/dev/null && break; sleep 0.05; done
        url="http://127.0.0.1:$nginx_port/api/v1"
    fi
    for ((i = 1; i <= uploaders; i++)); do cp "$STORE" "$dir/up$i.store"; done
    local pg_before=0; [[ "$db" == postgres* ]] && pg_before="$(pg_cpu)"
    local started; started="$(date +%s.%N)"
    local uploads=()
    for ((i = 1; i <= uploaders; i++)); do
        /usr/bin/time -f '%U %S' -o "$dir/up$i.time" "$CLOUDSYNC" upload --store "$dir/up$i.store" --server "$url" \
            --token-file "$WORK/user$i.token" --quiet 2> "$dir/up$i.err" &
        uploads+=($!)
    done
    for i in "${!uploads[@]}"; do wait "${uploads[$i]}" || die "$name: upload $((i + 1)) failed: $(tail -n 2 "$dir/up$((i + 1)).err")"; done
    local ended; ended="$(date +%s.%N)"
    local pg_used="-"; [[ "$db" == postgres* ]] && pg_used="$(awk -v a="$pg_before" -v b="$(pg_cpu)" 'BEGIN { printf "%.1f", b - a }')"
    [[ -n "$NGINX_PID" ]] && { kill "$NGINX_PID"; wait "$NGINX_PID" 2>/dev/null || true; NGINX_PID=""; }
    # SIGTERM to serve itself (the child of GNU time), so that time writes its figures.
    for pid in "${serves[@]}"; do pkill -TERM -P "$pid"; done
    for pid in "${serves[@]}"; do wait "$pid" || true; done
    # Exactly once per user, whatever the path: the rows of the users' stores.
    local stored=0 patient
    if [[ "$db" == postgres* ]]; then stored="$(psql_ "SELECT count(*) FROM metric")"
    else for patient in "${db%.sqlite}"-patients/*.sqlite; do stored=$((stored + $(sqlite3 "$patient" "SELECT count(*) FROM metric"))); done; fi
    local expected=$((PENDING * uploaders))
    [[ "$stored" == "$expected" ]] || { VERDICTS+=("FAIL  $name x$uploaders: $stored metrics stored, expected $expected"); FAIL=1; }
    local seconds rate rss serve_cpu upload_cpu p50 p99
    seconds="$(awk -v a="$started" -v b="$ended" 'BEGIN { printf "%.2f", b - a }')"
    rate="$(awk -v m="$expected" -v s="$seconds" 'BEGIN { printf "%.0f", m / s }')"
    rss="$(cat "$dir"/serve*.time | awk '{ if ($1 > m) m = $1 } END { printf "%.0f", m / 1024 }')"
    serve_cpu="$(cat "$dir"/serve*.time | awk '{ s += $2 + $3 } END { printf "%.1f", s }')"
    upload_cpu="$(cat "$dir"/up*.time | awk '{ s += $1 + $2 } END { printf "%.1f", s }')"
    read -r p50 p99 < <(grep -ho 'apple-health 20[01] [0-9.]* ms' "$dir"/serve*.err | awk '{ print $3 }' | sort -n \
        | awk '{ v[NR] = $1 } END { if (NR == 0) { print "- -"; exit } i50 = int(NR * 0.50); i99 = int(NR * 0.99);
                if (i50 < 1) i50 = 1; if (i99 < 1) i99 = 1; print v[i50], v[i99] }')
    # The receiving side's CPU per stored metric (serve, and PostgreSQL when it is the database).
    local per_metric; per_metric="$(awk -v s="$serve_cpu" -v p="$pg_used" -v m="$expected" 'BEGIN { if (p == "-") p = 0; printf "%.1f", (s + p) * 1e6 / m }')"
    printf '%-28s %9s %8s s %10s /s %8s ms %8s ms %6s MiB %7s s %7s s %7s s %7s µs\n' "$name" "$uploaders" "$seconds" "$rate" \
        "$p50" "$p99" "$rss" "$serve_cpu" "$pg_used" "$upload_cpu" "$per_metric"
    [[ -z "$REFERENCE" ]] && REFERENCE="$rate"
    if [[ "$name" == "4 × PostgreSQL via nginx" && "$uploaders" == 8 ]]; then
        local ratio; ratio="$(awk -v a="$rate" -v b="$REFERENCE" 'BEGIN { printf "%.2f", a / b }')"
        if awk -v r="$ratio" 'BEGIN { exit !(r >= 2) }'; then VERDICTS+=("PASS  4 instances x8: ${ratio}x the metrics/s of one SQLite serve x1 (>= 2x)")
        else VERDICTS+=("FAIL  4 instances x8: ${ratio}x the metrics/s of one SQLite serve x1 (< 2x)"); FAIL=1; fi
        if awk -v p="$p99" 'BEGIN { exit !(p <= 250) }'; then VERDICTS+=("PASS  4 instances x8: p99 batch latency $p99 ms <= 250 ms")
        else VERDICTS+=("FAIL  4 instances x8: p99 batch latency $p99 ms > 250 ms"); FAIL=1; fi
    fi
    if ((rss > 128)); then VERDICTS+=("FAIL  $name x$uploaders: peak RSS $rss MiB > 128 MiB per instance"); FAIL=1; fi
}

echo "== $PENDING metrics per uploader (the 100 MB export's store), batches of 1000; $(nproc) cores"
printf '%-28s %9s %10s %13s %11s %11s %10s %9s %9s %9s %10s\n' "receiver" "uploaders" "wall" "stored" "p50" "p99" "RSS/inst" \
    "serve CPU" "pg CPU" "upl. CPU" "CPU/metric"
# The first row (one SQLite serve, one uploader) is the reference.
for uploaders in $UPLOADERS; do run "SQLite serve" "$WORK/sqlite-$uploaders.sqlite" 1 "$uploaders"; done
for uploaders in $UPLOADERS; do run "PostgreSQL serve" "$PG_URL" 1 "$uploaders"; done
for uploaders in $UPLOADERS; do run "4 × PostgreSQL via nginx" "$PG_URL" 4 "$uploaders"; done
echo
[[ " $UPLOADERS " == *" 8 "* ]] || VERDICTS+=("(the goals are judged on the 8-uploader row, not measured in this run)")
printf '%s\n' "${VERDICTS[@]}"
if ((FAIL)); then echo "VERDICT: FAIL"; exit 1; fi
echo "VERDICT: PASS"
