; cp_x86_64_movq - clear pages with 8-byte mov stores, 16 per 128 bytes
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; addr 4096-aligned; npages == 0 does nothing.
; No CPU feature: plain general-purpose stores, no string or vector unit.
; Temporal: the lines are allocated in the cache.
;
; The fallback that needs nothing (the idea of Linux's clear_page_orig):
; slower than wider stores, never wrong, and usable where vector state is not.

%include "cp_x86_64.inc"

; void cp_x86_64_movq(void *addr, size_t npages)
CP_STORE_KERNEL cp_x86_64_movq, mov, 8, rax
