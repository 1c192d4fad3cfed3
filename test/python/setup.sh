#!/usr/bin/env bash
# Prepares the Python side of the parquet checks: a virtual environment `.venv-test/` at the
# repository root with pyarrow, the library Verl's data loader (through Hugging Face datasets and
# pandas) reads `_verl.parquet` files with. The tests use it as an independent reader, so a file
# that our own reader (hyparquet) accepts but pyarrow does not still fails the suite.
#
# It runs before the tests that need it, so it must be a fast no-op once the environment works:
# it only probes `import pyarrow` then. A folder that exists but cannot import pyarrow (an
# interrupted install, a Python upgrade) is rebuilt.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="$ROOT/.venv-test"
PYTHON="${PYTHON:-python3}"

log() { printf '[python setup] %s\n' "$*"; }

probe() {
  "$VENV/bin/python" -c 'import pyarrow; print(pyarrow.__version__)' 2>/dev/null
}

if [[ -x "$VENV/bin/python" ]] && version="$(probe)"; then
  log "pyarrow $version is ready in $VENV"
  exit 0
fi

if ! command -v "$PYTHON" >/dev/null 2>&1; then
  log "$PYTHON was not found: install Python 3.9 or later (Debian/Ubuntu: apt-get install python3 python3-venv), or set PYTHON to a Python 3 interpreter"
  exit 1
fi

if [[ -e "$VENV" ]]; then
  # Only a folder that looks like a virtual environment is removed, so a mistyped path never
  # deletes anything else.
  if [[ ! -f "$VENV/pyvenv.cfg" ]]; then
    log "$VENV exists but is not a virtual environment (no pyvenv.cfg): move it away and run this again"
    exit 1
  fi
  log "$VENV exists but cannot import pyarrow: rebuilding it"
  rm -rf "$VENV"
fi

started=$SECONDS
log "creating $VENV with $("$PYTHON" --version 2>&1)"
if ! "$PYTHON" -m venv "$VENV"; then
  rm -rf "$VENV"
  log "python3 -m venv failed: on Debian/Ubuntu install python3-venv (apt-get install python3-venv) and run this again"
  exit 1
fi
log "installing pyarrow from PyPI (a wheel of about 55 MB)"
if ! "$VENV/bin/python" -m pip install -q --disable-pip-version-check pyarrow; then
  rm -rf "$VENV"
  log "pip could not install pyarrow: check the network or the pip index settings (PIP_INDEX_URL) and run this again"
  exit 1
fi
if ! version="$(probe)"; then
  log "pyarrow was installed but cannot be imported: remove $VENV and run this again"
  exit 1
fi
log "pyarrow $version is ready in $VENV (took $((SECONDS - started)) s)"
