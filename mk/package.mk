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

SONAME      := libclearpages.so.$(CP_MAJOR)
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
	$(CC) $(CFLAGS) $(SO_LDFLAGS) -o $@ $(COMMON_OBJS) $(KERNEL_OBJS) $(SO_GLUE)

# libclearpages.so -> libclearpages.so.0 -> libclearpages.so.0.1.0, as installed.
$(BUILD)/$(SONAME): $(LIB_SO_REAL)
	ln -sf $(notdir $<) $@
$(LIB_SO): $(BUILD)/$(SONAME)
	ln -sf $(notdir $<) $@

# Rewritten only when the paths change, so the .pc follows PREFIX & co.
$(BUILD)/pc-paths: cp-always
	@mkdir -p $(@D)
	@echo '$(PREFIX) $(LIBDIR) $(INCLUDEDIR)' | cmp -s - $@ || echo '$(PREFIX) $(LIBDIR) $(INCLUDEDIR)' > $@
$(PC): clearpages.pc.in include/clearpages.h $(BUILD)/pc-paths
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(CP_VERSION)|' $< > $@

# The CMake package: paths relative to the folder the files are installed in,
# so the package works wherever the tree lands (DESTDIR, a moved prefix).
cp_rel_from_cmakedir = $(shell realpath -m -s --relative-to=$(CMAKEDIR) $(1))
CP_CMAKE_PROCESSORS_x86_64 := ^(x86_64|AMD64|amd64)$$
CP_CMAKE_PROCESSORS_arm64  := ^(aarch64|arm64|ARM64)$$
$(BUILD)/cmake/%: packaging/cmake/%.in include/clearpages.h $(BUILD)/pc-paths
	@mkdir -p $(@D)
	sed -e 's|@CP_CMAKE_TO_LIBDIR@|$(call cp_rel_from_cmakedir,$(LIBDIR))|' \
	    -e 's|@CP_CMAKE_TO_INCLUDEDIR@|$(call cp_rel_from_cmakedir,$(INCLUDEDIR))|' \
	    -e 's/@CP_CMAKE_PROCESSORS@/$(CP_CMAKE_PROCESSORS_$(ARCH))/' -e 's|@CP_ARCH@|$(ARCH)|' \
	    -e 's|@CP_VERSION@|$(CP_VERSION)|' -e 's|@CP_MAJOR@|$(CP_MAJOR)|' $< > $@

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
	install -m 644 $(filter man/man1/%,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(filter man/man3/%,$(MAN_PAGES)) $(DESTDIR)$(MANDIR)/man3/
	install -m 644 include/clearpages.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(PC) $(DESTDIR)$(LIBDIR)/pkgconfig/
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(LIB_SO_REAL) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIB_SO_REAL)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libclearpages.so
	install -m 644 $(ALL_OBJ) $(DESTDIR)$(DROPINDIR)/
	install -m 644 $(KERNEL_OBJS) $(DESTDIR)$(DROPINDIR)/kernels/
	install -m 644 $(FS_OBJ) $(DESTDIR)$(DROPINDIR)/
	install -m 644 $(CMAKE_FILES) $(DESTDIR)$(CMAKEDIR)/
uninstall:
	rm -f $(filter-out $(DESTDIR)$(DIR_MANIFEST),$(addprefix $(DESTDIR),$(INSTALL_FILES)))
	scripts/install-dirs.sh remove $(DESTDIR)$(DIR_MANIFEST)

# Install into a scratch DESTDIR: the file list must be exactly INSTALL_FILES,
# and uninstall must remove all of it and nothing else (a foreign file stays).
test-install: lib
	@MAKE="$(MAKE)" tests/check-install.sh $(abspath $(BUILD)/install-test) $(LIBDIR) \
	    $(INCLUDEDIR) $(DROPINDIR) $(SONAME) $(notdir $(LIB_SO_REAL)) $(CP_VERSION) $(INSTALL_FILES)


