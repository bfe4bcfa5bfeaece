/* SPDX-License-Identifier: MIT */
/*
 * The library's feature detection against the operating system's word: on
 * x86_64 the flags of /proc/cpuinfo (and XCR0, the vector state the OS
 * saves), on arm64 AT_HWCAP and AT_HWCAP2. "This CPU lacks X" (a kernel's
 * skip in tests/test_kernels.c, a missing row of cp_kernels()) comes from
 * the library's own detection; here it is held to the OS's, both ways:
 * - a feature the OS reports, and can save the state of, is detected, and
 *   every kernel (clear and copy) needing only such features is listed,
 *   unless CLEARPAGES_DISABLE masks one of them;
 * - a feature detected has the OS's flag, and a kernel listed has the flags
 *   of everything it needs.
 * Where the OS's word is not the CPU's, the test says so and compares what
 * it can: Linux does not always name FSRS (the Sapphire Rapids VM's
 * /proc/cpuinfo had no fsrs with CPUID.(7,1):EAX[11] set: a detected FSRS
 * without "fsrs" is no mismatch; an "fsrs" not detected is); a TSC the
 * library calls a steady counter must have Linux's tsc, constant_tsc and
 * nonstop_tsc (the converse does not hold: Linux sets constant_tsc by model
 * too); AVX2 and AVX-512 reported while XCR0 saves no AVX (or ZMM) state are
 * unusable, and must not be detected; arm64's DC ZVA comes from DCZID_EL0,
 * not a hwcap, and is not compared. Under valgrind CPUID is valgrind's
 * synthetic CPU, and under qemu-user /proc/cpuinfo is the host's: x86 skips
 * there, saying why; arm64 compares with getauxval, which qemu-user answers
 * for the emulated CPU. The comparison itself is checked on doctored words
 * (a flag taken away, one added, a detection bit lost, a kernel dropped from
 * the list).
 */
#include "testutil.h"
#include "testhooks.h"
#include <errno.h>
#include <stdarg.h>
#if defined(__x86_64__)
#include <cpuid.h>
#else
#include <sys/auxv.h>
#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)
#endif
#ifndef AT_HWCAP2
#define AT_HWCAP2 26
#endif
#ifndef HWCAP2_MOPS
#define HWCAP2_MOPS (1UL << 43)      /* the cross headers lack it (DESIGN.md) */
#endif
#endif

/* A feature's name in the OS's word: every word of `flag` present means the
 * OS reports it; `usable`'s words too, that it can run it. `ways` says which
 * directions hold where the OS's word is not the CPU's. */
enum { BOTH, OS_TO_DETECTED, DETECTED_TO_OS };
static const struct flag_map {
	unsigned feature;
	const char *flag, *usable;
	int ways;
} maps[] = {
#if defined(__x86_64__)
	{ CP__F_ERMS, "erms", "", BOTH },
	{ CP__F_FSRM, "fsrm", "", BOTH },
	{ CP__F_FSRS, "fsrs", "", OS_TO_DETECTED },          /* not always named */
	{ CP__F_AVX2, "avx2", "avx xcr0:avx", BOTH },
	{ CP__F_AVX512, "avx512f", "avx xcr0:avx xcr0:zmm", BOTH },
	{ CP__F_CLZERO, "clzero", "", BOTH },
	{ CP__F_COUNTER, "tsc constant_tsc nonstop_tsc", "", DETECTED_TO_OS },
#else
	{ CP__F_SVE, "sve", "", BOTH },
	{ CP__F_MOPS, "mops", "", BOTH },
#endif
};
#define NMAPS (sizeof(maps) / sizeof(maps[0]))

/* Whether every blank-separated word of `words` is a word of `flags`. */
static int has_words(const char *flags, const char *words)
{
	for (const char *w = words; *w; ) {
		size_t n = strcspn(w, " ");
		int found = 0;
		for (const char *f = flags; *f && !found; ) {
			size_t m = strcspn(f, " ");
			found = m == n && !strncmp(f, w, n);
			f += m + (f[m] == ' ');
		}
		if (!found)
			return 0;
		w += n + (w[n] == ' ');
	}
	return 1;
}

