#!/usr/bin/env bash
# A/B of two cloudsync binaries, interleaved, each run paired with a floor run right before it.
#
#   Benchmarks/ab.sh [--runs N] [--dir EXPORT_DIR] [--row import|reimport|convert] BEFORE AFTER
#
# The machine's speed drifts by up to 2x within minutes, and the single-threaded floor gains more from a
# quiet moment than our threads do: so each run of a binary is timed right after a floor run, and its
# ratio to that floor is what counts. The order of A and B alternates from one round to the next. Prints
# every pair, then the median ratios (wall time and CPU time, user + sys) and the worst peak RSS of
# each binary.
# EXPORT_DIR holds export.xml (for the floor) and export.zip (default: /tmp/cloudsync-bench/1024, made by
# Benchmarks/run.sh). The floor binary is built by run.sh as $BENCH_DIR/sax_floor.
set -euo pipefail
RUNS=5 DIR=/tmp/cloudsync-bench/1024 ROW=import
while [[ "$1" == --* ]]; do
    case "$1" in
        --runs) RUNS="$2" ;; --dir) DIR="$2" ;; --row) ROW="$2" ;;
        *) echo "ab.sh: unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
A="$1" B="$2"
FLOOR="${FLOOR:-$(dirname "$DIR")/sax_floor}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cat "$DIR/export.xml" "$DIR/export.zip" > /dev/null

# one BINARY NAME: prints "seconds kib" of one run of the row.
one() {
    local bin="$1" name="$2" store="$WORK/$2.store"
    case "$ROW" in
        import) rm -f "$store"* ;;
        reimport) [[ -f "$store" ]] || "$bin" import "$DIR/export.zip" --store "$store" --quiet ;;
    esac
    local cmd=("$bin" import "$DIR/export.zip" --store "$store" --quiet)
    [[ "$ROW" == convert ]] && cmd=("$bin" convert "$DIR/export.zip" --output /dev/null)
    /usr/bin/time -f '%e %M %U %S' -o "$WORK/time" "${cmd[@]}" 2> "$WORK/err" > /dev/null || { cat "$WORK/err" >&2; exit 1; }
    tail -n 1 "$WORK/time" | awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }'
}
# The floor's seconds and CPU seconds (user + sys).
floor() { /usr/bin/time -f '%e %U %S' -o "$WORK/ftime" "$FLOOR" "$DIR/export.xml" > /dev/null; tail -n 1 "$WORK/ftime" | awk '{ printf "%s %.2f\n", $1, $2 + $3 }'; }

declare -a RA RB CA CB
MA=0 MB=0
for ((run = 1; run <= RUNS; run++)); do
    order=(A B); ((run % 2 == 0)) && order=(B A)
    for which in "${order[@]}"; do
        read -r f fc < <(floor)
        if [[ "$which" == A ]]; then read -r s k c < <(one "$A" a); else read -r s k c < <(one "$B" b); fi
        r="$(awk -v s="$s" -v f="$f" 'BEGIN { printf "%.3f", s / f }')"
        cr="$(awk -v s="$c" -v f="$fc" 'BEGIN { printf "%.3f", s / f }')"
        echo "run $run $which: floor $f s ($fc s CPU), $ROW $s s ($c s CPU), ${r}x (CPU ${cr}x), $((k / 1024)) MiB"
        if [[ "$which" == A ]]; then RA+=("$r"); CA+=("$cr"); ((k > MA)) && MA=$k; else RB+=("$r"); CB+=("$cr"); ((k > MB)) && MB=$k; fi
    done
done
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
echo "A ($A): $ROW median $(median "${RA[@]}")x the floor, CPU $(median "${CA[@]}")x the floor's, peak RSS $((MA / 1024)) MiB"
echo "B ($B): $ROW median $(median "${RB[@]}")x the floor, CPU $(median "${CB[@]}")x the floor's, peak RSS $((MB / 1024)) MiB"
