# SPDX-License-Identifier: MIT
# Packaging: libclearpages.so, clearpages.pc, install/uninstall, the example
# consumers, and the ELF checks (symbols, hardening notes) of what is built.
#
#   make install [PREFIX=/usr/local] [DESTDIR=]   make uninstall (same variables)
#   make examples                                  C and C++ consumers, three ways each

# The version comes from the header, the one place it is written.
cp_header_version = $(shell sed -n 's/^.define CP_VERSION_$(1)[[:space:]]*\([0-9][0-9]*\).*/\1/p' include/clearpages.h)
CP_MAJOR   := $(call cp_header_version,MAJOR)
CP_VERSION := $(CP_MAJOR).$(call cp_header_version,MINOR).$(call cp_header_version,PATCH)
# One number per macro: a missing or doubled one gives a count other than 3.
ifneq ($(words $(subst ., ,$(CP_VERSION))),3)
$(error cannot read CP_VERSION_MAJOR/MINOR/PATCH from include/clearpages.h (got '$(CP_VERSION)'))
endif

# The soname counts ABI breaks, not releases (CP_SONAME_VERSION, the header).
CP_SONAME_MAJOR := $(shell sed -n 's/^.define CP_SONAME_VERSION[[:space:]]*\([0-9][0-9]*\).*/\1/p' include/clearpages.h)
ifneq ($(words $(CP_SONAME_MAJOR)),1)
$(error cannot read CP_SONAME_VERSION from include/clearpages.h (got '$(CP_SONAME_MAJOR)'))
endif
SONAME      := libclearpages.so.$(CP_SONAME_MAJOR)
LIB_SO      := $(BUILD)/libclearpages.so
LIB_SO_REAL := $(BUILD)/libclearpages.so.$(CP_VERSION)
PC          := $(BUILD)/clearpages.pc
SO_GLUE     := $(OBJ)/so-glue.o

PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DROPINDIR   = $(LIBDIR)/clearpages
CMAKEDIR    = $(LIBDIR)/cmake/clearpages

CMAKE_FILES := $(BUILD)/cmake/clearpagesConfig.cmake $(BUILD)/cmake/clearpagesConfigVersion.cmake
lib: $(LIB_SO) $(BUILD)/$(SONAME) $(PC) $(CMAKE_FILES)

$(SO_GLUE): common/so-glue.c | $(OBJ)/common
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# -nostartfiles: the crt files lack the CET/BTI property (see common/so-glue.c).
# cet-report=warning names any input that would still strip it on x86_64;
# tests/check-elf.sh fails on the result.
SO_LDFLAGS := -shared -nostartfiles -Wl,-soname,$(SONAME) \
              -Wl,--version-script=common/clearpages.map -Wl,--no-undefined \
              -Wl,-z,relro,-z,now
ifeq ($(ARCH),x86_64)
SO_LDFLAGS += -Wl,-z,cet-report=warning
endif
$(LIB_SO_REAL): $(COMMON_OBJS) $(KERNEL_OBJS) $(SO_GLUE) common/clearpages.map
	$(CC) $(CFLAGS) $(SO_LDFLAGS) $(LDFLAGS) -o $@ $(COMMON_OBJS) $(KERNEL_OBJS) $(SO_GLUE)

# libclearpages.so -> libclearpages.so.0 -> libclearpages.so.$(CP_VERSION), as installed.
$(BUILD)/$(SONAME): $(LIB_SO_REAL)
	ln -sf $(notdir $<) $@
$(LIB_SO): $(BUILD)/$(SONAME)
	ln -sf $(notdir $<) $@

# clearpages.pc and the CMake package come twice from the same templates: in
# $(BUILD), naming that folder (pkg-config or CMake pointed there links the
# build as it lies), and at install, naming PREFIX & co., written straight
# into DESTDIR: install rewrites nothing in $(BUILD).
#   cp_pc:    $(1) prefix, $(2) libdir, $(3) includedir, $(4) dropindir
#   cp_cmake: $(1) the folder the files land in; $(2)-$(4) libdir, includedir,
#             dropindir, each written relative to $(1) (the package works
#             wherever the tree lands: DESTDIR, a moved prefix); $(5) the template
cp_pc = sed -e 's|@PREFIX@|$(1)|' -e 's|@LIBDIR@|$(2)|' -e 's|@INCLUDEDIR@|$(3)|' \
            -e 's|@DROPINDIR@|$(4)|' -e 's|@VERSION@|$(CP_VERSION)|' clearpages.pc.in
