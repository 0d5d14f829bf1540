#!/usr/bin/env bash
# The Python tools the tests read our output back with, in a virtual environment of the repository
# (.venv, ignored by git): DuckDB (reads our CSV and JSON Lines as a user's query would).
# Installs only what is missing; the tests skip their DuckDB checks, saying so, without it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
venv=.venv
if [[ ! -x "$venv/bin/python" ]]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -c "import duckdb" 2>/dev/null || "$venv/bin/pip" install -q duckdb
