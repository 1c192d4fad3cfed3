#!/usr/bin/env bash
# Installs uv 0.13.9 (Astral's Python package installer; MIT or Apache-2.0), the resolver
# `gp env build` uses: it resolves every package a task's environment leaves unpinned, the
# toolchain and the build requirements of source distributions included, as of a day
# (`--exclude-newer`; docs/upstream-contracts.md#environments-as-of-a-date). The binary comes from
# the PyPI wheel for this machine's architecture, checked against a pinned sha256, and lives under
# ~/.cache/graph-planner/uv-0.13.9/ (GP_UV_DIR), where the engine looks for it. A no-op when it is
# there and answers with its version.
set -euo pipefail
# shellcheck source=scripts/wheelBinary.sh
source "$(dirname "$0")/wheelBinary.sh"

version=0.13.9
files=https://files.pythonhosted.org/packages
install_wheel_binary uv "$version" "${GP_UV_DIR:-$HOME/.cache/graph-planner/uv-$version}" \
  "$files/3d/aa/26d64642d808de4a652579ef950d7cd2d37f080a8babf9c67c6b75fc4c3f/uv-$version-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl" \
  d7f459fe4fd247d830351c75686d3996ace3c6f3f728eb0e85a30b7ada0cef19 \
  "$files/57/15/94b6cd62ac3ff6550288328e8035288875197cbc183f51554b266a69877b/uv-$version-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64.whl" \
  5435c5ce14a56431208ca0996416d310f1598e8c2c8ba707688985a16bb82dbe
