; cp_x86_64_movnti - clear pages with 8-byte movnti stores, then sfence
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; addr 4096-aligned, npages >= 1 (no checks).
; SSE2 only (architectural on x86_64): no feature check.
; Non-temporal: the lines end up out of the cache.
;
; Write-combining stores skip the read-for-ownership: they win past the LLC
; and lose when the caller reads the memory soon.

%include "cp_x86_64.inc"

%define dst	rdi	; in: addr; advances to dstend
%define npages	rsi	; in: pages to clear
%define dstend	rsi	; npages, turned into the end address in place
%define zero	rax
%define zerod	eax	; the 32-bit xor clears all of rax

; void cp_x86_64_movnti(void *addr, size_t npages)
CP_FUNC cp_x86_64_movnti
	xor	zerod, zerod
	CP_PAGES_END dstend, dst, npages
	CP_STORE_LOOP movnti, zero, 8, dst, dstend
	sfence                          ; order the NT stores before later stores
	ret
CP_ENDFUNC cp_x86_64_movnti
