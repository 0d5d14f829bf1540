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