cp_rel = $(shell realpath -m -s --relative-to=$(1) $(2))
CP_CMAKE_PROCESSORS_x86_64 := ^(x86_64|AMD64|amd64)$$
CP_CMAKE_PROCESSORS_arm64  := ^(aarch64|arm64|ARM64)$$
cp_cmake = sed -e 's|@CP_CMAKE_TO_LIBDIR@|$(call cp_rel,$(1),$(2))|' \
               -e 's|@CP_CMAKE_TO_INCLUDEDIR@|$(call cp_rel,$(1),$(3))|' \
               -e 's|@CP_CMAKE_TO_DROPINDIR@|$(call cp_rel,$(1),$(4))|' \
               -e 's/@CP_CMAKE_PROCESSORS@/$(CP_CMAKE_PROCESSORS_$(ARCH))/' -e 's|@CP_ARCH@|$(ARCH)|' \
               -e 's|@CP_VERSION@|$(CP_VERSION)|' -e 's|@CP_MAJOR@|$(CP_MAJOR)|' \
               -e 's|@CP_SONAME@|$(SONAME)|' -e 's|@CP_SONAME_MAJOR@|$(CP_SONAME_MAJOR)|' $(5)
# pkg-config's dropindir, unexpanded: libdir itself in $(BUILD), below it installed.
CP_PC_LIBDIR    := $${libdir}
CP_PC_DROPINDIR := $${libdir}/clearpages

# The build folder's own paths, rewritten only when they change (a moved tree).
CP_BUILD_DIR := $(abspath $(BUILD))
CP_BUILD_INC := $(abspath include)
$(BUILD)/pc-paths: cp-always
	@mkdir -p $(@D)
	@echo '$(CP_BUILD_DIR) $(CP_BUILD_INC)' | cmp -s - $@ || echo '$(CP_BUILD_DIR) $(CP_BUILD_INC)' > $@
$(PC): clearpages.pc.in include/clearpages.h $(BUILD)/pc-paths
	$(call cp_pc,$(CP_BUILD_DIR),$(CP_BUILD_DIR),$(CP_BUILD_INC),$(CP_PC_LIBDIR)) > $@
$(BUILD)/cmake/%: packaging/cmake/%.in include/clearpages.h $(BUILD)/pc-paths
	@mkdir -p $(@D)
	$(call cp_cmake,$(CP_BUILD_DIR)/cmake,$(CP_BUILD_DIR),$(CP_BUILD_INC),$(CP_BUILD_DIR),$<) > $@

# Everything install writes, relative to DESTDIR; uninstall removes exactly this.
INSTALL_FILES = $(INCLUDEDIR)/clearpages.h $(LIBDIR)/pkgconfig/clearpages.pc \
                $(LIBDIR)/libclearpages.a $(LIBDIR)/$(notdir $(LIB_SO_REAL)) \
                $(LIBDIR)/$(SONAME) $(LIBDIR)/libclearpages.so \
                $(DROPINDIR)/clearpages.o $(patsubst %,$(DROPINDIR)/kernels/%.o,$(KERNELS)) \
                $(DROPINDIR)/clearpages-freestanding.o \
                $(CMAKEDIR)/clearpagesConfig.cmake $(CMAKEDIR)/clearpagesConfigVersion.cmake \
                $(BINDIR)/clearbench $(patsubst man/%,$(MANDIR)/%,$(MAN_PAGES)) \
                $(DIR_MANIFEST)

.PHONY: install uninstall examples test-elf test-install test-examples cp-always \
        test-elf-arm64 test-examples-arm64
TEST_STEPS += test-elf test-install test-examples
# The C++ example, and the arm64 half of these steps run from an x86_64 host.
DEPS_TEST_PKGS += g++ g++-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-user
ifneq ($(ARCH),arm64)
TEST_STEPS += test-elf-arm64 test-examples-arm64
endif

test-elf: lib
	tests/check-elf.sh $(ARCH) $(BUILD)

