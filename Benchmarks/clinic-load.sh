#!/usr/bin/env bash
# The clinic under load (issue 35, "Many instances, many phones"): PHONES patients each push a day of
# minute-level data (Health Auto Export, 4,320 samples) all at once, while one more patient uploads
# the 1 GB generated export (POST /api/v1/exports, zip, streamed), through nginx to two `serve`
# instances on one database.
#
#   Benchmarks/clinic-load.sh [--no-build] [--phones 50] [--rounds 3] [--postgres]
#
# Database: `serve --db FILE` (SQLite): each patient's store in FILE-patients/, both instances
# writing into it; with --postgres, `serve --db postgres://…` on a cluster of the benchmark's own
# (each patient's rows in the store's tables), a fresh database each round.
# Prints per round: pushes/s, p50/p95/max push latency, the export's upload time, and the servers'
# CPU (both instances, and PostgreSQL's with --postgres; user + sys) per stored metric, against
# `cloudsync import` of the same zip into a file (the target: no worse than twice).
# Exit status 0 = every push and the export stored whole, 1 = something was lost or refused,
# 2 = could not run. Not part of the test suite.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
source "$HERE/serve-lib.sh"
BENCH_DIR="${BENCH_DIR:-/tmp/cloudsync-bench}"
CLOUDSYNC="${CLOUDSYNC:-$ROOT/.build/release/cloudsync}"
BUILD=1 PHONES=50 ROUNDS=3 POSTGRES=0
die() { echo "clinic-load.sh: $*" >&2; exit 2; }
while (($#)); do
    case "$1" in
        --no-build) BUILD=0; shift ;;
        --phones) PHONES="${2:?}"; shift 2 ;;
        --rounds) ROUNDS="${2:?}"; shift 2 ;;
        --postgres) POSTGRES=1; shift ;;
        *) die "unknown argument $1" ;;
    esac
done
command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || die "nginx is not installed (scripts/install-system-packages.sh)"
[[ -x /usr/bin/time ]] || die "GNU time is not installed"
if ((BUILD)); then (cd "$ROOT" && swift build -c release --product cloudsync) >&2 || die "swift build failed"; fi
[[ -x "$CLOUDSYNC" ]] || die "no binary at $CLOUDSYNC"

EXPORT="$BENCH_DIR/1024/export.zip"
if [[ ! -f "$EXPORT" ]]; then
    echo "== generating the 1 GB export in $BENCH_DIR/1024" >&2
    python3 "$HERE/generate-export.py" --size-mb 1024 --seed 1 --out "$BENCH_DIR/1024" >&2
