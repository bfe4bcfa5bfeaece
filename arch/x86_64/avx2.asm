; cp_x86_64_avx2 - clear pages with aligned 32-byte vmovdqa ymm stores
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; addr 4096-aligned, npages >= 1 (no checks).
; AVX2, and the OS saving YMM state (XCR0 SSE|AVX, read with XGETBV).
; Temporal: the lines are allocated in the cache.
;
; No string-op startup and two stores a line: the temporal kernel for one
; page. vzeroupper on exit spares the caller's SSE code a transition penalty.

%include "cp_x86_64.inc"

%define dst	rdi	; in: addr; advances to dstend
%define npages	rsi	; in: pages to clear
%define dstend	rsi	; npages, turned into the end address in place
%define zero	ymm0
%define zerox	xmm0	; the VEX-128 xor zeroes all of ymm0

; void cp_x86_64_avx2(void *addr, size_t npages)
CP_FUNC cp_x86_64_avx2
	vpxor	zerox, zerox, zerox
	CP_PAGES_END dstend, dst, npages
	CP_STORE_LOOP vmovdqa, zero, 32, dst, dstend
	vzeroupper
	ret
CP_ENDFUNC cp_x86_64_avx2
