#!/usr/bin/env bash
# The Debian package against the dynamically linked build: the size of the .deb and of both
# binaries, and start-up time, `cloudsync --version`, median (and min, max) of 20 runs each, the two
# binaries interleaved so that a busy machine slows both alike.
#
#   Benchmarks/startup.sh [DEB] [DYNAMIC_BINARY]
#
# DEB defaults to the newest dist/cloudsync_*.deb (scripts/package-deb.sh), DYNAMIC_BINARY to
# .build/release/cloudsync (scripts/setup.sh). No goal: the figures go in the release notes.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEB="${1:-$(ls -t "$ROOT"/dist/cloudsync_*.deb 2>/dev/null | head -1 || true)}"
DYNAMIC="${2:-$ROOT/.build/release/cloudsync}"
[[ -f $DEB ]] || { echo "startup.sh: no .deb (run scripts/package-deb.sh)" >&2; exit 2; }
[[ -x $DYNAMIC ]] || { echo "startup.sh: no $DYNAMIC (run scripts/setup.sh)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dpkg-deb -x "$DEB" "$work"
STATIC="$work/usr/bin/cloudsync"

python3 - "$DEB" "$STATIC" "$DYNAMIC" <<'EOF'
import os, statistics, subprocess, sys, time
deb, static, dynamic = sys.argv[1:]
def mib(path): return os.path.getsize(path) / 2**20
runs = {static: [], dynamic: []}
for binary in runs:                       # warm the page cache first
    subprocess.run([binary, "--version"], check=True, stdout=subprocess.DEVNULL)
for _ in range(20):
    for binary in runs:
        start = time.perf_counter()
        subprocess.run([binary, "--version"], check=True, stdout=subprocess.DEVNULL)
        runs[binary].append((time.perf_counter() - start) * 1000)
print(f"{os.path.basename(deb)}: {mib(deb):.1f} MiB")
print(f"{'binary':<44} {'size':>9} {'--version median':>17} {'min':>7} {'max':>7}")
for label, binary in [("packaged (static Swift runtime, stripped)", static), ("dynamic (.build/release)", dynamic)]:
    t = runs[binary]
    print(f"{label:<44} {mib(binary):>5.1f} MiB {statistics.median(t):>14.1f} ms {min(t):>5.1f} ms {max(t):>5.1f} ms")
EOF
