#!/usr/bin/env bash
# The Python tools the tests read our output back with, in a virtual environment of the repository
# (.venv, ignored by git): DuckDB (reads our CSV and JSON Lines as a user's query would) and the
# official MCP Python SDK (`mcp`, a real client for `cloudsync mcp`).
# Installs only what is missing. Without it the DuckDB checks are reported as skipped by the test
# runner, so a machine where it cannot be installed says so here and goes on.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
venv=.venv
if [[ ! -x "$venv/bin/python" ]] && ! python3 -m venv "$venv" >/dev/null 2>&1; then
    echo "install-test-tools: python3 -m venv failed (Debian: apt-get install python3-venv); the DuckDB checks will be skipped" >&2
    exit 0
fi
if ! "$venv/bin/python" -c "import duckdb" 2>/dev/null; then
    "$venv/bin/pip" install -q duckdb || echo "install-test-tools: could not install duckdb; the DuckDB checks will be skipped" >&2
fi
if ! "$venv/bin/python" -c "import mcp" 2>/dev/null; then
    "$venv/bin/pip" install -q "mcp>=1.22,<2" || echo "install-test-tools: could not install mcp; the MCP client tests will be skipped" >&2
fi
exit 0
