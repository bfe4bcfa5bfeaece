; cp_x86_64_rep_stosq - clear pages with rep stosq, 8 bytes an iteration
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; addr 4096-aligned; npages == 0 does nothing.
; No CPU feature needed.
; Temporal: the lines are allocated in the cache.
;
; The fast-string path of CPUs without ERMS (Linux's clear_page_rep); with
; ERMS, rep stosb is at least as fast.

%include "cp_x86_64.inc"

%define dst	rdi	; in: addr; rep stosq's implicit destination
%define npages	rsi	; in: pages to clear
%define count	rcx	; qwords to store: rep's implicit count
%define zerod	eax	; the 32-bit xor clears all of rax, what stosq stores

; void cp_x86_64_rep_stosq(void *addr, size_t npages)
CP_FUNC cp_x86_64_rep_stosq
	CP_NO_PAGES npages
	mov	count, npages
	shl	count, CP_PAGE_SHIFT - 3 ; qwords = npages * 512
	xor	zerod, zerod
	rep stosq
.ret:
	ret
CP_ENDFUNC cp_x86_64_rep_stosq
