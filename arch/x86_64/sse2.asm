; cp_x86_64_sse2: aligned 16-byte `movdqa` stores, 128 bytes per iteration.
; Baseline x86_64 (SSE2 is architectural): twice the width of movq with no
; feature check. Temporal.
%include "cp_x86_64.inc"

CP_FUNC cp_x86_64_sse2
	pxor	xmm0, xmm0
	CP_STORE_LOOP movdqa, xmm0, 16
	ret
CP_ENDFUNC cp_x86_64_sse2
