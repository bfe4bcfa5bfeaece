; cp_x86_64_copy_avx2_nt - copy pages with vmovdqa ymm loads and vmovntdq stores
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; dst and src 4096-aligned, not overlapping; npages == 0
; does nothing.
; AVX2, and the OS saving YMM state (XCR0 SSE|AVX, read with XGETBV).
; Non-temporal: the destination lines end up out of the cache.
;
; Two stores fill a write-combining line, which leaves in one go with no
; read-for-ownership: a third less memory traffic than a temporal copy.

%include "cp_x86_64.inc"

; void cp_x86_64_copy_avx2_nt(void *dst, const void *src, size_t npages)
CP_COPY_KERNEL cp_x86_64_copy_avx2_nt, vmovdqa, vmovntdq, 32, ymm, nt
