# Sourced by the benchmarks that start `cloudsync serve` (serve-load.sh, clinic-load.sh).

# serve_port ERR_FILE: the port a `serve --port 0` says it listens on in ERR_FILE, once it does (30 s
# at most); nothing when it did not start.
serve_port() {
    local port=""
    for _ in $(seq 600); do
        port="$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$1" | grep -o '[0-9]*$' || true)"
        [[ -n "$port" ]] && break; sleep 0.05
    done
    echo "$port"
}

# --- a PostgreSQL cluster of the benchmark's own, on a socket in PG_DIR (as `postgres` when run as root) -----------
# pg_start PG_DIR: initdb and start it (user `cloudsync`, trust on the socket); sets PG_BIN, PG_DIR, AS_PG.
# pg_stop: stops it. pg_cpu: CPU seconds (user + sys) it used so far: the postmaster, its live
# children, and its exited children.
pg_start() {
    PG_DIR="$1"
    PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
    [[ -x "$PG_BIN/initdb" ]] || { echo "PostgreSQL is not installed (scripts/install-system-packages.sh)" >&2; return 1; }
    AS_PG=()
    [[ $(id -u) -eq 0 ]] && AS_PG=(runuser -u postgres --)
    mkdir -p "$PG_DIR"; [[ $(id -u) -eq 0 ]] && chown postgres "$PG_DIR"
    "${AS_PG[@]}" "$PG_BIN/initdb" -D "$PG_DIR/data" -U cloudsync --auth=trust -E UTF8 > "$PG_DIR/initdb.log" 2>&1 \
        || { echo "initdb failed: $PG_DIR/initdb.log" >&2; return 1; }
    "${AS_PG[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w \
        -o "-k $PG_DIR -c listen_addresses='' -c max_connections=200 -c shared_buffers=256MB" start > /dev/null \
        || { echo "pg_ctl start failed: $PG_DIR/log" >&2; return 1; }
}
pg_stop() { [[ -n "${PG_DIR:-}" ]] && "${AS_PG[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w stop > /dev/null 2>&1 || true; }
pg_cpu() {
    local master; master="$(head -n 1 "$PG_DIR/data/postmaster.pid")"
    { awk '{ print $14 + $15 + $16 + $17 }' "/proc/$master/stat"
      for child in $(pgrep -P "$master"); do awk '{ print $14 + $15 }' "/proc/$child/stat" 2>/dev/null || true; done
    } | awk -v t="$(getconf CLK_TCK)" '{ s += $1 } END { printf "%.2f", s / t }'
}