# The same steps for the cross build. Skipped, loudly, only while arm64 has no
# kernels or no cross compiler; a failing arm64 build fails the step.
test-elf-arm64 test-examples-arm64:
	@if [ -z "$$(ls arch/arm64/*.S 2>/dev/null)" ]; then \
	    echo "SKIPPED: $@: no arm64 kernels (arch/arm64/*.S) yet"; \
	elif ! command -v aarch64-linux-gnu-gcc >/dev/null; then \
	    echo "SKIPPED: $@: aarch64-linux-gnu-gcc missing (make deps)"; \
	elif [ $@ = test-examples-arm64 ] && [ -z "$$CI" ] && [ "$$(id -u)" -ne 0 ] && \
	     ! scripts/arm64-binfmt.sh find >/dev/null 2>&1; then \
	    echo "SKIPPED: $@: not root and no aarch64 binfmt_misc entry to run the examples"; \
	else \
	    $(MAKE) --no-print-directory ARCH=arm64 $(@:-arm64=); \
	fi
# The folders install needs; the ones it had to create are recorded in
# DIR_MANIFEST, and uninstall removes those (when empty), no others.
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
INSTALL_DIRS = $(INCLUDEDIR) $(LIBDIR)/pkgconfig $(DROPINDIR)/kernels $(CMAKEDIR) \
               $(BINDIR) $(MANDIR)/man1 $(MANDIR)/man3
DIR_MANIFEST = $(DROPINDIR)/installed-dirs
install: lib $(BENCH_BIN)
	scripts/install-dirs.sh create $(DESTDIR)$(DIR_MANIFEST) $(addprefix $(DESTDIR),$(INSTALL_DIRS))
	install -m 755 $(BENCH_BIN) $(DESTDIR)$(BINDIR)/
	scripts/install-man.sh $(DESTDIR)$(MANDIR) $(MAN_PAGES)
	install -m 644 include/clearpages.h $(DESTDIR)$(INCLUDEDIR)/
	rm -f $(DESTDIR)$(LIBDIR)/pkgconfig/clearpages.pc $(addprefix $(DESTDIR)$(CMAKEDIR)/,$(notdir $(CMAKE_FILES)))
	$(call cp_pc,$(PREFIX),$(LIBDIR),$(INCLUDEDIR),$(CP_PC_DROPINDIR)) > $(DESTDIR)$(LIBDIR)/pkgconfig/clearpages.pc
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIB_SO_REAL) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIB_SO_REAL)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libclearpages.so
	install -m 644 $(ALL_OBJ) $(DESTDIR)$(DROPINDIR)/
	install -m 644 $(KERNEL_OBJS) $(DESTDIR)$(DROPINDIR)/kernels/
	install -m 644 $(FS_OBJ) $(DESTDIR)$(DROPINDIR)/
	$(foreach f,$(notdir $(CMAKE_FILES)),$(call cp_cmake,$(CMAKEDIR),$(LIBDIR),$(INCLUDEDIR),$(DROPINDIR),packaging/cmake/$(f).in) \
	    > $(DESTDIR)$(CMAKEDIR)/$(f);)
	chmod 644 $(DESTDIR)$(LIBDIR)/pkgconfig/clearpages.pc $(addprefix $(DESTDIR)$(CMAKEDIR)/,$(notdir $(CMAKE_FILES)))
uninstall:
	rm -f $(filter-out $(DESTDIR)$(DIR_MANIFEST),$(addprefix $(DESTDIR),$(INSTALL_FILES)))
	scripts/install-dirs.sh remove $(DESTDIR)$(DIR_MANIFEST)

# Install into a scratch DESTDIR: the file list must be exactly INSTALL_FILES,
# and uninstall must remove all of it and nothing else (a foreign file stays).
# Then the README's install and link lines, run as written from a prefix under
# /tmp (programs natively only), and make install leaving $(BUILD) as it was.
test-install: lib $(BENCH_BIN)
	@MAKE="$(MAKE)" tests/check-install.sh $(abspath $(BUILD)/install-test) $(LIBDIR) \
	    $(INCLUDEDIR) $(DROPINDIR) $(SONAME) $(notdir $(LIB_SO_REAL)) $(CP_VERSION) $(INSTALL_FILES)
	@MAKE="$(MAKE)" tests/check-install-prefix.sh $(BUILD) $(if $(filter $(ARCH),$(HOST_ARCH)),1,0)
