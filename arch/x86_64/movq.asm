; cp_x86_64_movq - clear pages with 8-byte mov stores, 16 per 128 bytes
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; addr 4096-aligned, npages >= 1 (no checks).
; No CPU feature: plain general-purpose stores, no string or vector unit.
; Temporal: the lines are allocated in the cache.
;
; The fallback that needs nothing (the idea of Linux's clear_page_orig):
; slower than wider stores, never wrong, and usable where vector state is not.

%include "cp_x86_64.inc"

%define dst	rdi	; in: addr; advances to dstend
%define npages	rsi	; in: pages to clear
%define dstend	rsi	; npages, turned into the end address in place
%define zero	rax
%define zerod	eax	; the 32-bit xor clears all of rax

; void cp_x86_64_movq(void *addr, size_t npages)
CP_FUNC cp_x86_64_movq
	xor	zerod, zerod
	CP_PAGES_END dstend, dst, npages
	CP_STORE_LOOP mov, zero, 8, dst, dstend
	ret
CP_ENDFUNC cp_x86_64_movq
