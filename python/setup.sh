#!/usr/bin/env bash
# Builds the trainer environment gp train runs Verl in: a virtual environment with the exact pins of
# python/requirements.txt (Verl 0.9.1 with [verl-core], Ray 2.60.0; about 6 GB, because PyPI's torch
# always brings its CUDA wheels). It lives outside the clone, in $GP_TRAINER_VENV or
# ~/.cache/graph-planner/trainer-venv, so fresh clones on one machine share it. When requirements.txt
# changes (its SHA-256 is recorded inside), pip brings the environment to the new pins in place, which
# takes seconds for an added package; it is rebuilt from nothing only when that fails or the
# environment cannot import what it must. gp train finds it there (server/src/cluster/trainerEnvironment.ts).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${GP_TRAINER_VENV:-$HOME/.cache/graph-planner/trainer-venv}"
PYTHON="${PYTHON:-python3}"
REQUIREMENTS="$HERE/requirements.txt"
STAMP="$VENV/.gp-requirements.sha256"
want="$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)"

log() { printf '[trainer setup] %s\n' "$*"; }

probe() {
  "$VENV/bin/python" -c 'import verl, ray, pytest, gguf, pydantic; print(f"verl {verl.__version__}, ray {ray.__version__}")' 2>/dev/null
}

install() {
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-cache-dir -r "$REQUIREMENTS"
}

if [[ -x "$VENV/bin/python" && -f "$STAMP" && "$(cat "$STAMP")" == "$want" ]] && versions="$(probe)"; then
  log "$versions ready in $VENV"
  exit 0
fi

if [[ -x "$VENV/bin/python" && -f "$STAMP" ]] && "$VENV/bin/python" -c 'import verl, ray' 2>/dev/null; then
  log "requirements.txt changed: updating $VENV in place"
  if install && versions="$(probe)"; then
    echo "$want" > "$STAMP"
    log "$versions ready in $VENV"
    exit 0
  fi
  log "updating in place failed: rebuilding $VENV"
fi

if ! command -v "$PYTHON" >/dev/null 2>&1; then
  log "$PYTHON was not found: install Python 3.10 or later (Debian/Ubuntu: apt-get install python3 python3-venv), or set PYTHON"
  exit 1
fi
if [[ -e "$VENV" && ! -f "$VENV/pyvenv.cfg" ]]; then
  log "$VENV exists but is not a virtual environment (no pyvenv.cfg): move it away and run this again"
  exit 1
fi

started=$SECONDS
rm -rf "$VENV"
mkdir -p "$(dirname "$VENV")"
log "creating $VENV with $("$PYTHON" --version 2>&1)"
if ! "$PYTHON" -m venv "$VENV"; then
  rm -rf "$VENV"
  log "python3 -m venv failed: on Debian/Ubuntu install python3-venv and run this again"
  exit 1
fi
# An old pip (23.x) backtracks for many minutes over Verl's dependencies; a current one resolves at once.
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
log "installing $(grep -v '^#' "$REQUIREMENTS" | tr '\n' ' ')(about 3 minutes, 6 GB)"
if ! install; then
  rm -rf "$VENV"
  log "pip could not install the trainer requirements: check the network or PIP_INDEX_URL and run this again"
  exit 1
fi
if ! versions="$(probe)"; then
  log "the environment was built but cannot import verl, ray, pytest and gguf: remove $VENV and run this again"
  exit 1
fi
echo "$want" > "$STAMP"
log "$versions ready in $VENV (took $((SECONDS - started)) s)"
