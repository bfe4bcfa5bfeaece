/* SPDX-License-Identifier: MIT */
/*
 * Shared header of the arm64 kernels (GNU as, included by every *.S here):
 * entry macros, the hardening notes, and the loops more than one kernel runs
 * (CP_STORE_LOOP, CP_MOPS_SET; for the copy kernels CP_COPY_PAIR_LOOP,
 * CP_MOPS_CPY below).
 *
 * ENTRY/END: a global, 64-byte aligned function whose first instruction is
 * `bti c` (a NOP before ARMv8.5; a landing pad for indirect calls under BTI),
 * with CFI and an ELF size. ENTRY_HIDDEN: the same, hidden (internal cp__
 * names).
 *
 * Every object also carries:
 *  - .note.GNU-stack, so the stack stays non-executable;
 *  - the GNU property note GNU_PROPERTY_AARCH64_FEATURE_1_AND = BTI | PAC, so
 *    linking these objects never downgrades a hardened binary. The kernels are
 *    leaf functions that never spill LR: PAC-compatible as they are.
 */
#ifndef CP_ARM64_H
#define CP_ARM64_H

#ifdef __ASSEMBLER__

/* `bti c` spelled as its hint, so that the file assembles under any .arch. */
#define BTI_C	hint	34

.macro ENTRY name
	.global	\name
	.type	\name, %function
	.p2align 6
\name:
	.cfi_startproc
	BTI_C
.endm

.macro ENTRY_HIDDEN name
	.hidden	\name
	ENTRY	\name
.endm

.macro END name
	.cfi_endproc
	.size	\name, . - \name
.endm

/* log2 of the page the kernels clear (CP_PAGE_SIZE, whatever the system's). */
#define CP_PAGE_SHIFT	12

/*
 * CP_NO_PAGES npages, done: every kernel's npages == 0 rule, before its first
 * store: branch to done (the label of its ret), writing nothing. The loops
 * test their end only after a pass, so without it they would run on until
 * they fault.
 */
.macro CP_NO_PAGES npages, done
	cbz	\npages, \done
.endm

/*
 * CP_STORE_LOOP store, zero, pair, form, dst, npages, dstend: the loop of the
 * store-pair kernels (stp, stp_q, stnp, stnp_x). Sets dstend = dst + npages
 * pages, then stores `store zero, zero` four times per iteration, `pair`
 * bytes each, until dst reaches dstend; dst ends at dstend, npages is kept;
 * npages == 0 stores nothing (CP_NO_PAGES). 4 x pair divides 4096 for pair 16
 * or 32, so the loop needs no tail and lands on dstend exactly, even for a
 * range that ends at 2^64.
 * form `post`: the fourth store post-increments dst (one add per loop);
 * form `add`: four offset stores, then an add (STNP has no writeback form).
 */
.macro CP_STORE_LOOP store, zero, pair, form, dst, npages, dstend
	CP_NO_PAGES \npages, 2f
	add	\dstend, \dst, \npages, lsl CP_PAGE_SHIFT
.ifc \form, post
1:	\store	\zero, \zero, [\dst, \pair]
	\store	\zero, \zero, [\dst, 2 * \pair]
	\store	\zero, \zero, [\dst, 3 * \pair]
	\store	\zero, \zero, [\dst], 4 * \pair
.else
.ifc \form, add
1:	\store	\zero, \zero, [\dst]
	\store	\zero, \zero, [\dst, \pair]
	\store	\zero, \zero, [\dst, 2 * \pair]
	\store	\zero, \zero, [\dst, 3 * \pair]
	add	\dst, \dst, 4 * \pair
.else
	.error	"CP_STORE_LOOP: form must be post or add"
.endif
.endif
	cmp	\dst, \dstend
	b.ne	1b
2:
.endm

/*
 * CP_MOPS_SET dst, npages, count, hint: the FEAT_MOPS memset of the mops
 * kernels: count = npages pages in bytes, then SETP/SETM/SETE (no hint:
 * temporal) or SETPN/SETMN/SETEN (hint n: non-temporal) of zero from dst.
 * dst and count are advanced and counted down by the sequence (count ends 0);
 * npages == 0 skips it (CP_NO_PAGES).
 * The three must stay consecutive, in this order, on the same registers: a
 * thread that migrates mid-sequence may be restarted from the prologue
 * (Linux, Documentation/arch/arm64/mops.rst). Needs .arch armv8.8-a.
 */
.macro CP_MOPS_SET dst, npages, count, hint=
	CP_NO_PAGES \npages, 1f
	lsl	\count, \npages, CP_PAGE_SHIFT
	setp\hint	[\dst]!, \count!, xzr
	setm\hint	[\dst]!, \count!, xzr
	sete\hint	[\dst]!, \count!, xzr
1:
.endm

