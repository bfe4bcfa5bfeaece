; cp_x86_64_copy_avx512_nt_pf - copy_avx512_nt, prefetching the source
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; dst and src 4096-aligned, not overlapping; npages == 0
; does nothing.
; AVX512F, and the OS saving ZMM state (XCR0 bits 1, 2, 5, 6, 7).
; Non-temporal stores; no prefetch reaches past the end of the source.
;
; prefetchnta CP_COPY_PF bytes ahead starts each next source page before the
; loads reach it (hardware streams stop at pages); the last CP_COPY_PF without.

%include "cp_x86_64.inc"

; void cp_x86_64_copy_avx512_nt_pf(void *dst, const void *src, size_t npages)
CP_COPY_KERNEL cp_x86_64_copy_avx512_nt_pf, vmovdqa64, vmovntdq, 64, zmm, nt, \
		CP_COPY_PF
