#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages CloudSync builds against, only those not installed yet.
set -euo pipefail
# zbar-tools: the tests decode the pairing QR code with its zbarimg (they skip that check without it).
# time: GNU time measures the peak memory of cloudsync runs in the hostile-input tests.
# python3-venv: scripts/install-test-tools.sh puts DuckDB into a virtual environment for the tests.
# libpq-dev: the store's PostgreSQL engine (a clinic's patients' stores on PostgreSQL).
# postgresql: the receiver's storage tests run `serve`'s PostgreSQL backend against a cluster they
# create themselves (initdb, pg_ctl on a socket in a temporary folder); they skip without it.
# nginx, openssl: the load balancer (and TLS terminator, with a CA the tests make) in front of
# several `serve` instances in the tests; they skip without it.
# chromium: the report test renders the page headless, screenshots and prints it; it skips without it.
# dpkg-dev, binutils, libcurl4-openssl-dev: scripts/package-deb.sh (dpkg-shlibdeps, strip; the static
# link of Foundation's networking, which the MCP SDK uses, needs -lcurl); debootstrap: the package test
# installs the .deb in a fresh minimal Debian root it makes (it skips without it).
packages=(pkg-config libxml2-dev zlib1g-dev libsqlite3-dev libpq-dev libqrencode-dev zbar-tools time python3-venv postgresql nginx openssl
          chromium dpkg-dev binutils libcurl4-openssl-dev debootstrap)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
((${#missing[@]})) || exit 0
echo "installing ${missing[*]}" >&2
sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