static const struct flag_map *map_of(unsigned feature)
{
	for (size_t i = 0; i < NMAPS; i++)
		if (maps[i].feature == feature)
			return &maps[i];
	return NULL;
}

static const char *token_of(unsigned feature)
{
	for (size_t i = 0; i < cp__feature_tokens_len; i++)
		if (cp__feature_tokens[i].feature == feature)
			return cp__feature_tokens[i].token;
	return "?";
}

/* Mismatches, one line each. */
struct report {
	unsigned n;
	char text[4096];
};

static void mismatch(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mismatch(struct report *r, const char *fmt, ...)
{
	size_t used = strlen(r->text);
	va_list ap;
	va_start(ap, fmt);
	if (used + 2 < sizeof(r->text)) {
		r->text[used++] = '\n';
		vsnprintf(r->text + used, sizeof(r->text) - used, fmt, ap);
	}
	va_end(ap);
	r->n++;
}

/* The features a kernel needing `needs` may use by the OS's word, less the
 * mask: those compared, as the OS says; those the OS does not name (arm64's
 * DCZVA), as detected; SIMD, which detection always sets. */
static unsigned os_features(const char *flags, unsigned detected)
{
	unsigned f = CP__F_SIMD, compared = 0;
	for (size_t i = 0; i < NMAPS; i++) {
		compared |= maps[i].feature;
		if (has_words(flags, maps[i].flag) && has_words(flags, maps[i].usable))
			f |= maps[i].feature;
	}
	return f | (detected & ~compared & ~CP__F_SIMD);
}

/* The words of `words` that `flags` lacks, each after a blank. */
static void missing_words(const char *flags, const char *words, char *out, size_t len)
{
	out[0] = '\0';
	for (const char *w = words; *w; ) {
		size_t n = strcspn(w, " "), l = strlen(out);
		char one[64];
		snprintf(one, sizeof(one), "%.*s", (int)n, w);
		if (n && !has_words(flags, one))
			snprintf(out + l, len - l, " %s", one);
		w += n + (w[n] == ' ');
	}
}

/* What a kernel needing `needs` lacks by the OS's word, for a message. */
static void lacking(unsigned needs, unsigned have, unsigned disable, const char *flags, char *out,
		    size_t len)
{
	out[0] = '\0';
	for (unsigned bit = 1; bit; bit <<= 1) {
		if (!(needs & bit) || ((have & bit) && !(disable & bit)))
			continue;
		const struct flag_map *m = map_of(bit);
		char words[128] = "";
		if (m) {
			char usable[64];
			missing_words(flags, m->flag, words, sizeof(words));
			missing_words(flags, m->usable, usable, sizeof(usable));
			snprintf(words + strlen(words), sizeof(words) - strlen(words), "%s", usable);
		}
		size_t l = strlen(out);
		if (disable & bit)
			snprintf(out + l, len - l, " %s (CLEARPAGES_DISABLE)", token_of(bit));
		else
			snprintf(out + l, len - l, " %s (the OS lacks:%s)", token_of(bit), words);
	}
}

/* One list (clear or copy kernels) against the table it comes from. */
struct table_view {
	const char *what;
	size_t n;
	const char *(*name)(size_t i);
	unsigned (*needs)(size_t i);
};

static void compare_list(struct report *r, const struct table_view *t, const char *const *listed,
			 size_t nlisted, unsigned have, unsigned disable, const char *flags)
{
	for (size_t i = 0; i < t->n; i++) {
		const char *name = t->name(i);
		unsigned needs = t->needs(i);
		int want = (needs & have & ~disable) == needs, got = 0;
		for (size_t j = 0; j < nlisted && !got; j++)
			got = !strcmp(listed[j], name);
		char why[160];
		lacking(needs, have, disable, flags, why, sizeof(why));
		if (want && !got)
			mismatch(r, "%s kernel %s: the OS reports all it needs and nothing masks it, "
				 "yet it is not listed", t->what, name);
		else if (!want && got)
			mismatch(r, "%s kernel %s is listed, yet needs%s", t->what, name, why);
	}
}

static const char *clear_name(size_t i) { return cp__kernel_table[i].kernel.name; }
static unsigned clear_needs(size_t i) { return cp__kernel_table[i].needs; }
static const char *copy_name(size_t i) { return cp__copy_kernel_table[i].kernel.name; }
static unsigned copy_needs(size_t i) { return cp__copy_kernel_table[i].needs; }

/* Detection (`detected`: cpu.features, before the mask) and the two lists
 * against the OS's `flags`; notes on what was not compared go to `notes`. */
static void compare(struct report *r, const char *flags, unsigned detected, unsigned disable,
		    const char *const *clears, size_t nclears, const char *const *copies,
		    size_t ncopies, char *notes, size_t notes_len)
{
	memset(r, 0, sizeof(*r));
	notes[0] = '\0';
	for (size_t i = 0; i < NMAPS; i++) {
		const struct flag_map *m = &maps[i];
		int reported = has_words(flags, m->flag), usable = reported && has_words(flags, m->usable);
		int got = (detected & m->feature) != 0;
		const char *tok = token_of(m->feature);
		size_t l = strlen(notes);
		if (reported && !usable) {
			char lacks[64];
			missing_words(flags, m->usable, lacks, sizeof(lacks));
			snprintf(notes + l, notes_len - l, " %s: \"%s\" reported, unusable (the OS "
				 "lacks:%s);", tok, m->flag, lacks);
			if (got)
				mismatch(r, "%s detected, though the OS reports \"%s\" without%s", tok,
					 m->flag, lacks);
		} else if (usable && !got && m->ways != DETECTED_TO_OS)
			mismatch(r, "the OS reports \"%s\", yet %s is not detected", m->flag, tok);
		else if (!reported && got && m->ways != OS_TO_DETECTED)
			mismatch(r, "%s detected, yet the OS reports no \"%s\"", tok, m->flag);
		else if (!reported && got)
			snprintf(notes + l, notes_len - l, " %s: detected, the OS names no \"%s\" "
				 "(not compared that way);", tok, m->flag);
		else if (usable && !got)
			snprintf(notes + l, notes_len - l, " %s: \"%s\" reported, not detected "
				 "(not compared that way);", tok, m->flag);
	}
	unsigned have = os_features(flags, detected);
	const struct table_view clear_table = { "clear", cp__kernel_table_len, clear_name, clear_needs };
	const struct table_view copy_table = { "copy", cp__copy_kernel_table_len, copy_name, copy_needs };
	compare_list(r, &clear_table, clears, nclears, have, disable, flags);
	compare_list(r, &copy_table, copies, ncopies, have, disable, flags);
}

/* ---- the OS's word ---- */

/* The flags as the OS gives them, one string of words: x86, the first
 * "flags" line of /proc/cpuinfo and xcr0:avx / xcr0:zmm for the state XCR0
 * says the OS saves; arm64, the hwcaps compared, by name. NULL (with why)
 * where there is no word to compare with. */
static const char *os_flags(char *why, size_t len)
{
	static char flags[8192];
#if defined(__x86_64__)
	if (test_under_valgrind()) {
		snprintf(why, len, "under valgrind CPUID is valgrind's synthetic CPU, "
			 "/proc/cpuinfo the host's: compared natively");
		return NULL;
	}
	if (test_under_qemu()) {
		snprintf(why, len, "under qemu-user /proc/cpuinfo is the host's, not the "
			 "emulated CPU's: compared natively");
		return NULL;
	}
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f) {
		snprintf(why, len, "no /proc/cpuinfo here: %s", strerror(errno));
		return NULL;
	}
	char line[8192];
	flags[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5) && strchr(line, ':')) {
			const char *v = strchr(line, ':') + 1;
			v += strspn(v, " \t");
			snprintf(flags, sizeof(flags) - 32, "%.*s", (int)strcspn(v, "\n"), v);
			break;
		}
	fclose(f);
	if (!flags[0]) {
		snprintf(why, len, "/proc/cpuinfo has no flags line");
		return NULL;
	}
	unsigned a, b, c, d;
	__cpuid(1, a, b, c, d);
	if (c & (1u << 27)) {                    /* OSXSAVE: XGETBV may run */
		unsigned lo, hi;
		__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
		if ((lo & 0x06) == 0x06)
			strcat(flags, " xcr0:avx");
		if ((lo & 0xe6) == 0xe6)
			strcat(flags, " xcr0:zmm");
	}
