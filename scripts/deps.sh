#!/bin/sh
# SPDX-License-Identifier: MIT
# Install the Debian packages named on the command line that are missing.
# As root: apt-get install them. Otherwise: print the exact command to run.
set -eu
missing=""
for pkg in "$@"; do
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $pkg"
	fi
done
if [ -z "$missing" ]; then
	echo "deps: all installed:$(printf ' %s' "$@")"
	exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
	echo "deps: installing$missing"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
else
	echo "deps: missing$missing; run as root:"
	echo "  apt-get update && apt-get install -y --no-install-recommends$missing"
	exit 1
fi
