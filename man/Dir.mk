# SPDX-License-Identifier: MIT
# Manual pages: clearbench(1), clearpages(3) (the overview), one page per entry
# point (cp_clear_pages(3), ...; .so links for the names a page shares, and for
# the raw kernels, to clearpages(3)).
# Installed by common/Dir.mk (MAN_PAGES under $(MANDIR)); checked by test-man.
MAN_PAGES := man/man1/clearbench.1 $(sort $(wildcard man/man3/*.3))

.PHONY: test-man
# Every page renders through man -l without a warning; links reach a page that
# lists them; every section-3 page has its sections and points at clearpages(3)
# for ATTRIBUTES; every function of include/clearpages.h has its page
# (tests/check-man.sh; < 1 s).
TEST_STEPS += test-man
test-man:
	@tests/check-man.sh $(MAN_PAGES)
