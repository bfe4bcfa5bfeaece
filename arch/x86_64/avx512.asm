; cp_x86_64_avx512 - clear pages with aligned 64-byte vmovdqa64 zmm stores
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; addr 4096-aligned, npages >= 1 (no checks).
; AVX512F, and the OS saving ZMM state (XCR0 bits 1, 2, 5, 6, 7).
; Temporal: the lines are allocated in the cache.
;
; One store a line: where the core has full-width store ports (Intel Sapphire
; Rapids and later) that halves the stores of avx2. vzeroupper on exit.

%include "cp_x86_64.inc"

%define dst	rdi	; in: addr; advances to dstend
%define npages	rsi	; in: pages to clear
%define dstend	rsi	; npages, turned into the end address in place
%define zero	zmm0
%define zerox	xmm0	; the VEX-128 xor zeroes all of zmm0, 2 bytes shorter than EVEX

; void cp_x86_64_avx512(void *addr, size_t npages)
CP_FUNC cp_x86_64_avx512
	vpxor	zerox, zerox, zerox
	CP_PAGES_END dstend, dst, npages
	CP_STORE_LOOP vmovdqa64, zero, 64, dst, dstend
	vzeroupper
	ret
CP_ENDFUNC cp_x86_64_avx512
