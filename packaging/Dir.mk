# SPDX-License-Identifier: MIT
# Debian packages (debian/) and the release's version check.
#   make deb            dpkg-buildpackage -us -uc -b here (binaries: a source package of a
#                       working tree would take build/ too): the .debs land in ../, as Debian does
#   make test-deb       source and binary packages built from a clean copy of the tree,
#                       lintian, the .debs unpacked into a scratch root, the autopkgtest's
#                       consumers built and run against it, all removed again
#   make test-version   CP_VERSION_* agrees with the soname, .pc, CMake package,
#                       debian/changelog, NEWS and the man pages
DEB_JOBS ?= 2
DEPS_TEST_PKGS += debhelper dpkg-dev lintian

.PHONY: deb test-deb test-version
# MAKEFLAGS stay out: debian/rules passes its own variables (BUILD=debian/build).
deb:
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL dpkg-buildpackage -us -uc -b --jobs-try=$(DEB_JOBS)

# Natively only: debian/rules builds for the host (about 30 s here).
ifeq ($(ARCH),$(HOST_ARCH))
TEST_STEPS += test-deb
endif
test-deb:
	@DEB_JOBS=$(DEB_JOBS) tests/check-deb.sh $(abspath $(BUILD)/deb-test) $(CP_VERSION)

TEST_STEPS += test-version
test-version: $(PC) $(CMAKE_FILES) $(LIB_SO_REAL)
	@tests/check-version.sh $(CP_VERSION) $(SONAME) $(PC) $(BUILD)/cmake/clearpagesConfigVersion.cmake \
	    $(LIB_SO_REAL) $(CROSS)readelf
