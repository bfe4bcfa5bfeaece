; cp_x86_64_clzero - clear pages with AMD clzero, one 64-byte line each, then sfence
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; addr 4096-aligned; npages == 0 does nothing.
; CLZERO (CPUID 0x80000008 EBX[0]); neither qemu nor valgrind can run it.
; Non-temporal: the lines are written with no read-for-ownership.
;
; One instruction a line and nothing to zero first: on AMD Zen the store
; path's cheapest way to write whole lines.

%include "cp_x86_64.inc"

%define addr	rdi	; in: addr
%define npages	rsi	; in: pages to clear
%define dstend	rsi	; npages, turned into the end address in place
%define dst	rax	; clzero's implicit operand; advances to dstend

; void cp_x86_64_clzero(void *addr, size_t npages)
CP_FUNC cp_x86_64_clzero
	CP_NO_PAGES npages
	mov	dst, addr
	CP_PAGES_END dstend, dst, npages
.line:
	clzero                          ; zeroes the line holding [dst]
	add	dst, 64
	cmp	dst, dstend
	jne	.line                   ; lands on dstend exactly, even at 2^64
	sfence                          ; order the lines before later stores
.ret:
	ret
CP_ENDFUNC cp_x86_64_clzero
