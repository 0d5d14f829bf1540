#!/usr/bin/env bash
# CloudSync benchmark: one run measures everything and says PASS or FAIL against the targets.
#
#   Benchmarks/run.sh [--size-mb N] [--small-mb N] [--big-mb N] [--runs N] [--no-build] [--no-peers] [--no-big]
#
# 1. swift build -c release
# 2. generates (once, cached in $BENCH_DIR/SIZE) an export of --size-mb (default 1024) and a --small-mb
#    (default 256) one; the small one shows whether memory stays flat as the input grows
# 3. compiles the floor: a libxml2 SAX parse that does nothing else (floor/sax_floor.c)
# 4. times each row on both exports with /usr/bin/time, --runs times (default 2), and prints seconds (best),
#    CPU time (user + sys) and its ratio to the floor's beside the wall-time ratio,
#    ratio to the floor, peak RSS (worst), metrics/s (counts.json's metrics / seconds). A row with a speed
#    target is paired: each of its runs on the --size-mb export comes right after a floor run, and its ratio
#    is the median of those pairs' ratios (the machine's speed drifts by up to 2x within minutes, and the
#    single-threaded floor gains more from a quiet moment than our threads do)
#
# 5. times `cloudsync import` against healthkit-to-sqlite (PyPI, installed in a virtual environment in
#    $BENCH_DIR) on the same 100 MB export
#
# 6. times `cloudsync upload` of that 100 MB export's store to a local `cloudsync serve` (metrics/s)
#    (--no-peers skips 5 and 6)
#
# The generated zip also holds one GPX route per outdoor workout (a point per second) and ECG CSVs, in
# Apple's layout: `convert --kind routes` is timed in points/s and MB/s of GPX, and `import` reads the
# whole archive (metrics, routes, ECGs, clinical records, beat series, correlations). `convert --kind
# beats` is timed in beats/s.
#
# 8. when the MCP Python SDK is in the repository's .venv (scripts/install-test-tools.sh), drives
#    `cloudsync mcp` on the store of the --size-mb export through it (Benchmarks/mcp_bench.py): p50/p95 per
#    tool, first answer, the server's peak RSS.
#
# 9. writes `cloudsync report` of the --size-mb export's store: seconds, peak RSS, bytes.
#
# 10. Health Auto Export (Benchmarks/generate-hae.py, made-up data, cached in $BENCH_DIR/hae): `import` of a
#    100 MB file into a fresh store (points/s; target >= 200,000), and pushes to `serve --store`: 50,000
#    points (target <= 1 s) and 50 MB (serve's peak RSS; target <= 256 MiB).
# 11. imports a --big-mb export (default 3072, zip only; generated once, which takes about 11 minutes) into a
#    new store: seconds and peak RSS (<= 96 MiB); then Benchmarks/series_bench.py times `series`,
#    `compare_periods` (MCP) and `aggregate` over all years for every type of that store: p95 <= 100 ms.
#    --no-big skips it.
#
# 12. Benchmarks/always_on_bench.py: the --size-mb import alone and with a push to `serve --store` every
#    100 ms, paired, --runs rounds: the import's time with pushes (target <= 1.2x alone) and the longest
#    wait of a push (target <= 1 s).
#
# 7. generates the --small-mb export again in iOS 8's dialect (no DTD, compact dates, metadata as
#    attributes, attribute names with spaces) and prints its `convert` time as a ratio to the floor on the
#    modern export of the same data (the floor cannot parse the iOS 8 file: it is not well-formed XML).
#
# Targets (issue 24): convert (zip) <= 1.3x the floor, peak RSS <= 64 MiB; import (zip) into a new store <= 1.5x
# the floor, peak RSS <= 96 MiB; the same import again <= 1.3x; import >= 20x faster than healthkit-to-sqlite. Exit status 0 = PASS, 1 = FAIL, 2 = could not run.
# Not part of the test suite: a run takes minutes and its numbers depend on the machine.
# CLOUDSYNC=/path/to/stand-in runs another binary (taking `convert INPUT --output FILE`) in place of the build.
# To add a row, add one `measure` line at the bottom.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
BENCH_DIR="${BENCH_DIR:-/tmp/cloudsync-bench}"
CLOUDSYNC="${CLOUDSYNC:-$ROOT/.build/release/cloudsync}"
SIZE_MB=1024 SMALL_MB=256 BIG_MB=3072 RUNS=2 BUILD=1 SEED=1 PEERS=1 BIG=1

