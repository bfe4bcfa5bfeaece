#!/bin/sh
# SPDX-License-Identifier: MIT
# Install manual pages as Debian packages hold them: each page into
# MANDIR/manN/ (its folder's name), mode 644; a name that shares another's page
# (a symlink in the tree) as the same relative symlink, which man -l opens from
# anywhere, as a .so line does not. The folders must exist (make install's
# install-dirs.sh creates them).
#   scripts/install-man.sh MANDIR man/man1/clearbench.1 man/man3/cp_zero.3 ...
set -eu
mandir=$1
shift
for p in "$@"; do
	d=$mandir/$(basename "$(dirname "$p")")
	if [ -L "$p" ]; then
		ln -sf "$(readlink "$p")" "$d/$(basename "$p")"
	else
		install -m 644 "$p" "$d/"
	fi
done
