; cp_x86_64_copy_avx512_nt - copy pages with vmovdqa64 zmm loads and vmovntdq
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; dst and src 4096-aligned, not overlapping; npages == 0
; does nothing.
; AVX512F, and the OS saving ZMM state (XCR0 bits 1, 2, 5, 6, 7).
; Non-temporal: the destination lines end up out of the cache.
;
; One store fills a whole write-combining line, which leaves at once with no
; read-for-ownership. vzeroupper on exit.

%include "cp_x86_64.inc"

; void cp_x86_64_copy_avx512_nt(void *dst, const void *src, size_t npages)
CP_COPY_KERNEL cp_x86_64_copy_avx512_nt, vmovdqa64, vmovntdq, 64, zmm, nt
