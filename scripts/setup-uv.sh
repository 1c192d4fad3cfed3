#!/usr/bin/env bash
# Installs uv 0.13.9 (Astral's Python package installer; MIT or Apache-2.0), the resolver
# `gp env build` uses: it resolves every package a task's environment leaves unpinned, the
# toolchain and the build requirements of source distributions included, as of a day
# (`--exclude-newer`; docs/upstream-contracts.md#environments-as-of-a-date). The binary comes from
# the PyPI wheel for this machine's architecture, checked against a pinned sha256, and lives under
# ~/.cache/graph-planner/uv-0.13.9/ (GP_UV_DIR), where the engine looks for it. A no-op when it is
# there and answers with its version.
set -euo pipefail

version=0.13.9
dest="${GP_UV_DIR:-$HOME/.cache/graph-planner/uv-$version}"
log() { echo "setup-uv: $*" >&2; }

if [[ -x "$dest/uv" ]] && [[ "$("$dest/uv" --version 2>/dev/null)" == "uv $version "* ]]; then
  exit 0
fi
case "$(uname -m)" in
  x86_64)
    wheel=uv-$version-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
    sha256=d7f459fe4fd247d830351c75686d3996ace3c6f3f728eb0e85a30b7ada0cef19
    url=https://files.pythonhosted.org/packages/3d/aa/26d64642d808de4a652579ef950d7cd2d37f080a8babf9c67c6b75fc4c3f/$wheel
    ;;
  aarch64)
    wheel=uv-$version-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64.whl
    sha256=5435c5ce14a56431208ca0996416d310f1598e8c2c8ba707688985a16bb82dbe
    url=https://files.pythonhosted.org/packages/57/15/94b6cd62ac3ff6550288328e8035288875197cbc183f51554b266a69877b/$wheel
    ;;
  *)
    log "no pinned uv wheel for $(uname -m); install uv $version yourself and set GP_UV to its path"
    exit 1
    ;;
esac
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
log "fetching uv $version from PyPI into $dest"
# PIP_INDEX_URL's host serves the same files when it mirrors PyPI; the hash decides either way.
curl -fsSL --retry 3 -o "$tmp/$wheel" "$url"
[[ "$(sha256sum "$tmp/$wheel" | cut -d' ' -f1)" == "$sha256" ]] || { log "$wheel does not have the pinned sha256"; exit 1; }
python3 - "$tmp/$wheel" "$tmp" "$version" <<'PY'
import sys, zipfile
wheel, out, version = sys.argv[1], sys.argv[2], sys.argv[3]
with zipfile.ZipFile(wheel) as z, z.open(f"uv-{version}.data/scripts/uv") as src, open(f"{out}/uv", "wb") as dst:
    dst.write(src.read())
PY
chmod 755 "$tmp/uv"
"$tmp/uv" --version >/dev/null
mkdir -p "$dest"
# Moved in after it is checked, so the folder never holds a half-written binary.
mv "$tmp/uv" "$dest/uv.tmp" && mv "$dest/uv.tmp" "$dest/uv"
log "installed $("$dest/uv" --version) in $dest"
