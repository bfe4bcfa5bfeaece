/* SPDX-License-Identifier: MIT */
/*
 * What tests and clearbench may reach beyond the public header: the published
 * state (read-only, plus cp__policy_publish to install recording kernels),
 * the pure layers (registry, selection, profile parser, size parser, the
 * residency estimate, the route) and the walks behind the huge and parallel calls.
 * Nothing else of common/.
 */
#ifndef CP_TESTHOOKS_H
#define CP_TESTHOOKS_H
#include "cp_public.h"
#include "cpu.h"
#include "huge.h"
#include "parallel.h"
#include "parse.h"
#include "profile.h"
#include "registry.h"
#include "residency.h"
#include "route.h"
#include "select.h"
#include "state.h"
#if defined(__aarch64__)
#include "cpu_regs.h"      /* arch/arm64: detection from register values */
#endif
#endif