#else
	if (test_under_valgrind()) {
		snprintf(why, len, "under valgrind: compared natively and under qemu");
		return NULL;
	}
	unsigned long hwcap = getauxval(AT_HWCAP), hwcap2 = getauxval(AT_HWCAP2);
	snprintf(flags, sizeof(flags), "%s%s", hwcap & HWCAP_SVE ? " sve" : "",
		 hwcap2 & HWCAP2_MOPS ? " mops" : "");
	(void)why, (void)len;
#endif
	return flags;
}

struct library_view {
	unsigned detected, disable;
	const char *clears[CP__MAX_KERNELS], *copies[CP__MAX_KERNELS];
	size_t nclears, ncopies;
};

static struct library_view library_view(void)
{
	struct library_view v;
	memset(&v, 0, sizeof(v));
	v.detected = cp__state()->cpu.features;
	const char *mask = getenv("CLEARPAGES_DISABLE");
	v.disable = mask ? cp__disable_parse(mask, NULL, NULL) : 0;
	const struct cp_kernel *const *list;
	const struct cp_copy_kernel *const *copies;
	v.nclears = cp_kernels(&list);
	v.ncopies = cp_copy_kernels(&copies);
	cr_assert(v.nclears <= CP__MAX_KERNELS && v.ncopies <= CP__MAX_KERNELS);
	for (size_t i = 0; i < v.nclears; i++)
		v.clears[i] = list[i]->name;
	for (size_t i = 0; i < v.ncopies; i++)
		v.copies[i] = copies[i]->name;
	return v;
}

