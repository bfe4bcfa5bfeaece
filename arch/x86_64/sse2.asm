; cp_x86_64_sse2 - clear pages with aligned 16-byte movdqa xmm stores
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; addr 4096-aligned; npages == 0 does nothing.
; SSE2 only (architectural on x86_64): no feature check.
; Temporal: the lines are allocated in the cache.
;
; Twice the width of movq with no feature to check: the widest stores every
; x86_64 CPU has.

%include "cp_x86_64.inc"

; void cp_x86_64_sse2(void *addr, size_t npages)
CP_STORE_KERNEL cp_x86_64_sse2, movdqa, 16, xmm0
