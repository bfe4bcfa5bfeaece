; cp_x86_64_copy_avx2 - copy pages with aligned vmovdqa ymm loads and stores
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; dst and src 4096-aligned, not overlapping; npages == 0
; does nothing.
; AVX2, and the OS saving YMM state (XCR0 SSE|AVX, read with XGETBV).
; Temporal: the destination lines are allocated in the cache.
;
; No string-op startup and two moves a line each way: the temporal kernel for
; a page or a few. vzeroupper on exit spares the caller's SSE code a penalty.

%include "cp_x86_64.inc"

; void cp_x86_64_copy_avx2(void *dst, const void *src, size_t npages)
CP_COPY_KERNEL cp_x86_64_copy_avx2, vmovdqa, vmovdqa, 32, ymm
