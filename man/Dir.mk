# SPDX-License-Identifier: MIT
# Manual pages: clearbench(1), clearpages(3) (the overview), one page per entry
# point (cp_clear_pages(3), ...; symlinks for the names a page shares, and for
# the raw kernels, to clearpages(3); a short page for each deprecated name).
# Installed by common/Dir.mk (scripts/install-man.sh: MAN_PAGES under
# $(MANDIR), the symlinks as symlinks); checked by test-man.
MAN_PAGES := man/man1/clearbench.1 $(sort $(wildcard man/man3/*.3))

.PHONY: test-man
# Every page opens with man -l from any folder without a warning, from the tree
# and from a staged install; links are symlinks to a page that lists them;
# every section-3 page has its sections and points at clearpages(3) for
# ATTRIBUTES; every function of include/clearpages.h has its page; deprecated
# names only on their own pages and in clearpages(3)'s DEPRECATED
# (tests/check-man.sh; a few seconds: man -l runs on every page twice).
TEST_STEPS += test-man
test-man:
	@tests/check-man.sh $(MAN_PAGES)
