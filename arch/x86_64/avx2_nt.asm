; cp_x86_64_avx2_nt - clear pages with 32-byte vmovntdq ymm stores, then sfence
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; addr 4096-aligned, npages >= 1 (no checks).
; AVX2, and the OS saving YMM state (XCR0 SSE|AVX, read with XGETBV).
; Non-temporal: the lines end up out of the cache.
;
; Two stores fill a write-combining line, which leaves in one go with no
; read-for-ownership: the way past the LLC without clzero. vzeroupper on exit.

%include "cp_x86_64.inc"

%define dst	rdi	; in: addr; advances to dstend
%define npages	rsi	; in: pages to clear
%define dstend	rsi	; npages, turned into the end address in place
%define zero	ymm0
%define zerox	xmm0	; the VEX-128 xor zeroes all of ymm0

; void cp_x86_64_avx2_nt(void *addr, size_t npages)
CP_FUNC cp_x86_64_avx2_nt
	vpxor	zerox, zerox, zerox
	CP_PAGES_END dstend, dst, npages
	CP_STORE_LOOP vmovntdq, zero, 32, dst, dstend
	sfence                          ; order the NT stores before later stores
	vzeroupper
	ret
CP_ENDFUNC cp_x86_64_avx2_nt
