; cp_x86_64_movq: 8 x movq per 64-byte line (Linux clear_page_orig), the
; fallback that needs nothing: plain general-purpose stores, no string or
; vector unit. Temporal; slower than wider stores but never wrong anywhere.
%include "cp_x86_64.inc"

%define dst	rdi
%define dstend	rsi

CP_FUNC cp_x86_64_movq
	shl	rsi, 12
	add	dstend, dst             ; dstend = addr + npages * 4096
	xor	eax, eax
.line:
	mov	[dst + 0], rax
	mov	[dst + 8], rax
	mov	[dst + 16], rax
	mov	[dst + 24], rax
	mov	[dst + 32], rax
	mov	[dst + 40], rax
	mov	[dst + 48], rax
	mov	[dst + 56], rax
	add	dst, 64
	cmp	dst, dstend
	jb	.line
	ret
CP_ENDFUNC cp_x86_64_movq
