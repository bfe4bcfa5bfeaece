; cp_x86_64_rep_stosq: `rep stosq`, 8 bytes per iteration (Linux clear_page_rep).
; The fast-string path of CPUs without ERMS; with ERMS, rep stosb is as fast.
; Temporal.
%include "cp_x86_64.inc"

CP_FUNC cp_x86_64_rep_stosq
	mov	rcx, rsi
	shl	rcx, 9                  ; qwords = npages * 512
	xor	eax, eax
	rep stosq
	ret
CP_ENDFUNC cp_x86_64_rep_stosq
