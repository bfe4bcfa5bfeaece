#!/bin/sh
# SPDX-License-Identifier: MIT
# make test-report: a `clearbench report --quick` on tiny sizes, its index.html
# rendered by headless Chromium; fails when an image did not load or a table is
# empty (the page's own check script writes the verdict into #check, read back
# from the DOM after load), and leaves a screenshot beside the report.
# Environment: BENCH (command running clearbench), OUT (folder), CHROMIUM.
set -u
start=$(date +%s)
CHROMIUM=${CHROMIUM:-chromium}
rm -rf "$OUT"
mkdir -p "$OUT"
fail() { echo "test-report: FAIL: $*"; exit 1; }

if ! command -v "$CHROMIUM" >/dev/null 2>&1; then
	echo "test-report: SKIPPED: $CHROMIUM is not installed (make deps installs Debian's chromium)"
	exit 0
fi
$BENCH report --quick --sizes 4k,64k --region 8M --rounds 2 --threads 2 --pool 8M --out "$OUT/report" \
	> "$OUT/report.log" 2>&1 || fail "report exited $? ($(tail -3 "$OUT/report.log"))"
page=$(cd "$OUT/report" && pwd)/index.html
[ -s "$page" ] || fail "no index.html"
# --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start
chrome() {
	"$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$OUT/chromium-profile" --virtual-time-budget=10000 "$@" \
		2>>"$OUT/chromium.log"
}
chrome --dump-dom "file://$page" > "$OUT/dom.html" || fail "chromium --dump-dom exited $?"
verdict=$(sed -n 's/.*id="check" data-result="\([a-z]*\)"[^>]*>\([^<]*\)<.*/\1: \2/p' "$OUT/dom.html")
echo "test-report: $verdict"
case $verdict in
ok:*) ;;
*) fail "the page check did not pass (${verdict:-no verdict in the DOM})" ;;
esac
chrome --window-size=1280,2400 --screenshot="$OUT/report/screenshot.png" "file://$page" \
	>/dev/null || fail "chromium --screenshot exited $?"
[ -s "$OUT/report/screenshot.png" ] || fail "no screenshot"
rm -rf "$OUT/chromium-profile"
echo "test-report: passed in $(( $(date +%s) - start )) s (screenshot: $OUT/report/screenshot.png)"
