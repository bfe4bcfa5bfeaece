; cp_x86_64_copy_rep_movsb - copy pages with one rep movsb over the whole extent
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; dst and src 4096-aligned, not overlapping; npages == 0
; does nothing. No CPU feature needed; fast with ERMS or FSRM (which rank it).
; Temporal: the destination lines are allocated in the cache.
;
; Knowing the whole length up front, microcode picks the widest moves and,
; past a model-specific size, stores without reading the destination first.

%include "cp_x86_64.inc"

%define dst	rdi	; in: destination; rep movsb's implicit destination
%define src	rsi	; in: source; rep movsb's implicit source
%define npages	rdx	; in: pages to copy
%define count	rcx	; bytes to move: rep's implicit count

; void cp_x86_64_copy_rep_movsb(void *dst, const void *src, size_t npages)
CP_FUNC cp_x86_64_copy_rep_movsb
	CP_NO_PAGES npages
	mov	count, npages
	shl	count, CP_PAGE_SHIFT    ; bytes = npages * 4096
	rep movsb
.ret:
	ret
CP_ENDFUNC cp_x86_64_copy_rep_movsb
