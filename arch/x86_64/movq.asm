; cp_x86_64_movq: 8-byte `mov` stores, 16 per 128 bytes (Linux clear_page_orig's
; idea), the fallback that needs nothing: plain general-purpose stores, no
; string or vector unit. Temporal; slower than wider stores but never wrong.
%include "cp_x86_64.inc"

CP_FUNC cp_x86_64_movq
	xor	eax, eax
	CP_STORE_LOOP mov, rax, 8
	ret
CP_ENDFUNC cp_x86_64_movq