/*
 * CP_COPY_PAIR_LOOP load, store, pair, form, dst, src, npages, dstend,
 *		     r0, r1, r2, r3, r4, r5, r6, r7:
 * the loop of the load/store-pair copy kernels (ldp_stp, ldp_stp_q, ldnp_stnp,
 * ldnp_stnp_x). Sets dstend = dst + npages pages, then per iteration loads
 * four pairs, `load r0, r1` .. `load r6, r7`, `pair` bytes each, from src and
 * stores them, `store r0, r1` .. `store r6, r7`, at the same offsets from dst,
 * until dst reaches dstend; dst ends at dstend, src as far past its start,
 * npages is kept; npages == 0 touches nothing (CP_NO_PAGES). Every iteration
 * reads and writes exactly the 4 x pair bytes ahead of src and dst, and 4 x
 * pair divides 4096 for pair 16 or 32: no tail, no access outside the two
 * ranges, and dst lands on dstend exactly, even for a range that ends at 2^64.
 * The eight registers must be distinct from each other and from the pointers.
 * form `post`: the fourth load and store post-increment src and dst (no add);
 * form `add`: offset loads and stores, then two adds (LDNP/STNP have no
 * writeback form).
 */
.macro CP_COPY_PAIR_LOOP load, store, pair, form, dst, src, npages, dstend, r0, r1, r2, r3, r4, r5, r6, r7
	CP_NO_PAGES \npages, 2f
	add	\dstend, \dst, \npages, lsl CP_PAGE_SHIFT
.ifc \form, post
1:	\load	\r0, \r1, [\src, \pair]
	\load	\r2, \r3, [\src, 2 * \pair]
	\load	\r4, \r5, [\src, 3 * \pair]
	\load	\r6, \r7, [\src], 4 * \pair
	\store	\r0, \r1, [\dst, \pair]
	\store	\r2, \r3, [\dst, 2 * \pair]
	\store	\r4, \r5, [\dst, 3 * \pair]
	\store	\r6, \r7, [\dst], 4 * \pair
.else
.ifc \form, add
1:	\load	\r0, \r1, [\src]
	\load	\r2, \r3, [\src, \pair]
	\load	\r4, \r5, [\src, 2 * \pair]
	\load	\r6, \r7, [\src, 3 * \pair]
	add	\src, \src, 4 * \pair
	\store	\r0, \r1, [\dst]
	\store	\r2, \r3, [\dst, \pair]
	\store	\r4, \r5, [\dst, 2 * \pair]
	\store	\r6, \r7, [\dst, 3 * \pair]
	add	\dst, \dst, 4 * \pair
.else
	.error	"CP_COPY_PAIR_LOOP: form must be post or add"
.endif
.endif
	cmp	\dst, \dstend
	b.ne	1b
2:
.endm

/*
 * CP_MOPS_CPY dst, src, npages, count, hint: the FEAT_MOPS memcpy of the mops
 * copy kernels: count = npages pages in bytes, then CPYFP/CPYFM/CPYFE (no
 * hint: temporal) or CPYFPN/CPYFMN/CPYFEN (hint n: read and write
 * non-temporal) from src to dst. CPYF, the forward-only form (memcpy; CPY is
 * memmove): the two ranges never overlap, so no copy direction has to be
 * chosen, as in glibc's __memcpy_mops. dst, src and count are advanced and
 * counted down by the sequence (count ends 0) and must be three distinct
 * registers; npages == 0 skips it (CP_NO_PAGES).
 * The three must stay consecutive, in this order, on the same registers (see
 * CP_MOPS_SET). Needs .arch armv8.8-a.
 */
.macro CP_MOPS_CPY dst, src, npages, count, hint=
	CP_NO_PAGES \npages, 1f
	lsl	\count, \npages, CP_PAGE_SHIFT
	cpyfp\hint	[\dst]!, [\src]!, \count!
	cpyfm\hint	[\dst]!, [\src]!, \count!
	cpyfe\hint	[\dst]!, [\src]!, \count!
1:
.endm

	.section .note.GNU-stack, "", %progbits

	/* NT_GNU_PROPERTY_TYPE_0 holding GNU_PROPERTY_AARCH64_FEATURE_1_AND. */
	.pushsection .note.gnu.property, "a"
	.p2align 3
	.word	4			/* namesz */
	.word	16			/* descsz */
	.word	5			/* NT_GNU_PROPERTY_TYPE_0 */
	.asciz	"GNU"
	.word	0xc0000000		/* GNU_PROPERTY_AARCH64_FEATURE_1_AND */
	.word	4			/* pr_datasz */
	.word	3			/* BTI (1) | PAC (2) */
	.word	0			/* pad to 8 */
	.popsection

	.text

#endif /* __ASSEMBLER__ */
#endif /* CP_ARM64_H */
