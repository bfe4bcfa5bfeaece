; cp_x86_64_copy_sse2 - copy pages with aligned movdqa xmm loads and stores
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; dst and src 4096-aligned, not overlapping; npages == 0
; does nothing.
; SSE2 only (architectural on x86_64): no feature check.
; Temporal: the destination lines are allocated in the cache.
;
; The widest moves every x86_64 CPU has: eight loads fill xmm0-7 (two lines
; in flight), then eight stores.

%include "cp_x86_64.inc"

; void cp_x86_64_copy_sse2(void *dst, const void *src, size_t npages)
CP_COPY_KERNEL cp_x86_64_copy_sse2, movdqa, movdqa, 16, xmm
