; cp_x86_64_rep_stosb - clear pages with one rep stosb over the whole extent
; SPDX-License-Identifier: MIT
;
; Assumptions:
; x86_64, SysV ABI; addr 4096-aligned; npages == 0 does nothing.
; No CPU feature needed; fast with ERMS or FSRS (which rank it).
; Temporal: the lines are allocated in the cache.
;
; Knowing the whole length up front, microcode picks the store width and, on
; AMD Zen, skips the read-for-ownership from about LLC-sized extents on.

%include "cp_x86_64.inc"

%define dst	rdi	; in: addr; rep stosb's implicit destination
%define npages	rsi	; in: pages to clear
%define count	rcx	; bytes to store: rep's implicit count
%define zerod	eax	; al is what stosb stores; the xor clears all of rax

; void cp_x86_64_rep_stosb(void *addr, size_t npages)
CP_FUNC cp_x86_64_rep_stosb
	CP_NO_PAGES npages
	mov	count, npages
	shl	count, CP_PAGE_SHIFT    ; bytes = npages * 4096
	xor	zerod, zerod
	rep stosb
.ret:
	ret
CP_ENDFUNC cp_x86_64_rep_stosb
