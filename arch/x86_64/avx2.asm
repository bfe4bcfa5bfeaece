; cp_x86_64_avx2 - clear pages with aligned 32-byte vmovdqa ymm stores
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; addr 4096-aligned; npages == 0 does nothing.
; AVX2, and the OS saving YMM state (XCR0 SSE|AVX, read with XGETBV).
; Temporal: the lines are allocated in the cache.
;
; No string-op startup and two stores a line: the temporal kernel for one
; page. vzeroupper on exit spares the caller's SSE code a transition penalty.

%include "cp_x86_64.inc"

; void cp_x86_64_avx2(void *addr, size_t npages)
CP_STORE_KERNEL cp_x86_64_avx2, vmovdqa, 32, ymm0