die() { echo "run.sh: $*" >&2; exit 2; }
while (($#)); do
    case "$1" in
        --size-mb) SIZE_MB="${2:?}"; shift 2 ;;
        --small-mb) SMALL_MB="${2:?}"; shift 2 ;;
        --runs) RUNS="${2:?}"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --no-peers) PEERS=0; shift ;;
        --big-mb) BIG_MB="${2:?}"; shift 2 ;;
        --no-big) BIG=0; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument: $1 (try --help)" ;;
    esac
done
SIZES=("$SIZE_MB" "$SMALL_MB")

# --- tools: install what a fresh machine lacks (Debian package names) ------------------------------------------
need() {  # need COMMAND-OR-FILE PACKAGE
    if [[ "$1" == /* ]] && [[ -e "$1" ]] || command -v "$1" >/dev/null 2>&1; then return; fi
    command -v apt-get >/dev/null || die "$1 missing; install package $2"
    echo "installing $2 ..." >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2"; } >/dev/null \
        || die "could not install $2"
}
need /usr/bin/time time          # bash's `time` keyword cannot report peak RSS; GNU time's %M can
need cc gcc
need pkg-config pkg-config
need python3 python3
pkg-config --exists libxml-2.0 || need /usr/include/libxml2/libxml/parser.h libxml2-dev

# --- 1. build ----------------------------------------------------------------------------------------------------
if ((BUILD)); then
    echo "== swift build -c release" >&2
    (cd "$ROOT" && swift build -c release) >&2 || die "swift build failed"
fi
[[ -x "$CLOUDSYNC" ]] || die "no binary at $CLOUDSYNC"

# --- 2. exports, cached: regenerated only when the generator or its arguments change -----------------------------
mkdir -p "$BENCH_DIR"
for size in "${SIZES[@]}"; do
    dir="$BENCH_DIR/$size"
    stamp="$(sha256sum < "$HERE/generate-export.py" | cut -c1-16) seed=$SEED size=$size"
    if [[ -f "$dir/counts.json" && -f "$dir/export.xml" && -f "$dir/export.zip" \
          && "$(cat "$dir/.stamp" 2>/dev/null)" == "$stamp" ]]; then
        continue
    fi
    echo "== generating $size MiB export in $dir" >&2
    rm -f "$dir/.stamp"
    python3 "$HERE/generate-export.py" --size-mb "$size" --seed "$SEED" --out "$dir"
    echo "$stamp" > "$dir/.stamp"
done

# --- 3. the floor ------------------------------------------------------------------------------------------------
FLOOR="$BENCH_DIR/sax_floor"
if [[ ! -x "$FLOOR" || "$HERE/floor/sax_floor.c" -nt "$FLOOR" ]]; then
    # shellcheck disable=SC2046  # pkg-config output is meant to be split into flags
    cc -O2 $(pkg-config --cflags libxml-2.0) "$HERE/floor/sax_floor.c" -o "$FLOOR" $(pkg-config --libs libxml-2.0)
fi

json() { python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, c))' "$@"; }
# The floor counts start elements: if that differs from what the generator wrote, the cached file is damaged.
for size in "${SIZES[@]}"; do
    want="$(json "$BENCH_DIR/$size/counts.json" 'sum(elements.values())')"
    got="$("$FLOOR" "$BENCH_DIR/$size/export.xml")" || die "floor failed to parse $BENCH_DIR/$size/export.xml"
    [[ "$got" == "$want" ]] || die "$BENCH_DIR/$size/export.xml has $got elements, counts.json says $want: delete it"
    cat "$BENCH_DIR/$size/export.xml" "$BENCH_DIR/$size/export.zip" > /dev/null   # same warm page cache for all rows
done

# --- 4. measuring ------------------------------------------------------------------------------------------------
declare -A SECS RSS FAILED RATIO CPU_RATIO
ROWS=() VERDICTS=() FAIL=0
LOGS="$BENCH_DIR/logs"
mkdir -p "$LOGS"

# measure [--max-ratio X] [--max-rss MIB] NAME COMMAND...   ({dir} in COMMAND becomes the export's directory)
# The first row measured is the reference for ratios: keep the floor first.
measure() {
    local max_ratio="" max_rss=""
    while [[ "$1" == --max-* ]]; do
        case "$1" in --max-ratio) max_ratio="$2" ;; --max-rss) max_rss="$2" ;; esac
        shift 2
    done
    local name="$1"; shift
    ROWS+=("$name")
    local size run key log secs kib last
    for size in "${SIZES[@]}"; do
        key="$name@$size"
        log="$LOGS/${name//[^A-Za-z0-9]/_}-$size"
        local cmd=("${@//\{dir\}/$BENCH_DIR/$size}")
        echo "== $name, $size MiB: ${cmd[*]}" >&2
        local ratios=() cpu_ratios=() floor_secs="" floor_cpu=""
        for ((run = 1; run <= RUNS; run++)); do
            # Paired: a floor run right before this one, on the same export.
            if [[ -n "$max_ratio" && "$size" == "$SIZE_MB" ]]; then
                /usr/bin/time -f '%e %U %S' -o "$log.floor" "$FLOOR" "$BENCH_DIR/$size/export.xml" > /dev/null
                read -r floor_secs floor_cpu < <(tail -n 1 "$log.floor" | awk '{ printf "%s %.2f\n", $1, $2 + $3 }')
            fi
            if ! /usr/bin/time -f '%e %M %U %S' -o "$log.time" "${cmd[@]}" > "$log.out" 2> "$log.err"; then
                FAILED[$key]=1
                echo "   failed; last lines of $log.err:" >&2
                tail -n 5 "$log.err" | sed 's/^/   | /' >&2
                break
            fi
            local cpu
            read -r secs kib cpu < <(tail -n 1 "$log.time" | awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }')
            # Best time over the runs; for memory the worst, to be conservative.
            if [[ -z "${SECS[$key]:-}" ]] || awk -v a="$secs" -v b="${SECS[$key]}" 'BEGIN { exit !(a < b) }'; then
                SECS[$key]="$secs"
            fi
            if [[ -z "${RSS[$key]:-}" ]] || ((kib > RSS[$key])); then RSS[$key]="$kib"; fi
            last="$(tail -n 1 "$log.err" | cut -c1-100)"
            local paired=""
            if [[ -n "$floor_secs" ]]; then
                ratios+=("$(awk -v a="$secs" -v b="$floor_secs" 'BEGIN { printf "%.3f", a / b }')")
                cpu_ratios+=("$(awk -v a="$cpu" -v b="$floor_cpu" 'BEGIN { printf "%.3f", a / b }')")
                paired=", ${ratios[-1]}x the floor run before it ($floor_secs s); CPU $cpu s, ${cpu_ratios[-1]}x the floor's ($floor_cpu s)"
            fi
            echo "   run $run: ${secs} s, $((kib / 1024)) MiB$paired${last:+; stderr: $last}" >&2
        done
        if ((${#ratios[@]})); then
            RATIO[$key]="$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "%.2f", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')"
            CPU_RATIO[$key]="$(printf '%s\n' "${cpu_ratios[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "%.2f", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')"
        fi
    done
    # Verdicts, on both sizes: RSS must stay under the cap on the big input as on the small one.
    local ref="${ROWS[0]}"
    for size in "${SIZES[@]}"; do
        key="$name@$size"
        if [[ -n "${FAILED[$key]:-}" ]]; then
            VERDICTS+=("FAIL  $name ($size MiB): command failed, see $LOGS"); FAIL=1; continue
        fi
        # Speed is judged on the big export only: on the small one fixed costs weigh more and prove nothing.
        if [[ -n "$max_ratio" && "$size" != "$SIZE_MB" ]]; then
            :
        elif [[ -n "$max_ratio" && -z "${SECS[$ref@$size]:-}" ]]; then
            VERDICTS+=("FAIL  $name ($size MiB): no time for $ref to compare with"); FAIL=1
        elif [[ -n "$max_ratio" ]]; then
            local ratio="${RATIO[$key]}"
            if awk -v r="$ratio" -v m="$max_ratio" 'BEGIN { exit !(r <= m) }'; then
                VERDICTS+=("PASS  $name ($size MiB): ${ratio}x $ref (median of $RUNS paired runs) <= ${max_ratio}x; CPU ${CPU_RATIO[$key]}x its CPU time")
            else
                VERDICTS+=("FAIL  $name ($size MiB): ${ratio}x $ref (median of $RUNS paired runs) > ${max_ratio}x; CPU ${CPU_RATIO[$key]}x its CPU time"); FAIL=1
            fi
        fi
        if [[ -n "$max_rss" ]]; then
            local mib=$((RSS[$key] / 1024))
            if ((RSS[$key] <= max_rss * 1024)); then
                VERDICTS+=("PASS  $name ($size MiB): peak RSS $mib MiB <= $max_rss MiB")
            else
                VERDICTS+=("FAIL  $name ($size MiB): peak RSS $mib MiB > $max_rss MiB"); FAIL=1
            fi
        fi
    done
}

report() {
    local big="$SIZE_MB" small="$SMALL_MB" ref="${ROWS[0]}"
    local metrics; metrics="$(json "$BENCH_DIR/$big/counts.json" 'metrics["total"]')"
    local xml_mib; xml_mib="$(json "$BENCH_DIR/$big/counts.json" 'round(xml_bytes / 2**20)')"
    echo
    echo "CloudSync benchmark: $xml_mib MiB export.xml, $metrics metrics; best of $RUNS (x floor: median of paired runs where marked *); $(nproc) cores; $(date -u +%F)"
    printf '%-22s %9s %8s %10s %14s %12s\n' row seconds "x floor" "RSS MiB" "RSS @${small}MiB" "metrics/s"
    local name k
    for name in "${ROWS[@]}"; do
        k="$name@$big"
        if [[ -n "${FAILED[$k]:-}" || -z "${SECS[$k]:-}" ]]; then
            printf '%-22s %9s\n' "$name" failed; continue
        fi
        local small_rss="-"
        [[ -n "${RSS[$name@$small]:-}" && -z "${FAILED[$name@$small]:-}" ]] \
            && small_rss="$(awk -v k="${RSS[$name@$small]}" 'BEGIN { printf "%.1f", k / 1024 }')"
        awk -v n="$name" -v s="${SECS[$k]}" -v f="${SECS[$ref@$big]:-0}" -v r="${RSS[$k]}" -v sr="$small_rss" \
            -v m="$metrics" -v p="${RATIO[$k]:-}" 'BEGIN { printf "%-22s %9.2f %8s %10.1f %14s %12.0f\n", n, s,
                                     (p != "" ? p "*" : f > 0 ? sprintf("%.2f", s / f) : "-"), r / 1024, sr, (s > 0 ? m / s : 0) }'
    done
    echo
    printf '%s\n' "${VERDICTS[@]}"
    if ((FAIL)); then echo "VERDICT: FAIL"; else echo "VERDICT: PASS"; fi
}

# healthkit-to-sqlite against `cloudsync import`, on one 100 MB export, best of $RUNS each.
compare_with_healthkit_to_sqlite() {
    local dir="$BENCH_DIR/100" venv="$BENCH_DIR/hk-venv"
    if [[ ! -x "$venv/bin/healthkit-to-sqlite" ]]; then
        echo "== installing healthkit-to-sqlite from PyPI into $venv" >&2
        python3 -m venv "$venv" && "$venv/bin/pip" install -q healthkit-to-sqlite >&2 || die "could not install healthkit-to-sqlite"
    fi
    local stamp; stamp="$(sha256sum < "$HERE/generate-export.py" | cut -c1-16) seed=$SEED size=100"
    if [[ ! -f "$dir/export.zip" || "$(cat "$dir/.stamp" 2>/dev/null)" != "$stamp" ]]; then
        python3 "$HERE/generate-export.py" --size-mb 100 --seed "$SEED" --out "$dir" --no-xml >&2
        echo "$stamp" > "$dir/.stamp"
    fi
    local metrics; metrics="$(json "$dir/counts.json" 'metrics["total"]')"
    best() {  # best NAME COMMAND… : prints the best wall time of $RUNS runs, each on a fresh database
        local best="" secs run
        for ((run = 1; run <= RUNS; run++)); do
            rm -f "$dir"/compare.db*
            /usr/bin/time -f '%e' -o "$LOGS/compare.time" "$@" > "$LOGS/compare-$(basename "$1").out" 2>&1 || die "$* failed"
            secs="$(tail -n 1 "$LOGS/compare.time")"
            echo "   $(basename "$1") run $run: $secs s" >&2
            if [[ -z "$best" ]] || awk -v a="$secs" -v b="$best" 'BEGIN { exit !(a < b) }'; then best="$secs"; fi
        done
        echo "$best"
    }
    echo "== healthkit-to-sqlite vs cloudsync import, 100 MB export ($metrics metrics)" >&2
    local theirs ours
    theirs="$(best "$venv/bin/healthkit-to-sqlite" "$dir/export.zip" "$dir/compare.db")"
    ours="$(best "$CLOUDSYNC" import "$dir/export.zip" --store "$dir/compare.db" --quiet)"
    local speedup; speedup="$(awk -v a="$theirs" -v b="$ours" 'BEGIN { printf "%.1f", a / b }')"
    COMPARISON=$(printf 'healthkit-to-sqlite %.2f s (%.0f metrics/s), cloudsync import %.2f s (%.0f metrics/s): %sx faster' \
        "$theirs" "$(awk -v m="$metrics" -v s="$theirs" 'BEGIN { print m / s }')" \
        "$ours" "$(awk -v m="$metrics" -v s="$ours" 'BEGIN { print m / s }')" "$speedup")
    if awk -v x="$speedup" 'BEGIN { exit !(x >= 20) }'; then
        VERDICTS+=("PASS  import vs healthkit-to-sqlite (100 MiB): ${speedup}x >= 20x")
    else
        VERDICTS+=("FAIL  import vs healthkit-to-sqlite (100 MiB): ${speedup}x < 20x"); FAIL=1
    fi
}

# Upload throughput: the 100 MB export's store to a local `cloudsync serve`, batches of 1000.
measure_upload() {
    local dir="$BENCH_DIR/100" store="$BENCH_DIR/100/upload.store" received="$BENCH_DIR/100/received.sqlite"
    rm -f "$received"*
    "$CLOUDSYNC" serve --port 0 --db "$received" 2> "$LOGS/serve.err" &
    local serve=$! port=""
    for _ in $(seq 100); do
        port="$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$LOGS/serve.err" | grep -o '[0-9]*$' || true)"
        [[ -n "$port" ]] && break
        sleep 0.1
    done
    [[ -n "$port" ]] || { kill "$serve"; die "serve did not start"; }
    local metrics; metrics="$(json "$dir/counts.json" 'metrics["total"]')"
    local concurrency secs kib
    for concurrency in 1 2; do
        # A fresh store each time, so that everything is pending; the server's dedup absorbs the second run.
        rm -f "$store"*
        "$CLOUDSYNC" import "$dir/export.zip" --store "$store" --quiet || die "import for the upload benchmark failed"
        /usr/bin/time -f '%e %M' -o "$LOGS/upload.time" "$CLOUDSYNC" upload --store "$store" \
            --server "http://127.0.0.1:$port/api/v1" --no-token --concurrency "$concurrency" \
            --quiet 2> "$LOGS/upload.err" || { kill "$serve"; die "upload failed: $(tail -n 2 "$LOGS/upload.err")"; }
        read -r secs kib < <(tail -n 1 "$LOGS/upload.time")
        UPLOAD+=$(awk -v m="$metrics" -v s="$secs" -v k="$kib" -v c="$concurrency" \
            'BEGIN { printf "upload to a local serve, concurrency %d: %d metrics in %.2f s (%.0f metrics/s), peak RSS %.1f MiB\n", c, m, s, m / s, k / 1024 }')
        UPLOAD+=$'\n'
    done
    kill -TERM "$serve"; wait "$serve" || true
}

# --- the rows --------------------------------------------------------------------------------------------------
measure "floor (xml)" "$FLOOR" "{dir}/export.xml"
measure --max-ratio 1.3 --max-rss 64 "convert (zip)" "$CLOUDSYNC" convert "{dir}/export.zip" --output /dev/null
measure --max-rss 64 "convert (xml)" "$CLOUDSYNC" convert "{dir}/export.xml" --output /dev/null
measure --max-rss 64 "convert routes (zip)" "$CLOUDSYNC" convert "{dir}/export.zip" --kind routes --output /dev/null
measure --max-rss 64 "convert beats (zip)" "$CLOUDSYNC" convert "{dir}/export.zip" --kind beats --output /dev/null
# A fresh store for every run: the import of a whole export, not a re-import.
measure --max-ratio 1.5 --max-rss 96 "import (zip)" \
    bash -c 'rm -f "$1".store*; exec "$0" import "$1" --store "$1.store" --quiet' "$CLOUDSYNC" "{dir}/export.zip"
measure --max-ratio 1.3 --max-rss 96 "re-import (zip)" "$CLOUDSYNC" import "{dir}/export.zip" --store "{dir}/export.zip.store" --quiet
# 12. The store always on (issue 29): pushes to `serve --store` every 100 ms during the same import.
measure_always_on() {
    echo "== pushes during the import ($SIZE_MB MiB): Benchmarks/always_on_bench.py" >&2
    if python3 "$HERE/always_on_bench.py" --cloudsync "$CLOUDSYNC" --export "$BENCH_DIR/$SIZE_MB/export.zip" --runs "$RUNS" \
        > "$LOGS/always-on.out" 2>&1; then
        VERDICTS+=("PASS  pushes during the import ($SIZE_MB MiB): $(tail -n 1 "$LOGS/always-on.out")")
    else
        VERDICTS+=("FAIL  pushes during the import ($SIZE_MB MiB): $(tail -n 1 "$LOGS/always-on.out")"); FAIL=1
    fi
    sed 's/^/   /' "$LOGS/always-on.out" >&2
}
measure_always_on
COMPARISON=""
UPLOAD=""
if ((PEERS)); then
    compare_with_healthkit_to_sqlite
    measure_upload
fi

# The iOS 8 dialect of the small export: the same data, so the modern file's floor is its reference.
measure_ios8() {
    local dir="$BENCH_DIR/ios8-$SMALL_MB" best="" secs kib run
    local stamp; stamp="$(sha256sum < "$HERE/generate-export.py" | cut -c1-16) seed=$SEED size=$SMALL_MB ios8"
    if [[ ! -f "$dir/export.xml" || "$(cat "$dir/.stamp" 2>/dev/null)" != "$stamp" ]]; then
        echo "== generating the $SMALL_MB MiB export in iOS 8's dialect in $dir" >&2
        python3 "$HERE/generate-export.py" --size-mb "$SMALL_MB" --seed "$SEED" --out "$dir" --xml-only --dialect ios8 >&2
        echo "$stamp" > "$dir/.stamp"
    fi
    cat "$dir/export.xml" > /dev/null
    for ((run = 1; run <= RUNS; run++)); do
        /usr/bin/time -f '%e %M' -o "$LOGS/ios8.time" "$CLOUDSYNC" convert "$dir/export.xml" --output /dev/null \
            2> "$LOGS/ios8.err" || die "convert of the iOS 8 export failed: $(tail -n 2 "$LOGS/ios8.err")"
        read -r secs kib < <(tail -n 1 "$LOGS/ios8.time")
        echo "   iOS 8 run $run: $secs s, $((kib / 1024)) MiB; $(tail -n 1 "$LOGS/ios8.err" | cut -c1-120)" >&2
        if [[ -z "$best" ]] || awk -v a="$secs" -v b="$best" 'BEGIN { exit !(a < b) }'; then best="$secs"; fi
    done
    local metrics; metrics="$(json "$dir/counts.json" 'metrics["total"]')"
    grep -q "^cloudsync: $metrics metrics" "$LOGS/ios8.err" \
        || { VERDICTS+=("FAIL  iOS 8 export ($SMALL_MB MiB): not every metric converted ($(head -c 100 "$LOGS/ios8.err"))"); FAIL=1; }
    IOS8=$(awk -v s="$best" -v f="${SECS[floor (xml)@$SMALL_MB]}" -v m="${SECS[convert (xml)@$SMALL_MB]}" -v n="$metrics" -v k="$kib" \
        'BEGIN { printf "iOS 8 dialect of the %s MiB export: convert %.2f s (%d metrics), %.2fx the floor on the modern file of the same data (%.2f s; modern convert (xml) %.2fx), peak RSS %.1f MiB", "'"$SMALL_MB"'", s, n, s / f, f, m / f, k / 1024 }')
}
IOS8=""
measure_ios8

# The --big-mb export (zip only): the import's memory into a new store, and the summaries' speed on its store.
measure_big() {
    local dir="$BENCH_DIR/$BIG_MB" secs kib
    local stamp; stamp="$(sha256sum < "$HERE/generate-export.py" | cut -c1-16) seed=$SEED size=$BIG_MB"
    if [[ ! -f "$dir/export.zip" || "$(cat "$dir/.stamp" 2>/dev/null)" != "$stamp" ]]; then
        echo "== generating the $BIG_MB MiB export (zip only) in $dir" >&2
        rm -f "$dir/.stamp"
        python3 "$HERE/generate-export.py" --size-mb "$BIG_MB" --seed "$SEED" --out "$dir" --no-xml >&2
        echo "$stamp" > "$dir/.stamp"
    fi
    echo "== import (zip), $BIG_MB MiB, into a new store" >&2
    rm -f "$dir/export.zip.store"*
    /usr/bin/time -f '%e %M' -o "$LOGS/big.time" "$CLOUDSYNC" import "$dir/export.zip" --store "$dir/export.zip.store" --quiet \
        2> "$LOGS/big.err" || { VERDICTS+=("FAIL  import (zip, $BIG_MB MiB): $(tail -n 1 "$LOGS/big.err")"); FAIL=1; return; }
    read -r secs kib < <(tail -n 1 "$LOGS/big.time")
    local metrics; metrics="$(json "$dir/counts.json" 'metrics["total"]')"
    BIG_LINE=$(awk -v s="$secs" -v k="$kib" -v m="$metrics" -v b="$BIG_MB" \
        'BEGIN { printf "import (zip) of the %d MiB export into a new store: %d metrics in %.2f s (%.0f metrics/s), peak RSS %.1f MiB", b, m, s, m / s, k / 1024 }')
    if ((kib <= 96 * 1024)); then
        VERDICTS+=("PASS  import (zip, $BIG_MB MiB): peak RSS $((kib / 1024)) MiB <= 96 MiB")
    else
        VERDICTS+=("FAIL  import (zip, $BIG_MB MiB): peak RSS $((kib / 1024)) MiB > 96 MiB"); FAIL=1
    fi
    python3 "$HERE/series_bench.py" "$CLOUDSYNC" "$dir/export.zip.store" --calls 10 > "$LOGS/series.out" 2> "$LOGS/series.err" || true
    SERIES="$(cat "$LOGS/series.out")"
    if grep -q 'VERDICT: PASS' "$LOGS/series.out"; then
        VERDICTS+=("PASS  series, compare_periods, aggregate over all years, every type ($BIG_MB MiB store): p95 <= 100 ms")
    else
        VERDICTS+=("FAIL  series, compare_periods, aggregate over all years ($BIG_MB MiB store): see $LOGS/series.out"); FAIL=1
    fi
}
BIG_LINE="" SERIES=""
((BIG)) && measure_big

report
[[ -n "$BIG_LINE" ]] && echo "$BIG_LINE"
[[ -n "$SERIES" ]] && echo "$SERIES"
# Beats: the beat-to-beat lists of HRV records, `convert --kind beats` (export.xml read whole).
if [[ -n "${SECS[convert beats (zip)@$SIZE_MB]:-}" ]]; then
    awk -v s="${SECS[convert beats (zip)@$SIZE_MB]}" -v b="$(json "$BENCH_DIR/$SIZE_MB/counts.json" 'beats')" \
        -v n="$(json "$BENCH_DIR/$SIZE_MB/counts.json" 'elements["HeartRateVariabilityMetadataList"]')" \
        'BEGIN { printf "convert --kind beats: %d series, %d beats in %.2f s: %.0f beats/s\n", n, b, s, b / s }'
fi
[[ -n "$IOS8" ]] && echo "$IOS8"
if [[ -x "$ROOT/.venv/bin/python" ]] && "$ROOT/.venv/bin/python" -c "import mcp" 2>/dev/null \
    && [[ -f "$BENCH_DIR/$SIZE_MB/export.zip.store" ]]; then
    "$ROOT/.venv/bin/python" "$HERE/mcp_bench.py" "$CLOUDSYNC" "$BENCH_DIR/$SIZE_MB/export.zip.store" --calls 20 || true
fi
# The report of the --size-mb export's store: goals 5 s, 128 MiB, a file of at most 5 MB.
if [[ -f "$BENCH_DIR/$SIZE_MB/export.zip.store" ]]; then
    /usr/bin/time -f '%e %M' -o "$LOGS/report.time" "$CLOUDSYNC" report --store "$BENCH_DIR/$SIZE_MB/export.zip.store" \
        --tz Europe/Paris --output "$LOGS/report.html" 2> "$LOGS/report.err" || echo "report failed: $(tail -n 1 "$LOGS/report.err")"
    read -r secs kib < <(tail -n 1 "$LOGS/report.time")
    bytes="$(stat -c %s "$LOGS/report.html" 2>/dev/null || echo 0)"
    awk -v s="$secs" -v k="$kib" -v b="$bytes" 'BEGIN {
        ok = s <= 5 && k / 1024 <= 128 && b <= 5 * 1048576
        printf "%s  report (%d MiB store): %.2f s (<= 5 s), peak RSS %.0f MiB (<= 128 MiB), %.2f MB written (<= 5 MB)\n",
            ok ? "PASS" : "FAIL", '"$SIZE_MB"', s, k / 1024, b / 1048576 }'
fi
# Routes: points and MB of GPX per second of `convert --kind routes` (which also reads export.xml for the
# workouts the routes belong to).
if [[ -n "${SECS[convert routes (zip)@$SIZE_MB]:-}" ]]; then
    awk -v s="${SECS[convert routes (zip)@$SIZE_MB]}" \
        -v p="$(json "$BENCH_DIR/$SIZE_MB/counts.json" 'route_points')" \
        -v b="$(json "$BENCH_DIR/$SIZE_MB/counts.json" 'gpx_bytes')" \
        -v n="$(json "$BENCH_DIR/$SIZE_MB/counts.json" 'len(route_files)')" \
        'BEGIN { printf "convert --kind routes: %d routes, %d points, %.0f MiB of GPX in %.2f s: %.0f points/s, %.1f MiB/s of GPX\n", n, p, b / 1048576, s, p / s, b / 1048576 / s }'
fi
[[ -n "$COMPARISON" ]] && echo "$COMPARISON"
[[ -n "$UPLOAD" ]] && printf '%s' "$UPLOAD"

# --- 10. Health Auto Export: import of a 100 MB file, pushes of 50,000 points and of 50 MB -----------------------
measure_health_auto_export() {
    local dir="$BENCH_DIR/hae"
    mkdir -p "$dir"
    [[ -f "$dir/100.json" ]] || python3 "$HERE/generate-hae.py" --size-mb 100 --output "$dir/100.json" >&2
    [[ -f "$dir/50k.json" ]] || python3 "$HERE/generate-hae.py" --size-mb 6.4 --output "$dir/50k.json" --start 2025-01-01 --seed 2 >&2
    [[ -f "$dir/50mb.json" ]] || python3 "$HERE/generate-hae.py" --size-mb 50 --output "$dir/50mb.json" --start 2025-06-01 --seed 3 >&2
    local points secs kib
    points="$(python3 -c 'import json,sys; print(sum(len(m["data"]) for m in json.load(open(sys.argv[1]))["data"]["metrics"]))' "$dir/100.json")"
    rm -f "$dir/import.store"*
    /usr/bin/time -f '%e %M' -o "$LOGS/hae-import.time" "$CLOUDSYNC" import "$dir/100.json" --store "$dir/import.store" --quiet \
        2> "$LOGS/hae-import.err" || { echo "FAIL  import of Health Auto Export JSON: $(tail -n 1 "$LOGS/hae-import.err")"; FAIL=1; return; }
    read -r secs kib < <(tail -n 1 "$LOGS/hae-import.time")
    awk -v p="$points" -v s="$secs" -v k="$kib" 'BEGIN { ok = p / s >= 200000
        printf "%s  import Health Auto Export JSON (100 MB): %d points in %.2f s: %.0f points/s (>= 200,000), peak RSS %.0f MiB\n",
            ok ? "PASS" : "FAIL", p, s, p / s, k / 1024; exit !ok }' || FAIL=1
    rm -f "$dir/push.store"* "$dir/push-received.sqlite"*
    "$CLOUDSYNC" serve --port 0 --db "$dir/push-received.sqlite" --store "$dir/push.store" 2> "$LOGS/hae-serve.err" &
    local serve=$! port=""
    for _ in $(seq 100); do
        port="$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$LOGS/hae-serve.err" | grep -o '[0-9]*$' || true)"
        [[ -n "$port" ]] && break
        sleep 0.1
    done
    [[ -n "$port" ]] || { kill "$serve"; die "serve --store did not start"; }
    # No "Expect: 100-continue": curl would wait a second for an answer the app never asks for.
    local push50k
    push50k="$(curl -sS -o "$LOGS/hae-50k.out" -w '%{time_total}' -H 'Expect:' -H 'Content-Type: application/json' \
        --data-binary @"$dir/50k.json" "http://127.0.0.1:$port/health-auto-export")"
    curl -sS -o "$LOGS/hae-50mb.out" -H 'Expect:' -H 'Content-Type: application/json' \
        --data-binary @"$dir/50mb.json" "http://127.0.0.1:$port/health-auto-export" > /dev/null
    # serve's peak resident memory so far (its own, as the kernel counts it).
    kib="$(awk '/^VmHWM:/ { print $2 }' "/proc/$serve/status")"
    kill -TERM "$serve"; wait "$serve" || true
    local stored; stored="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stored"])' "$LOGS/hae-50k.out")"
    awk -v t="$push50k" -v n="$stored" 'BEGIN { ok = t <= 1 && n >= 50000
        printf "%s  push of %d points to serve --store: %.2f s (<= 1 s)\n", ok ? "PASS" : "FAIL", n, t; exit !ok }' || FAIL=1
    awk -v k="$kib" 'BEGIN { ok = k / 1024 <= 256
        printf "%s  push of 50 MB to serve --store: serve peak RSS %.0f MiB (<= 256 MiB)\n", ok ? "PASS" : "FAIL", k / 1024; exit !ok }' || FAIL=1
}
measure_health_auto_export
exit "$FAIL"
