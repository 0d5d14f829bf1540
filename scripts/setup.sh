#!/usr/bin/env bash
# Sets up a fresh Debian/Ubuntu machine for CloudSync and builds it:
# installs the system libraries that are missing (apt-get), then `swift build -c release`.
# Swift itself (6.1 or later) must already be installed: https://www.swift.org/install/linux/
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

packages=(pkg-config libxml2-dev zlib1g-dev libsqlite3-dev)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}" >&2
    sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
command -v swift >/dev/null || { echo "setup: swift is not installed (https://www.swift.org/install/linux/)" >&2; exit 1; }
swift build -c release >&2