# --- examples: each consumer built the three ways another project would link
# clearpages: the single object, the static library, and the shared library
# through pkg-config from a staged install (DESTDIR=$(STAGE)).
EX_DIR   := $(BUILD)/examples
STAGE    := $(abspath $(BUILD)/stage)
STAGE_PC := $(STAGE)$(LIBDIR)/pkgconfig/clearpages.pc
EX_PKG   := PKG_CONFIG_SYSROOT_DIR=$(STAGE) PKG_CONFIG_LIBDIR=$(STAGE)$(LIBDIR)/pkgconfig pkg-config
# Consumers build hardened, as check-elf's consumer does; header warnings are errors.
EX_CC    := $(CC) -std=c99 -pedantic -Wall -Wextra -Werror -O2 $(ARCH_CFLAGS)
EX_CXX   := $(CXX) -std=c++11 -pedantic -Wall -Wextra -Werror -O2 $(ARCH_CFLAGS)
# The emulator's sysroot has no libstdc++, and adding the cross toolchain's lib
# folder to LD_LIBRARY_PATH mixes two glibc builds (ld.so 2.36-9 with libc
# 2.36-8: plugin_dlclose hung in 10 runs of 10). Cross builds link it in.
ifneq ($(CROSS),)
EX_CXX   += -static-libstdc++
endif
EX_WAYS  := object static shared
CP_READELF := $(CROSS)readelf
# Where the loader finds libclearpages: the stage.
EX_LIBPATH := $(STAGE)$(LIBDIR)
EX_BINS   = $(foreach e,clear_extents kernel_tour,$(foreach w,$(EX_WAYS),$(EX_DIR)/$(e)-$(w)))

$(EX_DIR):
	mkdir -p $@

$(STAGE_PC): $(LIB_SO) $(BUILD)/$(SONAME) $(PC) $(LIB_A) $(ALL_OBJ) $(KERNEL_OBJS) $(FS_OBJ) $(CMAKE_FILES)
	rm -rf $(STAGE)
	$(MAKE) --no-print-directory install DESTDIR=$(STAGE)

# $(1): example, $(2): its source, $(3): compiler and flags.
define cp_example
$(EX_DIR)/$(1)-object: $(2) include/clearpages.h $(ALL_OBJ) | $(EX_DIR)
	$(3) -Iinclude -o $$@ $$< $(ALL_OBJ) -pthread
$(EX_DIR)/$(1)-static: $(2) include/clearpages.h $(LIB_A) | $(EX_DIR)
	$(3) -Iinclude -o $$@ $$< $(LIB_A) -pthread
$(EX_DIR)/$(1)-shared: $(2) $(STAGE_PC) | $(EX_DIR)
	$(3) $$$$($(EX_PKG) --cflags clearpages) -o $$@ $$< $$$$($(EX_PKG) --libs clearpages)
endef
$(eval $(call cp_example,clear_extents,examples/clear_extents.c,$(EX_CC)))
$(eval $(call cp_example,kernel_tour,examples/kernel_tour.cpp,$(EX_CXX)))

# Loads the staged .so itself (dlopen), so it links no clearpages.
$(EX_DIR)/plugin_dlclose: examples/plugin_dlclose.c include/clearpages.h | $(EX_DIR)
	$(EX_CC) -Iinclude -o $@ $< -ldl

examples: $(EX_BINS) $(EX_DIR)/plugin_dlclose

# Run every example ($(RUN): qemu for arm64); the shared ones must really load
# libclearpages.so.0 from the stage. clear_extents-object runs once more with a
# low non-temporal threshold so a non-temporal kernel clears and is verified too.
# A hung example (threads, fork, qemu) fails the step instead of stalling CI.
EX_RUN = timeout -k 10 120 env LD_LIBRARY_PATH=$(EX_LIBPATH) $(RUN)
test-examples: $(EX_BINS) $(EX_DIR)/plugin_dlclose $(STAGE_PC)
	@set -e; for b in $(EX_BINS); do \
	    echo "--- $$b"; \
	    case $$b in *-shared) \
	        $(CP_READELF) -dW $$b | grep -q 'NEEDED.*\[$(SONAME)\]' || \
	            { echo "$$b does not need $(SONAME)"; exit 1; } ;; \
	    esac; \
	    $(EX_RUN) $$b; \
	done; \
	echo "--- $(EX_DIR)/clear_extents-object, CLEARPAGES_NT_THRESHOLD=64k"; \
	CLEARPAGES_NT_THRESHOLD=64k $(EX_RUN) $(EX_DIR)/clear_extents-object 1 16 64; \
	echo "--- $(EX_DIR)/plugin_dlclose"; \
	$(EX_RUN) $(EX_DIR)/plugin_dlclose $(STAGE)$(LIBDIR)/$(SONAME)

