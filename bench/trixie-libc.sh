#!/bin/sh
# SPDX-License-Identifier: MIT
# Fetch Debian 13 (trixie)'s glibc into .deps/trixie-libc/ for the sweep's second
# memset baseline, without touching the system: a scratch apt configuration naming
# trixie, `apt-get download libc6`, `dpkg-deb -x` (as scripts/arm64-deps.sh fetches
# qemu). clearbench then runs its memset helper through that libc's loader:
#   .deps/trixie-libc/usr/lib/<triplet>/ld-linux-*.so.* --library-path <that folder>
# Idempotent (a stamp file). Needs network and apt-get, not root.
set -eu
cd "$(dirname "$0")/.."
DEST=${CLEARBENCH_LIBC2:-.deps/trixie-libc}
MIRROR=${CP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
ARCH=$(dpkg --print-architecture)
if [ -f "$DEST/.stamp" ]; then echo "trixie-libc: already in $DEST"; exit 0; fi
APTDIR=$(mktemp -d)
trap 'rm -rf "$APTDIR"' EXIT
mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" "$APTDIR/debs"
echo "deb [arch=$ARCH signed-by=$KEYRING] $MIRROR trixie main" >"$APTDIR/sources.list"
opts="-o Dir::Etc::SourceList=$APTDIR/sources.list -o Dir::Etc::SourceParts=/dev/null
      -o Dir::State::Lists=$APTDIR/lists -o Dir::State::Status=/var/lib/dpkg/status
      -o Dir::Cache=$APTDIR/cache -o APT::Architectures::=$ARCH
      -o APT::Sandbox::User=root -o Debug::NoLocking=1 -q"
echo "trixie-libc: apt-get update (scratch configuration in $APTDIR)"
# shellcheck disable=SC2086
apt-get $opts update >/dev/null
# shellcheck disable=SC2086
(cd "$APTDIR/debs" && apt-get $opts download libc6/trixie >/dev/null)
rm -rf "$DEST.tmp"
mkdir -p "$DEST.tmp"
dpkg-deb -x "$APTDIR"/debs/libc6_*.deb "$DEST.tmp"
(cd "$APTDIR/debs" && ls) >"$DEST.tmp/.packages"
rm -rf "$DEST"
mv "$DEST.tmp" "$DEST"
loader=$(ls "$DEST"/usr/lib/*-linux-gnu/ld-linux-*.so.* | head -1)
"$loader" --version | head -1
touch "$DEST/.stamp"
