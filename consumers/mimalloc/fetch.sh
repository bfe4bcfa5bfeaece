#!/bin/sh
# SPDX-License-Identifier: MIT
# Fetch Debian 12's mimalloc source (2.0.9) into .deps/mimalloc/src (ignored by git) without
# touching the system's apt sources or package state: a scratch apt configuration with one
# deb-src line, `apt-get source --download-only`, `dpkg-source -x`. Idempotent (a stamp file).
set -eu
cd "$(dirname "$0")/../.."
DEST=${CP_MIMALLOC_SRC:-.deps/mimalloc/src}
MIRROR=${CP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
if [ -f "$DEST/.stamp" ]; then echo "mimalloc-fetch: already in $DEST"; exit 0; fi

APTDIR=$PWD/.deps/mimalloc/apt
rm -rf "$APTDIR"
mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" "$APTDIR/dl"
echo "deb-src [signed-by=$KEYRING] $MIRROR bookworm main" >"$APTDIR/sources.list"
set -- -o Dir::Etc::SourceList="$APTDIR/sources.list" -o Dir::Etc::SourceParts=/dev/null \
	-o Dir::State::Lists="$APTDIR/lists" -o Dir::State::Status=/var/lib/dpkg/status \
	-o Dir::Cache="$APTDIR/cache" -o APT::Sandbox::User=root -o Debug::NoLocking=1 -q
echo "mimalloc-fetch: apt-get update (scratch configuration in $APTDIR)"
apt-get "$@" update >/dev/null
(cd "$APTDIR/dl" && apt-get "$@" source --download-only mimalloc >/dev/null)
rm -rf "$DEST"
dpkg-source --no-check -x "$APTDIR"/dl/mimalloc_*.dsc "$DEST" >/dev/null
ver=$(sed -n 's/^Version: //p' "$APTDIR"/dl/mimalloc_*.dsc)
case $ver in 2.0.9*) ;; *) echo "mimalloc-fetch: got $ver, want 2.0.9 (Debian 12)" >&2; exit 1 ;; esac
echo "$ver" >"$DEST/.stamp"
rm -rf "$APTDIR"
echo "mimalloc-fetch: mimalloc $ver in $DEST"
