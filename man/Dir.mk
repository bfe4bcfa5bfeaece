# SPDX-License-Identifier: MIT
# Manual pages: clearbench(1), clearpages(3) and one .so link per entry point.
# Installed by common/Dir.mk (MAN_PAGES under $(MANDIR)); checked by test-man.
MAN_PAGES := man/man1/clearbench.1 $(sort $(wildcard man/man3/*.3))

.PHONY: test-man
# Every page renders through man -l without a warning, every link reaches
# clearpages(3), and every function of include/clearpages.h has its page (< 1 s).
TEST_STEPS += test-man
test-man:
	@cd man && fail=0; \
	for p in $(patsubst man/%,%,$(MAN_PAGES)); do \
	    out=$$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l $$p 2>&1 >/dev/null); \
	    [ -z "$$out" ] || { echo "test-man: $$p: $$out"; fail=1; }; \
	    LC_ALL=C.UTF-8 MANWIDTH=80 man -l $$p 2>/dev/null | grep -q '^NAME' || \
	        { echo "test-man: $$p renders no NAME section"; fail=1; }; \
	done; \
	for fn in $$(sed -n 's/^[a-z].*[ *]\(cp_[a-z_0-9]*\)(.*/\1/p' ../include/clearpages.h | sort -u); do \
	    [ -f man3/$$fn.3 ] || { echo "test-man: no page for $$fn (man/man3/$$fn.3)"; fail=1; }; \
	done; \
	[ $$fail -eq 0 ] && echo "test-man: $(words $(MAN_PAGES)) pages passed"; exit $$fail
