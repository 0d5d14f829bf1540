#!/usr/bin/env bash
# Sets up a fresh Debian/Ubuntu machine for CloudSync and builds it: the missing system libraries
# (apt-get), then `swift build -c release`. Swift itself (6.1 or later) must already be installed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/install-system-packages.sh
scripts/install-test-tools.sh
command -v swift >/dev/null || { echo "setup: swift is not installed (https://www.swift.org/install/linux/)" >&2; exit 1; }
swift build -c release >&2