fi
WORK="$BENCH_DIR/clinic-load"
rm -rf "$WORK"; mkdir -p "$WORK"
for i in $(seq 0 "$PHONES"); do echo "patient$i patient$i-token-0123456789abcdef" >> "$WORK/tokens"; done
chmod 600 "$WORK/tokens"
CLK_TCK="$(getconf CLK_TCK)"
# CPU seconds (user + sys) of processes, by pid.
cpu() { for pid in "$@"; do awk '{ print $14 + $15 }' "/proc/$pid/stat"; done | awk -v t="$CLK_TCK" '{ s += $1 } END { printf "%.2f", s / t }'; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

SERVE_PIDS=() NGINX_PID=""
cleanup() {
    [[ -n "$NGINX_PID" ]] && kill "$NGINX_PID" 2>/dev/null
    for pid in "${SERVE_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    ((POSTGRES)) && pg_stop
}
trap cleanup EXIT
if ((POSTGRES)); then
    pg_start "$WORK/pg" || die "could not start PostgreSQL"
    psql_() { "$PG_BIN/psql" -X -q -A -t -h "$PG_DIR" -U cloudsync -d postgres -c "$1"; }
fi

# The reference: the same zip into a personal store.
/usr/bin/time -f '%e' -o "$WORK/import.time" "$CLOUDSYNC" import "$EXPORT" --store "$WORK/reference.sqlite" --quiet
IMPORT_SECONDS="$(cat "$WORK/import.time")"
rm -f "$WORK"/reference.sqlite*

FAIL=0
for ((round = 1; round <= ROUNDS; round++)); do
    dir="$WORK/round$round"; mkdir -p "$dir/nginx"
    SERVE_PIDS=() ports=()
    db="$dir/clinic.sqlite"
    if ((POSTGRES)); then
        psql_ "CREATE DATABASE clinic$round" || die "could not make the round's database"
        db="postgres://cloudsync@localhost/clinic$round?host=$PG_DIR"
        # Both instances start on a database whose tables the first one makes.
        "$CLOUDSYNC" serve --port 0 --db "$db" --tokens "$WORK/tokens" 2> "$dir/serve0.err" &
        SERVE_PIDS+=($!)
        [[ -n "$(serve_port "$dir/serve0.err")" ]] || die "serve 0 did not start: $(tail -n 3 "$dir/serve0.err")"
        "$CLOUDSYNC" serve --port 0 --db "$db" --tokens "$WORK/tokens" 2> "$dir/serve1.err" &
        SERVE_PIDS+=($!)
    else
        for i in 0 1; do
            "$CLOUDSYNC" serve --port 0 --db "$db" --tokens "$WORK/tokens" 2> "$dir/serve$i.err" &
            SERVE_PIDS+=($!)
        done
    fi
    for i in 0 1; do
        port="$(serve_port "$dir/serve$i.err")"
        [[ -n "$port" ]] || die "serve $i did not start: $(tail -n 3 "$dir/serve$i.err")"
        ports+=("$port")
    done
    nginx_port="$(free_port)"
    {
        echo "worker_processes 1; pid $dir/nginx/nginx.pid; error_log $dir/nginx/error.log warn;"
        echo "events { worker_connections 1024; }"
        echo "http { access_log off; client_body_temp_path $dir/nginx/body; proxy_temp_path $dir/nginx/proxy;"
        echo "  fastcgi_temp_path $dir/nginx/f; uwsgi_temp_path $dir/nginx/u; scgi_temp_path $dir/nginx/s;"
        # An export streams through: no size limit at nginx, and no copy of the body on its disk.
        echo "  client_max_body_size 0; proxy_request_buffering off; proxy_read_timeout 600s;"
        echo "  upstream serve { server 127.0.0.1:${ports[0]}; server 127.0.0.1:${ports[1]}; keepalive 32; }"
        echo "  server { listen 127.0.0.1:$nginx_port; location / { proxy_pass http://serve; proxy_http_version 1.1;"
        echo "    proxy_set_header Connection \"\"; } } }"
    } > "$dir/nginx/nginx.conf"
    nginx -e "$dir/nginx/error.log" -p "$dir/nginx" -c "$dir/nginx/nginx.conf" -g "daemon off;" &
    NGINX_PID=$!
    for _ in $(seq 100); do (echo > "/dev/tcp/127.0.0.1/$nginx_port") 2>/dev/null && break; sleep 0.05; done
    url="http://127.0.0.1:$nginx_port"
    before="$(cpu "${SERVE_PIDS[@]}")"
    pg_before=0; ((POSTGRES)) && pg_before="$(pg_cpu)"
    # The export of patient0, then the phones of the others a second later, beside it.
    /usr/bin/time -f '%e' -o "$dir/upload.time" curl -s -o "$dir/upload.json" -w '%{http_code}' -X POST -T "$EXPORT" \
        -H "Authorization: Bearer patient0-token-0123456789abcdef" -H "Content-Type: application/zip" "$url/api/v1/exports" \
        > "$dir/upload.status" &
    upload=$!
    sleep 1
    tail -n +2 "$WORK/tokens" > "$dir/phones.tokens"
    python3 "$HERE/clinic_phones.py" "$url" "$dir/phones.tokens" --phones "$PHONES" > "$dir/phones.json"
    wait "$upload"
    after="$(cpu "${SERVE_PIDS[@]}")"
    pg_used=0; ((POSTGRES)) && pg_used="$(awk -v a="$pg_before" -v b="$(pg_cpu)" 'BEGIN { printf "%.1f", b - a }')"
    python3 - "$dir" "$before" "$after" "$IMPORT_SECONDS" "$pg_used" <<'PY' || FAIL=1
import json, sys
d, before, after, imported, pg = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
phones = json.load(open(d + "/phones.json"))
status = open(d + "/upload.status").read().strip()
upload = json.load(open(d + "/upload.json")) if status == "201" else {}
seconds = float(open(d + "/upload.time").read().split()[-1])
stored = phones["stored"] + upload.get("stored", 0)
cpu_us = (after - before + pg) * 1e6 / max(stored, 1)
print(f"pushes {phones['pushes']} in {phones['seconds']} s = {phones['pushesPerSecond']}/s, p50 {phones['p50']} s, "
      f"p95 {phones['p95']} s, max {phones['max']} s, statuses {phones['statuses']}; export {status} in {seconds:.1f} s "
      f"({seconds / imported:.2f}x import's {imported:.1f} s), {upload.get('stored', 0)} metrics; servers' CPU {after - before:.1f} s"
      + (f" + PostgreSQL's {pg:.1f} s" if pg else "") + f" = {cpu_us:.1f} us per stored metric")
ok = status == "201" and phones["stored"] == phones["expected"] and phones["statuses"] == {"200": phones["pushes"]}
sys.exit(0 if ok else 1)
PY
    kill "$NGINX_PID"; NGINX_PID=""
    for pid in "${SERVE_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
done
exit "$FAIL"
