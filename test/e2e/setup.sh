#!/usr/bin/env bash
# Installs what the end-to-end layer needs: Debian's Chromium and the build tools for
# code-server's native modules, then code-server itself into .cache/code-server/.
#
# It runs at the start of every `npm test`, so it must be a fast no-op once everything is there:
# Debian packages are checked one by one and apt is only touched when one is missing, and
# code-server is only installed when its marker file does not name the pinned version.
#
# The steps follow docs/e2e.md. code-server's own post-install refuses to run as root and then
# downloads ripgrep from the internet, so we install it with --ignore-scripts and do its steps
# by hand.
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DEST="$ROOT/.cache/code-server"
MARKER="$DEST/.installed"
CS="$DEST/node_modules/code-server"

log() { printf '[e2e setup] %s\n' "$*"; }

# Each entry is "debian-package:probe"; a probe starting with / is a file that must exist,
# otherwise it is a dpkg package name that must be installed.
REQUIRED=(
  "chromium:/usr/bin/chromium"
  "ripgrep:/usr/bin/rg"
  "libkrb5-dev:libkrb5-dev"
  "libsecret-1-dev:libsecret-1-dev"
  "libxkbfile-dev:libxkbfile-dev"
  "libx11-dev:libx11-dev"
  "pkg-config:pkg-config"
  "g++:g++"
  "make:make"
  "python3:python3"
)

is_present() {
  local probe="$1"
  if [[ "$probe" == /* ]]; then
    [[ -e "$probe" ]]
  else
    [[ "$(dpkg-query -W -f='${Status}' "$probe" 2>/dev/null || true)" == "install ok installed" ]] ||
      command -v "$probe" >/dev/null 2>&1
  fi
}

install_debian_packages() {
  local missing=()
  for entry in "${REQUIRED[@]}"; do
    is_present "${entry#*:}" || missing+=("${entry%%:*}")
  done
  if ((${#missing[@]} == 0)); then
    return
  fi
  log "installing Debian packages: ${missing[*]}"
  local sudo=()
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null 2>&1 || { log "need root (or sudo) to install: ${missing[*]}"; exit 1; }
    sudo=(sudo)
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# node-gyp compiles against Node's headers. When they sit next to the running node (Debian's
# nodejs-dev or a tarball install put them in <prefix>/include/node) we point node-gyp at them,
# which also overrides a `nodedir` in ~/.npmrc that may name a folder without headers. Otherwise
# node-gyp falls back to its default: headers it downloaded earlier, or a download now.
configure_node_headers() {
  local prefix
  prefix="$(dirname "$(dirname "$(command -v node)")")"
  if [[ -f "$prefix/include/node/node_version.h" ]]; then
    export npm_config_nodedir="$prefix"
  else
    log "no Node headers under $prefix/include/node; node-gyp uses its own (may download them)"
    # A `nodedir` in the user's npmrc that has no headers would break every rebuild, so these
    # installs read a copy of that npmrc without it.
    local rc="${npm_config_userconfig:-${NPM_CONFIG_USERCONFIG:-$HOME/.npmrc}}"
    if [[ -f "$rc" ]] && grep -q '^[[:space:]]*nodedir[[:space:]]*=' "$rc"; then
      local copy="$DEST/.npmrc-without-nodedir"
      grep -v '^[[:space:]]*nodedir[[:space:]]*=' "$rc" >"$copy" || true
      export npm_config_userconfig="$copy"
    fi
  fi
}

install_code_server() {
  log "installing code-server@$CODE_SERVER_VERSION into $DEST (takes a few minutes)"
  rm -rf "$DEST"
  mkdir -p "$DEST"
  printf '{ "name": "gp-e2e-code-server", "private": true }\n' >"$DEST/package.json"
  configure_node_headers
  # node-pty's install script runs `npx node-gyp`; ~/.npmrc may say yes=false, which would make
  # npx wait for an answer that never comes.
  export npm_config_yes=true npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

  (cd "$DEST" && npm install --no-save --ignore-scripts --no-package-lock "code-server@$CODE_SERVER_VERSION")
  (
    cd "$CS/lib/vscode"
    npm install --omit=dev --ignore-scripts --no-package-lock
    mkdir -p node_modules/@vscode/ripgrep/bin
    cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
    npm rebuild --foreground-scripts node-pty kerberos native-watchdog @vscode/spdlog @parcel/watcher @vscode/deviceid
    ln -sfn node_modules node_modules.asar
  )
  (cd "$CS/lib/vscode/extensions" && npm install --omit=dev --no-package-lock)
  (cd "$DEST" && npm rebuild --foreground-scripts argon2)

  verify_code_server
  printf '%s\n' "$CODE_SERVER_VERSION" >"$MARKER"
  log "code-server@$CODE_SERVER_VERSION installed"
}

# A rebuild that silently did nothing (npm may skip install scripts) leaves a module that fails
# to load only when code-server starts, far from here; load each one now instead.
verify_code_server() {
  local vscode="$CS/lib/vscode"
  local mod
  for mod in node-pty @vscode/spdlog @parcel/watcher native-watchdog; do
    (cd "$vscode" && node -e "require('$mod')") ||
      { log "native module $mod does not load after the rebuild"; exit 1; }
  done
  (cd "$DEST" && node -e "require('argon2')") || { log "argon2 does not load after the rebuild"; exit 1; }
  [[ -x "$vscode/node_modules/@vscode/ripgrep/bin/rg" ]] || { log "ripgrep binary missing"; exit 1; }
  node "$CS/out/node/entry.js" --version >/dev/null || { log "code-server does not start"; exit 1; }
}

install_debian_packages
if [[ -f "$MARKER" && "$(cat "$MARKER")" == "$CODE_SERVER_VERSION" && -f "$CS/out/node/entry.js" ]]; then
  log "code-server@$CODE_SERVER_VERSION already installed"
else
  install_code_server
fi
