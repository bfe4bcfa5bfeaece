# SPDX-License-Identifier: MIT
# CMake toolchain file: cross-build for arm64 with Debian's aarch64-linux-gnu gcc.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
