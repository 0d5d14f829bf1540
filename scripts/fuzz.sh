#!/usr/bin/env bash
# Fuzzes the byte pipeline (zip, DTD stripper, control filter, libxml2, mapping, JSON) and the date
# and number parsers with libFuzzer, for a bounded time each, under AddressSanitizer.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [FuzzExport|FuzzParsers ...]     (default: 60, both)
#
# Inputs that take over 10 s or 2 GB count as crashes, so hangs and memory blow-ups are caught too.
# A crash is saved as Fuzz/crashes/<target>-crash-<sha1> and the script exits non-zero. Once it is
# fixed, move the file into Fuzz/regressions/<target>/: the test suite replays every file there.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds="${1:-60}"
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(FuzzExport FuzzParsers)

scratch=.build-fuzz
# lld: gold fails on these links ("internal error in format_file_lineno").
flags=(--scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -use-ld=lld)
mkdir -p Fuzz/crashes
status=0
for target in "${targets[@]}"; do
    case "$target" in
        FuzzExport) name=export ;;
        FuzzParsers) name=parsers ;;
        *) echo "fuzz.sh: unknown target '$target' (FuzzExport or FuzzParsers)" >&2; exit 64 ;;
    esac
    echo "== building $target with -sanitize=fuzzer,address" >&2
    swift build "${flags[@]}" --product "$target" 2>&1 | grep -v "Cannot export local symbol" >&2
    binary="$(swift build "${flags[@]}" --show-bin-path)/$target"
    corpus="$scratch/corpus/$name"
    mkdir -p "$corpus" "Fuzz/regressions/$name"
    echo "== fuzzing $target for ${seconds}s" >&2
    # Fuzz/corpus/NAME: a minimized corpus from earlier runs (`-merge=1`), read only, so a short run
    # starts where the long ones got to; new finds go to the working corpus in $scratch.
    mkdir -p "Fuzz/corpus/$name"
    if ! "$binary" "$corpus" "Fuzz/seeds/$name" "Fuzz/regressions/$name" "Fuzz/corpus/$name" \
        -dict="Fuzz/$name.dict" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="Fuzz/crashes/$target-" -print_final_stats=1; then
        echo "fuzz.sh: $target found a crash, kept in Fuzz/crashes/; replay it with .build/debug/$target FILE" >&2
        status=1
    fi
done
exit "$status"
