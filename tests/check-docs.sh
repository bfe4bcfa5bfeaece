#!/bin/sh
# SPDX-License-Identifier: MIT
# What is generated from the kernel lists stays in step with them: the README's
# kernel tables and the public header's raw-kernel prototypes (scripts/regen.sh);
# the README's layout names what exists and lists every top-level folder and
# common/*.c (tests/check-readme-layout.sh); and every source file carries its
# SPDX line.
scripts/regen.sh --check && tests/check-readme-layout.sh && exec tests/check-spdx.sh
