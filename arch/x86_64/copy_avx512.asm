; cp_x86_64_copy_avx512 - copy pages with aligned vmovdqa64 zmm loads and stores
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; dst and src 4096-aligned, not overlapping; npages == 0
; does nothing.
; AVX512F, and the OS saving ZMM state (XCR0 bits 1, 2, 5, 6, 7).
; Temporal: the destination lines are allocated in the cache.
;
; One load and one store a line: on cores with full-width load and store paths
; (Intel Sapphire Rapids, AMD Zen 5) half the moves of avx2. vzeroupper.

%include "cp_x86_64.inc"

; void cp_x86_64_copy_avx512(void *dst, const void *src, size_t npages)
CP_COPY_KERNEL cp_x86_64_copy_avx512, vmovdqa64, vmovdqa64, 64, zmm