# --- the CMake and Meson consumers (examples/cmake, examples/meson), built
# against the staged install given its prefix only (CMake: CMAKE_PREFIX_PATH;
# Meson: pkg-config's search path, with the stage as its sysroot since
# clearpages.pc names the real prefix); cross builds through the toolchain and
# cross files. Each builds clear_extents shared and static; both run, the
# shared one must load the staged .so. CMake also links the freestanding
# program with clearpages::freestanding alone. The CMake files must name no absolute
# path of the install (relocatable).
EX_CMAKE := $(abspath $(EX_DIR)/cmake)
EX_MESON := $(abspath $(EX_DIR)/meson)
ifneq ($(CROSS),)
EX_CMAKE_ARGS := -DCMAKE_TOOLCHAIN_FILE=$(abspath examples/cmake/aarch64-linux-gnu.cmake)
EX_MESON_ARGS := --cross-file $(abspath examples/meson/aarch64-linux-gnu.ini)
endif
DEPS_TEST_PKGS += cmake meson ninja-build
.PHONY: test-examples-consumers
test-examples: test-examples-consumers
test-examples-consumers: $(STAGE_PC)
	@set -e; rm -rf $(EX_CMAKE) $(EX_CMAKE)-cross $(EX_MESON); mkdir -p $(EX_DIR); \
	if grep -nE '$(STAGE)|$(PREFIX)|$(LIBDIR)|$(INCLUDEDIR)' $(STAGE)$(CMAKEDIR)/*.cmake; then \
	    echo "test-examples: the CMake package names an absolute path (not relocatable)"; exit 1; fi; \
	echo "--- examples/cmake: CMAKE_PREFIX_PATH=$(STAGE)$(PREFIX)"; \
	cmake -S examples/cmake -B $(EX_CMAKE) -DCMAKE_PREFIX_PATH=$(STAGE)$(PREFIX) $(EX_CMAKE_ARGS) \
	    -DCLEARPAGES_FS_CHECK=$(abspath tests/freestanding/fs_check.c) \
	    >$(EX_CMAKE).log 2>&1 && cmake --build $(EX_CMAKE) >>$(EX_CMAKE).log 2>&1 || \
	    { cat $(EX_CMAKE).log; echo "test-examples: examples/cmake failed"; exit 1; }; \
	grep -qx 'clearpages_DIR:PATH=$(STAGE)$(CMAKEDIR)' $(EX_CMAKE)/CMakeCache.txt || \
	    { grep clearpages_DIR $(EX_CMAKE)/CMakeCache.txt; echo "test-examples: CMake found another clearpages"; exit 1; }; \
	if [ -z "$(CROSS)" ] && [ $(ARCH) = x86_64 ] && command -v aarch64-linux-gnu-gcc >/dev/null; then \
	    echo "--- examples/cmake, cross-built for arm64: must refuse this x86_64 package"; \
	    if cmake -S examples/cmake -B $(EX_CMAKE)-cross -DCMAKE_PREFIX_PATH=$(STAGE)$(PREFIX) \
	        -DCMAKE_TOOLCHAIN_FILE=$(abspath examples/cmake/aarch64-linux-gnu.cmake) >$(EX_CMAKE)-cross.log 2>&1 || \
	        ! grep -qF '$(CP_VERSION) (x86_64)' $(EX_CMAKE)-cross.log; then \
	        cat $(EX_CMAKE)-cross.log; echo "test-examples: an arm64 build took the x86_64 package"; exit 1; fi; \
	fi; \
	echo "--- examples/meson: PKG_CONFIG_LIBDIR=$(STAGE)$(LIBDIR)/pkgconfig"; \
	PKG_CONFIG_SYSROOT_DIR=$(STAGE) PKG_CONFIG_LIBDIR=$(STAGE)$(LIBDIR)/pkgconfig \
	    meson setup $(EX_MESON_ARGS) $(EX_MESON) examples/meson >$(EX_MESON).log 2>&1 && \
	    meson compile -C $(EX_MESON) >>$(EX_MESON).log 2>&1 || \
	    { cat $(EX_MESON).log; echo "test-examples: examples/meson failed"; exit 1; }; \
	for b in $(EX_CMAKE)/clear_extents_shared $(EX_CMAKE)/clear_extents_static \
	         $(EX_MESON)/clear_extents_shared $(EX_MESON)/clear_extents_static; do \
	    echo "--- $$b"; \
	    needs=$$($(CP_READELF) -dW $$b | grep -c 'NEEDED.*\[$(SONAME)\]' || true); \
	    case $$b in *_shared) want=1 ;; *) want=0 ;; esac; \
	    [ "$$needs" = $$want ] || { echo "$$b: NEEDED $(SONAME) $$needs times, expected $$want"; exit 1; }; \
	    $(EX_RUN) $$b 1 16 512; \
	done; \
	echo "--- $(EX_CMAKE)/fs_check (clearpages::freestanding, no libc)"; \
	$(EX_RUN) $(EX_CMAKE)/fs_check >$(EX_CMAKE)/fs_check.log 2>&1 || \
	    { cat $(EX_CMAKE)/fs_check.log; echo "test-examples: fs_check failed"; exit 1; }; \
	tail -n 1 $(EX_CMAKE)/fs_check.log
