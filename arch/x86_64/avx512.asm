; cp_x86_64_avx512 - clear pages with aligned 64-byte vmovdqa64 zmm stores
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; addr 4096-aligned; npages == 0 does nothing.
; AVX512F, and the OS saving ZMM state (XCR0 bits 1, 2, 5, 6, 7).
; Temporal: the lines are allocated in the cache.
;
; One store a line: where the core has full-width store ports (Intel Sapphire
; Rapids and later) that halves the stores of avx2. vzeroupper on exit.

%include "cp_x86_64.inc"

; void cp_x86_64_avx512(void *addr, size_t npages)
CP_STORE_KERNEL cp_x86_64_avx512, vmovdqa64, 64, zmm0
