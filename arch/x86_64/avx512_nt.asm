; cp_x86_64_avx512_nt - clear pages with 64-byte vmovntdq zmm stores, then sfence
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; addr 4096-aligned; npages == 0 does nothing.
; AVX512F, and the OS saving ZMM state (XCR0 bits 1, 2, 5, 6, 7).
; Non-temporal: the lines end up out of the cache.
;
; One store fills a whole write-combining line, which leaves at once with no
; read-for-ownership. vzeroupper on exit.

%include "cp_x86_64.inc"

; void cp_x86_64_avx512_nt(void *addr, size_t npages)
CP_STORE_KERNEL cp_x86_64_avx512_nt, vmovntdq, 64, zmm0, nt
