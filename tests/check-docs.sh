#!/bin/sh
# SPDX-License-Identifier: MIT
# What is generated stays in step with its source (scripts/regen.sh --check):
# the README's kernel tables and the public header's raw-kernel prototypes
# with the kernel lists, docs/dispatch.md's table of the built-in rows with
# common/builtin.c; the README's layout names what exists and lists every
# top-level folder and common/*.c (tests/check-readme-layout.sh); and every
# source file carries its SPDX line.
scripts/regen.sh --check && tests/check-readme-layout.sh && exec tests/check-spdx.sh
