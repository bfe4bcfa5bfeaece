# SPDX-License-Identifier: MIT
# --- examples: each consumer built the three ways another project would link
# clearpages: the single object, the static library, and the shared library
# through pkg-config from a staged install (DESTDIR=$(STAGE)).
EX_DIR   := $(BUILD)/examples
STAGE    := $(abspath $(BUILD)/stage)
STAGE_PC := $(STAGE)$(LIBDIR)/pkgconfig/clearpages.pc
EX_PKG   := PKG_CONFIG_SYSROOT_DIR=$(STAGE) PKG_CONFIG_LIBDIR=$(STAGE)$(LIBDIR)/pkgconfig pkg-config
# Consumers build hardened, as check-elf's consumer does; header warnings are errors,
# and a deprecated spelling (include/clearpages.h) is one.
EX_CC    := $(CC) -std=c99 -pedantic -Wall -Wextra -Werror -Werror=deprecated-declarations -O2 $(ARCH_CFLAGS)
EX_CXX   := $(CXX) -std=c++11 -pedantic -Wall -Wextra -Werror -Werror=deprecated-declarations -O2 $(ARCH_CFLAGS)
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
DEPS_TEST_PKGS += cmake meson ninja-build pkg-config
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
