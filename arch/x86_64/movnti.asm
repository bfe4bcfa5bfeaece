; cp_x86_64_movnti: 8-byte non-temporal `movnti` stores, then `sfence`.
; Needs only SSE2. Write-combining stores skip the read-for-ownership and
; leave the lines out of cache: wins past the LLC, loses when the caller
; reads the memory soon. sfence orders them before later stores.
%include "cp_x86_64.inc"

%define dst	rdi
%define dstend	rsi

CP_FUNC cp_x86_64_movnti
	shl	rsi, 12
	add	dstend, dst
	xor	eax, eax
.line:
	movnti	[dst + 0], rax
	movnti	[dst + 8], rax
	movnti	[dst + 16], rax
	movnti	[dst + 24], rax
	movnti	[dst + 32], rax
	movnti	[dst + 40], rax
	movnti	[dst + 48], rax
	movnti	[dst + 56], rax
	add	dst, 64
	cmp	dst, dstend
	jb	.line
	sfence
	ret
CP_ENDFUNC cp_x86_64_movnti
