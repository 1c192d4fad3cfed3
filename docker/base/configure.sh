#!/bin/sh
# Runs once inside the freshly bootstrapped root file system (chroot, as root) before it is
# imported as graph-planner/base. Any change to this file changes the recipe hash, so the next
# `gp images build` rebuilds the image.
set -eu

# Sandboxes commit, diff and reset as root in repositories they did not create (/testbed is
# copied in by a Dockerfile), so git needs an identity and must trust every directory.
git config --system user.name "Graph Planner"
git config --system user.email "sandbox@graph-planner.invalid"
git config --system safe.directory '*'
git config --system init.defaultBranch main
git config --system advice.detachedHead false

# Nothing in a sandbox installs packages from these caches, and they double the image size.
# The apt hook below keeps later `apt-get install` runs in derived images from refilling them.
cat >/etc/apt/apt.conf.d/docker-clean <<'CONF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
CONF
rm -rf /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/* /var/cache/apt/*.bin
rm -rf /var/lib/apt/lists/*
rm -rf /usr/share/man/* /usr/share/info/*
find /usr/share/doc -mindepth 1 -not -name copyright -not -type d -delete
find /usr/share/doc -mindepth 1 -type d -empty -delete
rm -f /var/log/*.log /var/log/apt/* /var/cache/debconf/*-old

# debootstrap copies the host's resolver and name into the tree; Docker supplies its own at run
# time, so the image should not carry the build machine's.
: >/etc/resolv.conf
echo localhost >/etc/hostname

# The sandbox runtime drives containers through these commands; fail the build here, with the
# name of what is missing, rather than in the first episode.
for cmd in bash base64 setsid tar git python3 python; do
  command -v "$cmd" >/dev/null 2>&1 || { echo "configure.sh: $cmd is missing from the image" >&2; exit 1; }
done
python3 -m pytest --version >/dev/null 2>&1 || { echo "configure.sh: python3 -m pytest does not run" >&2; exit 1; }