static void compare_view(struct report *r, const char *flags, const struct library_view *v,
			 char *notes, size_t len)
{
	compare(r, flags, v->detected, v->disable, v->clears, v->nclears, v->copies, v->ncopies,
		notes, len);
}

Test(native_features, detection_and_lists_agree_with_the_os)
{
	char why[160], notes[1024];
	const char *flags = os_flags(why, sizeof(why));
	if (!flags)
		cr_skip_test("%s", why);
	struct library_view v = library_view();
	struct report r;
	compare_view(&r, flags, &v, notes, sizeof(notes));
	cr_log_info("detected 0x%x, CLEARPAGES_DISABLE 0x%x;%s%s", v.detected, v.disable,
		    notes[0] ? notes : " every compared feature agrees both ways",
#if defined(__x86_64__)
		    " (x86: /proc/cpuinfo)"
#else
		    " (arm64: AT_HWCAP, AT_HWCAP2; dczva from DCZID_EL0, not compared)"
#endif
	);
	cr_expect_eq(r.n, 0, "%u mismatch(es) between the library's detection and the OS:%s",
		     r.n, r.text);
}

/* A word with `word` taken out (every occurrence), or added. */
static void without(char *out, size_t len, const char *flags, const char *word)
{
	out[0] = '\0';
	for (const char *f = flags; *f; ) {
		f += strspn(f, " ");
		size_t m = strcspn(f, " ");
		if (m && !(m == strlen(word) && !strncmp(f, word, m))) {
			size_t l = strlen(out);
			snprintf(out + l, len - l, "%s%.*s", l ? " " : "", (int)m, f);
		}
		f += m;
	}
}

