#!/usr/bin/env bash
# Scale: exports larger than 4 GB, in zip64 archives, convert and import in the same flat memory.
#
#   Benchmarks/scale.sh [--sizes-mb 256,4300,10240] [--no-build]
#
# Generates each size once as a zip only (cached in $BENCH_DIR/SIZE; the 10 GB one takes about 3
# minutes and 477 MB of disk), then runs, with /usr/bin/time:
#   cloudsync convert export.zip > /dev/null
#   cloudsync import export.zip --store NEW_STORE        (the store is deleted afterwards)
# and prints seconds, peak RSS and metrics/s per size. PASS when the peak RSS of each command at
# every size stays within 16 MiB of its figure at the first (smallest) size: memory does not grow.
# Exit status 0 = PASS, 1 = FAIL, 2 = could not run. Not part of the test suite (minutes, GBs).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
BENCH_DIR="${BENCH_DIR:-/tmp/cloudsync-bench}"
CLOUDSYNC="${CLOUDSYNC:-$ROOT/.build/release/cloudsync}"
SIZES_MB="256,4300,10240" BUILD=1 SEED=1 SLACK_KIB=$((16 * 1024))

die() { echo "scale.sh: $*" >&2; exit 2; }
while (($#)); do
    case "$1" in
        --sizes-mb) SIZES_MB="${2:?}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument: $1 (try --help)" ;;
    esac
done
IFS=, read -r -a SIZES <<< "$SIZES_MB"
[[ -x /usr/bin/time ]] || die "needs GNU time (apt-get install time)"

if ((BUILD)); then (cd "$ROOT" && swift build -c release) >&2 || die "swift build failed"; fi
[[ -x "$CLOUDSYNC" ]] || die "no binary at $CLOUDSYNC"

for size in "${SIZES[@]}"; do
    dir="$BENCH_DIR/$size"
    if [[ ! -f "$dir/export.zip" ]]; then
        echo "== generating a $size MiB export (zip only) in $dir" >&2
        mkdir -p "$dir"
        python3 "$HERE/generate-export.py" --size-mb "$size" --seed "$SEED" --out "$dir" --no-xml
    fi
done

# run NAME SIZE COMMAND... : prints "seconds peak_kib" and keeps stderr's last line
run() {
    local name="$1" size="$2"; shift 2
    local log="$BENCH_DIR/logs/scale-$name-$size"
    mkdir -p "$BENCH_DIR/logs"
    /usr/bin/time -f '%e %M' -o "$log.time" "$@" > /dev/null 2> "$log.err" \
        || die "$name on $size MiB failed: $(tail -n 2 "$log.err")"
    tail -n 1 "$log.time"
}

declare -A FIRST
status=0
printf '%-8s %-12s %12s %10s %12s %14s\n' "command" "export" "xml bytes" "seconds" "peak RSS" "metrics/s"
for size in "${SIZES[@]}"; do
    dir="$BENCH_DIR/$size"
    xml_bytes="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["xml_bytes"])' "$dir/counts.json")"
    store="$dir/scale-store.sqlite"
    rm -f "$store" "$store"-*
    cat "$dir/export.zip" > /dev/null   # warm page cache
    for name in convert import; do
        if [[ $name == convert ]]; then
            read -r secs kib < <(run convert "$size" "$CLOUDSYNC" convert "$dir/export.zip")
            metrics="$(grep -o '[0-9]* metrics' "$BENCH_DIR/logs/scale-convert-$size.err" | tail -n 1 | cut -d' ' -f1)"
        else
            read -r secs kib < <(run import "$size" "$CLOUDSYNC" import "$dir/export.zip" --store "$store")
        fi
        rate="$(awk -v m="$metrics" -v s="$secs" 'BEGIN { printf "%d", m / s }')"
        printf '%-8s %-12s %12s %10s %9d MiB %14s\n' "$name" "$size MiB" "$xml_bytes" "$secs" $((kib / 1024)) "$rate"
        if [[ -z "${FIRST[$name]:-}" ]]; then
            FIRST[$name]="$kib"
        elif ((kib > FIRST[$name] + SLACK_KIB)); then
            echo "FAIL  $name at $size MiB peaks at $((kib / 1024)) MiB, over $((FIRST[$name] / 1024)) + 16 MiB" >&2
            status=1
        fi
    done
    rm -f "$store" "$store"-* "$store.lock"
done
((status == 0)) && echo "PASS  peak memory of convert and import does not grow with the export" >&2
exit "$status"
