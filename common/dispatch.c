/*
 * One-time initialisation: CPU detection, the feature mask (detected minus
 * CLEARPAGES_DISABLE), the usable kernel list, the extent policy and the
 * environment overrides. Thread-safe (pthread_once); after the first call
 * cp__state() (internal.h, inline) is one acquire load.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "internal.h"

struct cp__state cp__the_state;
int cp__ready;
static pthread_once_t once = PTHREAD_ONCE_INIT;
/* Set on the thread running init(): code that init() calls (the profile
 * loader) may call cp__state() without re-entering pthread_once. */
static __thread int initialising;

static const char *env(const char *name)
{
#ifdef __GLIBC__
	const char *v = secure_getenv(name);
#else
	const char *v = getenv(name);
#endif
	return v && *v ? v : NULL;     /* empty is the same as unset */
}

void cp__msg(const char *fmt, ...)
{
	if (cp__the_state.quiet)
		return;
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* A value from the environment must not forge a second line. */
	for (char *c = line; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	fprintf(stderr, "clearpages: %s\n", line);
}

int cp__parse_size(const char *s, size_t *out)
{
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	size_t v = 0;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (SIZE_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	unsigned shift = 0;
	switch (*s) {
	case '\0': break;
	case 'k': case 'K': shift = 10; s++; break;
	case 'm': case 'M': shift = 20; s++; break;
	case 'g': case 'G': shift = 30; s++; break;
	default: return -1;
	}
	if (*s != '\0' || (shift && v > (SIZE_MAX >> shift)))
		return -1;
	*out = v << shift;
	return 0;
}

/* CLEARPAGES_DISABLE=tok,...: returns the features to mask. */
static unsigned parse_disable(const char *list)
{
	unsigned mask = 0;
	const char *p = list;
	while (*p) {
		size_t len = strcspn(p, ",");
		size_t b = 0, e = len;        /* trim blanks around a token */
		while (b < e && isspace((unsigned char)p[b])) b++;
		while (e > b && isspace((unsigned char)p[e - 1])) e--;
		if (e > b) {
			size_t i;
			for (i = 0; i < cp__feature_tokens_len; i++)
				if (e - b == strlen(cp__feature_tokens[i].token) &&
				    !strncasecmp(p + b, cp__feature_tokens[i].token, e - b))
					break;
			if (i == cp__feature_tokens_len)
				cp__msg("CLEARPAGES_DISABLE: unknown feature '%.*s' ignored",
					(int)(e - b), p + b);
			else if (!strcmp(cp__feature_tokens[i].arch, CP_ARCH_NAME))
				mask |= cp__feature_tokens[i].feature;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return mask;
}

/* Usable kernels in table order, each class's ranked_by-less ones demoted. */
static void build_kernel_list(void)
{
	for (int nt = 0; nt <= 1; nt++)
		for (int demoted = 0; demoted <= 1; demoted++)
			for (size_t i = 0; i < cp__kernel_table_len; i++) {
				const struct cp__kernel_desc *d = &cp__kernel_table[i];
				int is_nt = (d->kernel.flags & CP_NONTEMPORAL) != 0;
				int slow = d->ranked_by && !(d->ranked_by & cp__the_state.features);
				if (is_nt != nt || slow != demoted ||
				    (d->needs & ~cp__the_state.features) ||
				    cp__the_state.nkernels == CP__MAX_KERNELS)
					continue;
				cp__the_state.kernels[cp__the_state.nkernels++] = &d->kernel;
			}
}

static void init(void)
{
	initialising = 1;
	const char *quiet = env("CLEARPAGES_QUIET");
	cp__the_state.quiet = quiet && !strcmp(quiet, "1");

	cp__cpu_detect(&cp__the_state.cpu);
	cp__the_state.features = cp__the_state.cpu.features;
	if (quiet && strcmp(quiet, "0") && strcmp(quiet, "1"))
		cp__msg("CLEARPAGES_QUIET: bad value '%s' ignored (use 0 or 1)", quiet);

	const char *disable = env("CLEARPAGES_DISABLE");
	if (disable)
		cp__the_state.features &= ~parse_disable(disable);
	build_kernel_list();
	cp__policy_default(&cp__the_state, &cp__the_state.defaults);

	const char *nt = env("CLEARPAGES_NT_THRESHOLD");
	if (nt) {
		size_t bytes;
		if (cp__parse_size(nt, &bytes))
			cp__msg("CLEARPAGES_NT_THRESHOLD: bad value '%s' ignored "
				"(bytes, optional k/M/G suffix)", nt);
		else    /* round up: an extent of at least `bytes` goes non-temporal */
			cp__the_state.defaults.nt_from_pages = bytes / CP_PAGE_SIZE +
				(bytes % CP_PAGE_SIZE != 0);
	}

	const char *name = env("CLEARPAGES_KERNEL");
	if (name) {
		cp__the_state.forced = cp_kernel_find(name);
		if (!cp__the_state.forced)
			cp__msg("CLEARPAGES_KERNEL: '%s' is not a usable kernel here; ignored", name);
	}
	cp__policy_set(&cp__the_state.defaults);

	const char *profile = env("CLEARPAGES_PROFILE");
	if (profile)
		cp__profile_load_at_init(profile);
	__atomic_store_n(&cp__ready, 1, __ATOMIC_RELEASE);
	initialising = 0;
}

const struct cp__state *cp__state_slow(void)
{
	if (!initialising)
		pthread_once(&once, init);
	return &cp__the_state;
}

void cp__policy_set(const struct cp__policy *policy)
{
	struct cp__policy p = *policy;
	if (cp__the_state.forced)
		p.small = p.temporal = p.nontemporal = cp__the_state.forced;
	/* Each field is one aligned word: a racing caller sees old or new
	 * kernels, every one of them valid. */
	__atomic_store_n(&cp__the_state.policy.small_below_pages, p.small_below_pages, __ATOMIC_RELAXED);
	__atomic_store_n(&cp__the_state.policy.nt_from_pages, p.nt_from_pages, __ATOMIC_RELAXED);
	__atomic_store_n(&cp__the_state.policy.small, p.small, __ATOMIC_RELAXED);
	__atomic_store_n(&cp__the_state.policy.temporal, p.temporal, __ATOMIC_RELAXED);
	__atomic_store_n(&cp__the_state.policy.nontemporal, p.nontemporal, __ATOMIC_RELAXED);
}