/* The comparison fails for the right reason. From a word made of the
 * library's own detection (every compared feature detected, with what makes
 * it usable: no mismatch, or the lists disagree with detection itself), each
 * compared feature in turn taken away from the OS's word (when detected),
 * reported without the state the OS saves for it (XCR0), added to the word
 * (when not detected), lost by detection (when the OS reports it), and a
 * kernel of each list dropped: each must give a mismatch naming it. Needs no
 * OS word, so it runs under valgrind and qemu too. */
Test(native_features, the_comparison_catches_doctored_words)
{
	char notes[1024], flags[512] = "", doctored[1024];
	struct library_view v = library_view();
	for (size_t i = 0; i < NMAPS; i++)
		if (v.detected & maps[i].feature)
			snprintf(flags + strlen(flags), sizeof(flags) - strlen(flags), " %s %s",
				 maps[i].flag, maps[i].usable);
	struct report r;
	compare_view(&r, flags, &v, notes, sizeof(notes));
	cr_assert_eq(r.n, 0, "a word made of detection itself (%s) disagrees:%s", flags, r.text);
	unsigned tried = 0;
	for (size_t i = 0; i < NMAPS; i++) {
		const struct flag_map *m = &maps[i];
		const char *tok = token_of(m->feature);
		int usable = has_words(flags, m->flag) && has_words(flags, m->usable);
		int got = (v.detected & m->feature) != 0;
		if (got && m->ways != OS_TO_DETECTED) {       /* the OS loses the flag */
			char first[64];
			snprintf(first, sizeof(first), "%.*s", (int)strcspn(m->flag, " "), m->flag);
			without(doctored, sizeof(doctored), flags, first);
			compare_view(&r, doctored, &v, notes, sizeof(notes));
			cr_expect(r.n > 0 && strstr(r.text, m->flag),
				  "no \"%s\" in the OS's word, %s detected: not caught:%s", first, tok,
				  r.text);
			tried++;
		}
		if (usable && got && m->usable[0]) {   /* reported, its state not saved */
			const char *last = strrchr(m->usable, ' ');
			last = last ? last + 1 : m->usable;
			without(doctored, sizeof(doctored), flags, last);
			compare_view(&r, doctored, &v, notes, sizeof(notes));
			cr_expect(r.n > 0 && strstr(r.text, tok) && strstr(r.text, last),
				  "\"%s\" reported without \"%s\", %s detected: not caught:%s", m->flag,
				  last, tok, r.text);
			tried++;
		}
		if (!usable && !got && m->ways != DETECTED_TO_OS) {   /* the OS gains it */
			snprintf(doctored, sizeof(doctored), "%s %s %s", flags, m->flag, m->usable);
			compare_view(&r, doctored, &v, notes, sizeof(notes));
			cr_expect(r.n > 0 && strstr(r.text, tok),
				  "\"%s\" added to the OS's word, %s not detected: not caught:%s",
				  m->flag, tok, r.text);
			tried++;
		}
		if (usable && got && m->ways != DETECTED_TO_OS) {   /* detection loses it */
			struct library_view lost = v;
			lost.detected &= ~m->feature;
			compare_view(&r, flags, &lost, notes, sizeof(notes));
			cr_expect(r.n > 0 && strstr(r.text, tok),
				  "%s lost by detection, the OS reporting \"%s\": not caught:%s", tok,
				  m->flag, r.text);
			tried++;
		}
	}
	/* a kernel left out of each list: the first one */
	struct library_view short_list = v;
	short_list.clears[0] = short_list.copies[0] = "(left out)";
	compare_view(&r, flags, &short_list, notes, sizeof(notes));
	cr_expect(r.n == 2 && strstr(r.text, v.clears[0]) && strstr(r.text, v.copies[0]),
		  "%s and %s left out of their lists: not both caught:%s", v.clears[0], v.copies[0],
		  r.text);
	cr_log_info("%u doctored words of the OS and of detection each caught", tried + 2);
}
