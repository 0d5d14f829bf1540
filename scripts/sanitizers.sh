#!/usr/bin/env bash
# Runs the whole test suite under AddressSanitizer and then ThreadSanitizer.
# Each sanitizer builds into its own scratch directory (.build-asan, .build-tsan) so the normal
# .build stays untouched. Usage: scripts/sanitizers.sh [address|thread]...   (default: both)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

sanitizers=("$@")
[ ${#sanitizers[@]} -eq 0 ] && sanitizers=(address thread)

# ASan: leaks are checked too (LeakSanitizer is part of ASan on Linux). XCTest's runner leaks a
# few objects of its own at exit; scripts/lsan-suppressions.txt names it and nothing of ours.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/scripts/lsan-suppressions.txt:print_suppressions=0}"
# Swift's own crash backtracer and the sanitizers' reports fight over a dying process: off here.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}"

for sanitizer in "${sanitizers[@]}"; do
    case "$sanitizer" in
        address) scratch=.build-asan ;;
        thread) scratch=.build-tsan ;;
        *) echo "sanitizers.sh: unknown sanitizer '$sanitizer' (address or thread)" >&2; exit 64 ;;
    esac
    echo "== swift test --sanitize=$sanitizer" >&2
    # The memory figures that tests assert are for normal builds; a sanitizer's shadow memory and
    # quarantine add to them, and the tests widen their limits when told.
    export CLOUDSYNC_TEST_SANITIZER="$sanitizer"
    swift test --sanitize="$sanitizer" --scratch-path "$scratch"
done
