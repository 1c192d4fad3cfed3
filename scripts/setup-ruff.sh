#!/usr/bin/env bash
# Installs ruff 0.17.6 (Astral's Python formatter; MIT), which formats python/ and checks that it
# stays formatted in `npm run lint` (scripts/format.mjs). The binary comes from the PyPI wheel for
# this machine's architecture, checked against a pinned sha256, and lives under
# ~/.cache/graph-planner/ruff-0.17.6/ (GP_RUFF_DIR). A no-op when it is there and answers with its
# version.
set -euo pipefail
# shellcheck source=scripts/wheelBinary.sh
source "$(dirname "$0")/wheelBinary.sh"

version=0.17.6
files=https://files.pythonhosted.org/packages
install_wheel_binary ruff "$version" "${GP_RUFF_DIR:-$HOME/.cache/graph-planner/ruff-$version}" \
  "$files/be/48/3df7d81249fd69ee6a49519b149fb5d11e13118fd7d0e8d65329a237087b/ruff-$version-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl" \
  aa3b08254a732acba246891089a152c47c5733dc36b8ecb76ce8602f8326e5e4 \
  "$files/eb/11/f3032684dcb3a676d7924545153d76fb56f76753e038f2ea650b99c71bdf/ruff-$version-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.whl" \
  435241c61af5909a022f76219d3d1bf24730dc1bf0acabb5ddf4b569ab3cbb30
