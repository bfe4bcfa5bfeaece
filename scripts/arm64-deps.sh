#!/bin/sh
# SPDX-License-Identifier: MIT
# Fetch the arm64 test tools into a project-local folder (ignored by git), without
# touching the system's apt sources, its package state or its qemu:
#   scripts/arm64-deps.sh qemu     QEMU >= 8 (qemu-user 10 from bookworm-backports; static
#                                  binaries) into .deps/arm64/qemu/  -- needed for FEAT_MOPS
#   scripts/arm64-deps.sh sysroot  Criterion's arm64 libraries (+ libc and the other runtime
#                                  deps) into .deps/arm64/sysroot/, linked with -L/-rpath-link
#                                  and run with QEMU_LD_PREFIX
# How: a scratch apt configuration naming bookworm and bookworm-backports for
# amd64 and arm64, `apt-get download`, `dpkg-deb -x`. Installing libcriterion-dev:arm64
# through multiarch would remove the amd64 one (nanomsg is not Multi-Arch: same).
# Idempotent: a stamp file per part. Needs network and apt-get, not root.
set -eu
cd "$(dirname "$0")/.."
DEPS=${CP_ARM64_DEPS:-.deps/arm64}
MIRROR=${CP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

APTDIR=$PWD/$DEPS/apt
apt_opts() {
	echo "-o Dir::Etc::SourceList=$APTDIR/sources.list -o Dir::Etc::SourceParts=/dev/null" \
	     "-o Dir::State::Lists=$APTDIR/lists -o Dir::State::Status=/var/lib/dpkg/status" \
	     "-o Dir::Cache=$APTDIR/cache -o APT::Architectures::=amd64 -o APT::Architectures::=arm64" \
	     "-o APT::Sandbox::User=root -o Debug::NoLocking=1 -q"
}

# Fresh package lists on every fetch (a fetch only happens when a part is missing).
apt_setup() {
	[ -n "${apt_ready:-}" ] && return 0
	mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial"
	{
		echo "deb [arch=amd64,arm64 signed-by=$KEYRING] $MIRROR bookworm main"
		echo "deb [arch=amd64,arm64 signed-by=$KEYRING] $MIRROR bookworm-backports main"
	} >"$APTDIR/sources.list"
	echo "arm64-deps: apt-get update (scratch configuration in $APTDIR)"
	# shellcheck disable=SC2046
	apt-get $(apt_opts) update >/dev/null
	apt_ready=1
}

# download PKG... into $APTDIR/debs, then extract every one of them into $1
fetch_extract() {
	dest=$1; shift
	rm -rf "$APTDIR/debs" "$dest.tmp"
	mkdir -p "$APTDIR/debs" "$dest.tmp"
	# shellcheck disable=SC2046
	(cd "$APTDIR/debs" && apt-get $(apt_opts) download "$@" >/dev/null)
	for deb in "$APTDIR"/debs/*.deb; do
		dpkg-deb -x "$deb" "$dest.tmp"
	done
	rm -rf "$dest"
	mv "$dest.tmp" "$dest"
	(cd "$APTDIR/debs" && ls) >"$dest/.packages"
	rm -rf "$APTDIR/debs"
}

do_qemu() {
	dest=$DEPS/qemu
	if [ -f "$dest/.stamp" ]; then echo "arm64-deps: qemu already in $dest"; return 0; fi
	apt_setup
	echo "arm64-deps: qemu-user from bookworm-backports into $dest"
	fetch_extract "$dest" qemu-user/bookworm-backports
	# Keep only what the matrices use (the package holds every target, ~360 MB):
	# qemu-aarch64, and qemu-x86_64 for the x86 CPU-model runs.
	find "$dest/usr/bin" -type f ! -name qemu-aarch64 ! -name qemu-x86_64 -delete
	find "$dest/usr/bin" -type l -delete
	find "$dest/usr/share/qemu/binfmt.d" -type f ! -name qemu-aarch64.conf -delete
	rm -rf "$dest/usr/share/man" "$dest/usr/libexec"
	"$dest/usr/bin/qemu-aarch64" --version | head -1
	touch "$dest/.stamp"
}

do_sysroot() {
	dest=$DEPS/sysroot
	if [ -f "$dest/.stamp" ]; then echo "arm64-deps: sysroot already in $dest"; return 0; fi
	apt_setup
	# Runtime closure of libcriterion3 plus libc (QEMU_LD_PREFIX needs a whole root),
	# and libcriterion-dev alone for the headers and the libcriterion.so link.
	# shellcheck disable=SC2046
	pkgs=$(apt-cache $(apt_opts) depends --recurse --no-recommends --no-suggests \
		--no-conflicts --no-breaks --no-replaces --no-enhances \
		libcriterion3:arm64 libc6:arm64 libgcc-s1:arm64 |
		grep -v '^[ <]' | grep ':arm64$' | sort -u)
	echo "arm64-deps: Criterion arm64 sysroot into $dest:" "$(echo $pkgs)" libcriterion-dev:arm64
	# shellcheck disable=SC2086
	fetch_extract "$dest" $pkgs libcriterion-dev:arm64
	test -e "$dest/usr/lib/aarch64-linux-gnu/libcriterion.so"
	test -e "$dest/lib/ld-linux-aarch64.so.1"
	touch "$dest/.stamp"
}

[ $# -gt 0 ] || set -- qemu sysroot
for part in "$@"; do
	case $part in
	qemu) do_qemu ;;
	sysroot) do_sysroot ;;
	*) echo "arm64-deps: unknown part '$part' (qemu, sysroot)" >&2; exit 2 ;;
	esac
done
# The scratch package lists (~40 MB) are not needed once the parts are in place.
rm -rf "$APTDIR"
