; cp_x86_64_avx512_nt - clear pages with 64-byte vmovntdq zmm stores, then sfence
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; addr 4096-aligned, npages >= 1 (no checks).
; AVX512F, and the OS saving ZMM state (XCR0 bits 1, 2, 5, 6, 7).
; Non-temporal: the lines end up out of the cache.
;
; One store fills a whole write-combining line, which leaves at once with no
; read-for-ownership. vzeroupper on exit.

%include "cp_x86_64.inc"

%define dst	rdi	; in: addr; advances to dstend
%define npages	rsi	; in: pages to clear
%define dstend	rsi	; npages, turned into the end address in place
%define zero	zmm0
%define zerox	xmm0	; the VEX-128 xor zeroes all of zmm0, 2 bytes shorter than EVEX

; void cp_x86_64_avx512_nt(void *addr, size_t npages)
CP_FUNC cp_x86_64_avx512_nt
	vpxor	zerox, zerox, zerox
	CP_PAGES_END dstend, dst, npages
	CP_STORE_LOOP vmovntdq, zero, 64, dst, dstend
	sfence                          ; order the NT stores before later stores
	vzeroupper
	ret
CP_ENDFUNC cp_x86_64_avx512_nt
