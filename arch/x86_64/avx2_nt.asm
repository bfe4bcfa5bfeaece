; cp_x86_64_avx2_nt - clear pages with 32-byte vmovntdq ymm stores, then sfence
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; addr 4096-aligned; npages == 0 does nothing.
; AVX2, and the OS saving YMM state (XCR0 SSE|AVX, read with XGETBV).
; Non-temporal: the lines end up out of the cache.
;
; Two stores fill a write-combining line, which leaves in one go with no
; read-for-ownership: the way past the LLC without clzero. vzeroupper on exit.

%include "cp_x86_64.inc"

; void cp_x86_64_avx2_nt(void *addr, size_t npages)
CP_STORE_KERNEL cp_x86_64_avx2_nt, vmovntdq, 32, ymm0, nt
