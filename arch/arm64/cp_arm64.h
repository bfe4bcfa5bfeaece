/*
 * Shared header of the arm64 kernels (GNU as, included by every arch/arm64/*.S).
 *
 * ENTRY/END: a global, 64-byte aligned function whose first instruction is
 * `bti c` (a NOP before ARMv8.5; a landing pad for indirect calls under BTI),
 * with CFI and an ELF size. ENTRY_HIDDEN: the same, hidden (internal cp__ names).
 *
 * Every object also carries:
 *  - .note.GNU-stack, so the stack stays non-executable;
 *  - the GNU property note GNU_PROPERTY_AARCH64_FEATURE_1_AND = BTI | PAC, so
 *    linking these objects never downgrades a hardened binary. The kernels are
 *    leaf functions that never spill LR, so they are PAC-compatible as they are.
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
