#!/usr/bin/env bash
# Builds the embedded model server (issue 26): a virtual environment with llama-cpp-python[server]
# 0.3.36, whose source package carries llama.cpp and is compiled here with the system gcc and cmake
# (about 3.5 minutes on two cores), with every package pinned by resources/model-server/requirements.txt.
# It lives outside the clone, in $GP_MODEL_SERVER_VENV or ~/.cache/graph-planner/model-server-venv,
# so fresh clones on one machine share it, and it is rebuilt only when the requirements change (their
# SHA-256 is recorded inside) or the server cannot be imported. llama.cpp is built without its tests,
# examples and tools, and for a generic x86-64 (GGML_NATIVE off), so a cached build runs on another CPU.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${GP_MODEL_SERVER_VENV:-$HOME/.cache/graph-planner/model-server-venv}"
PYTHON="${PYTHON:-python3}"
REQUIREMENTS="$HERE/resources/model-server/requirements.txt"
STAMP="$VENV/.gp-requirements.sha256"
want="$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)"

log() { printf '[model server setup] %s\n' "$*" >&2; }

probe() {
  "$VENV/bin/python" -c 'import llama_cpp, llama_cpp.server; print(f"llama-cpp-python {llama_cpp.__version__}")' 2>/dev/null
}

if [[ -x "$VENV/bin/python" && -f "$STAMP" && "$(cat "$STAMP")" == "$want" ]] && version="$(probe)"; then
  exit 0
fi
# The compilers come from Debian; as root on Debian they are installed here when missing, as the
# other setup scripts install their packages.
missing=()
for tool in gcc g++ cmake; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if [[ ${#missing[@]} -gt 0 && "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
  log "installing build-essential and cmake (missing: ${missing[*]})"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends build-essential cmake >/dev/null
fi
for tool in gcc g++ cmake; do
  command -v "$tool" >/dev/null 2>&1 || { log "$tool is needed to build llama.cpp (Debian: apt-get install build-essential cmake)"; exit 1; }
done
log "building llama-cpp-python[server] into $VENV (about 3.5 minutes on two cores)"
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
export CMAKE_ARGS="-DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DGGML_NATIVE=OFF"
"$VENV/bin/pip" install -q --disable-pip-version-check --no-cache-dir -r "$REQUIREMENTS"
version="$(probe)" || { log "the build finished but llama_cpp.server cannot be imported"; exit 1; }
echo "$want" >"$STAMP"
log "$version ready in $VENV"
