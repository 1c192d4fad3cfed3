#!/usr/bin/env bash
# Prepares the integration layer, which runs against a real Docker Engine: installs the Debian
# packages below when missing, starts dockerd when no daemon answers, and builds the
# offline images with the engine code: graph-planner/base, graph-planner/repoenv-sample, and one
# graph-planner/sample-<name> for each folder of docker/samples/ (the tasks of datasets/samples.jsonl).
#
# It runs at the start of every `npm test` that includes the integration layer, so it must be a
# fast no-op once everything is there: packages are probed one by one, the daemon is only started
# when its socket does not answer, and the image build skips images whose recipe is unchanged.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SOCKET=/var/run/docker.sock
WAIT_SECONDS=60

log() { printf '[integration setup] %s\n' "$*"; }

# Root is needed to install packages, start dockerd and run debootstrap; sudo stands in for it.
SUDO=()
if [[ "$(id -u)" != 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    log "not root and no sudo: installing packages, starting dockerd or building the base image will fail"
  fi
fi

# Each entry is "debian-package:probe"; the probe is a program looked up in PATH and the sbin
# folders, or an absolute path that must be executable. docker-registry is the local registry that
# test/integration/prepull.test.ts pushes to and pulls from, at the absolute path it spawns. git and
# python3 run on the host: the local sandbox backend works in a git checkout, and
# test/integration/samples.test.ts runs its mutation search with the host's python3. bubblewrap
# isolates the local backend's commands (server/src/sandbox/bubblewrap.ts), which
# test/integration/localIsolation.test.ts checks with the real bwrap.
REQUIRED=(
  "docker.io:dockerd"
  "debootstrap:debootstrap"
  "docker-registry:/usr/bin/docker-registry"
  "git:git"
  "python3:python3"
  "bubblewrap:bwrap"
)

# Each entry is "debian-package:module", a module the host's python3 must import: pytest runs the
# tests of test/integration/samples.test.ts's mutation search, and of the unit tests that grade real
# pytest output (test/unit/graphLocalise.test.ts, test/unit/datasetConvert.test.ts).
REQUIRED_PYTHON_MODULES=(
  "python3-pytest:pytest"
)

has_program() {
  if [[ "$1" == /* ]]; then
    [[ -x "$1" ]]
  else
    command -v "$1" >/dev/null 2>&1 || [[ -x "/usr/sbin/$1" || -x "/sbin/$1" || -x "/usr/local/sbin/$1" ]]
  fi
}

# A python3 that is not Debian's (pyenv, a virtual environment first in PATH) does not see modules
# from Debian packages, so the module is probed again after the install below.
has_python_module() {
  python3 -c "import $1" >/dev/null 2>&1
}

install_debian_packages() {
  local missing=()
  for entry in "${REQUIRED[@]}"; do
    has_program "${entry#*:}" || missing+=("${entry%%:*}")
  done
  # python3 itself may be among the missing, so the modules are probed only once it is there.
  if has_program python3; then
    for entry in "${REQUIRED_PYTHON_MODULES[@]}"; do
      has_python_module "${entry#*:}" || missing+=("${entry%%:*}")
    done
  else
    for entry in "${REQUIRED_PYTHON_MODULES[@]}"; do missing+=("${entry%%:*}"); done
  fi
  if ((${#missing[@]} == 0)); then
    return
  fi
  log "installing Debian packages: ${missing[*]}"
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  for entry in "${REQUIRED_PYTHON_MODULES[@]}"; do
    if ! has_python_module "${entry#*:}"; then
      log "$(command -v python3) cannot import ${entry#*:} even after installing ${entry%%:*}: it is not Debian's python3, so install ${entry#*:} into it (python3 -m pip install ${entry#*:})"
      exit 1
    fi
  done
}

# Asks the daemon's /_ping through the socket with node, which every test run has, rather than
# with curl or the docker CLI, which a machine may lack.
daemon_answers() {
  [[ -S "$SOCKET" ]] || return 1
  "${SUDO[@]}" env "PATH=$PATH" node -e "
    const req = require('http').get({ socketPath: '$SOCKET', path: '/_ping', timeout: 2000 }, (res) => process.exit(res.statusCode === 200 ? 0 : 1));
    req.on('error', () => process.exit(1));
    req.on('timeout', () => process.exit(1));
  " >/dev/null 2>&1
}

start_daemon() {
  # A remote engine is someone else's to start; the build below says so if it does not answer.
  if [[ -n "${DOCKER_HOST:-}" && "${DOCKER_HOST}" != "unix://$SOCKET" ]]; then
    log "DOCKER_HOST=$DOCKER_HOST: not starting a local daemon"
    return
  fi
  if daemon_answers; then
    return
  fi
  log "starting dockerd (log: /tmp/dockerd.log)"
  "${SUDO[@]}" sh -c 'nohup dockerd >/tmp/dockerd.log 2>&1 &'
  local waited=0
  until daemon_answers; do
    if ((waited >= WAIT_SECONDS)); then
      log "dockerd did not answer on $SOCKET within ${WAIT_SECONDS} s; the end of /tmp/dockerd.log:"
      tail -n 20 /tmp/dockerd.log >&2 || true
      exit 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
  log "dockerd answers after ${waited} s"
}

build_images() {
  log "building the offline images: base, sample and the docker/samples/ images (skipped when up to date)"
  cd "$ROOT"
  # Keep the caller's PATH under sudo, so that npx and node are the ones this test run uses. With
  # no names the script builds every image, the sample folders' included.
  "${SUDO[@]}" env "PATH=$PATH" npx tsx scripts/buildImages.ts
}

install_debian_packages
start_daemon
build_images
