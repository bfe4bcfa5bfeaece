; cp_x86_64_copy_rep_movsq - copy pages with rep movsq, 8 bytes an iteration
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; dst and src 4096-aligned, not overlapping; npages == 0
; does nothing. No CPU feature needed.
; Temporal: the destination lines are allocated in the cache.
;
; The fast-string path of CPUs without ERMS (Linux's copy_page); with ERMS or
; FSRM, rep movsb is at least as fast.

%include "cp_x86_64.inc"

%define dst	rdi	; in: destination; rep movsq's implicit destination
%define src	rsi	; in: source; rep movsq's implicit source
%define npages	rdx	; in: pages to copy
%define count	rcx	; qwords to move: rep's implicit count

; void cp_x86_64_copy_rep_movsq(void *dst, const void *src, size_t npages)
CP_FUNC cp_x86_64_copy_rep_movsq
	CP_NO_PAGES npages
	mov	count, npages
	shl	count, CP_PAGE_SHIFT - 3 ; qwords = npages * 512
	rep movsq
.ret:
	ret
CP_ENDFUNC cp_x86_64_copy_rep_movsq
