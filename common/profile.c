/*
 * Tuned profiles: a small text file (format in common/README.md) that replaces
 * the extent policy's bands and kernels. Loaded once at initialisation from
 * CLEARPAGES_PROFILE, or at any time through cp_set_profile().
 *
 * Parsing is strict: a file either yields a whole valid policy or is rejected
 * and the policy stays as it was. Lines are bounded, every key is known and
 * appears at most once, kernels must be usable here and of the right class.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"

#define PROFILE_MAX_LINE 255      /* bytes, without the newline */
#define PROFILE_MAX_LINES 1024    /* a profile is a dozen lines; bounds a runaway file */
#define PROFILE_VERSION "1"

enum profile_key {
	KEY_VERSION, KEY_ARCH, KEY_SMALL, KEY_SMALL_BELOW, KEY_TEMPORAL, KEY_NT_FROM,
	KEY_NONTEMPORAL, NKEYS
};
static const char *const key_names[NKEYS] = {
	"version", "arch", "small", "small_below", "temporal", "nt_from", "nontemporal",
};

struct profile_parse {
	const struct cp__state *state;
	struct cp__policy policy;  /* starts as the defaults; keys replace fields */
	unsigned seen;             /* 1 << enum profile_key */
	unsigned line;             /* 1-based, for the message */
	const char *why;           /* first error */
};

static int fail(struct profile_parse *pp, const char *why)
{
	pp->why = why;
	return -EINVAL;
}

/* A usable kernel of the wanted class (CLEARPAGES_DISABLE already applied). */
static int kernel_value(struct profile_parse *pp, const char *name, int nontemporal,
			const struct cp_kernel **out)
{
	const struct cp_kernel *k = cp_kernel_find(name);
	if (!k)
		return fail(pp, "kernel unknown, not usable on this CPU, or disabled");
	if (((k->flags & CP_NONTEMPORAL) != 0) != nontemporal)
		return fail(pp, nontemporal ? "nontemporal needs a non-temporal kernel"
					    : "small and temporal need temporal kernels");
	*out = k;
	return 0;
}

/* Bytes with an optional k/M/G suffix, a whole number of pages. */
static int pages_value(struct profile_parse *pp, const char *text, size_t *out)
{
	size_t bytes;
	if (cp__parse_size(text, &bytes))
		return fail(pp, "bad size (bytes, optional k/M/G suffix)");
	if (bytes % CP_PAGE_SIZE)
		return fail(pp, "size is not a multiple of 4096 bytes");
	*out = bytes / CP_PAGE_SIZE;
	return 0;
}

static int apply_key(struct profile_parse *pp, enum profile_key key, const char *value)
{
	struct cp__policy *p = &pp->policy;
	switch (key) {
	case KEY_VERSION:
		return strcmp(value, PROFILE_VERSION) ? fail(pp, "unsupported version") : 0;
	case KEY_ARCH:
		return strcmp(value, pp->state->kernels[0]->arch)
			? fail(pp, "profile is for another architecture") : 0;
	case KEY_SMALL:        return kernel_value(pp, value, 0, &p->small);
	case KEY_TEMPORAL:     return kernel_value(pp, value, 0, &p->temporal);
	case KEY_NONTEMPORAL:  return kernel_value(pp, value, 1, &p->nontemporal);
	case KEY_SMALL_BELOW:  return pages_value(pp, value, &p->small_below_pages);
	case KEY_NT_FROM:      return pages_value(pp, value, &p->nt_from_pages);
	default:               return fail(pp, "unknown key");
	}
}

/* One line, comment stripped: blank, or "key value" separated by blanks. */
static int parse_line(struct profile_parse *pp, char *line)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	static const char blanks[] = " \t";
	char *key = line + strspn(line, blanks);
	if (!*key)
		return 0;
	char *key_end = key + strcspn(key, blanks);
	char *value = key_end + strspn(key_end, blanks);
	char *value_end = value + strcspn(value, blanks);
	if (!*value)
		return fail(pp, "key without a value");
	if (value_end[strspn(value_end, blanks)] != '\0')
		return fail(pp, "more than one value");
	*key_end = *value_end = '\0';

	unsigned k;
	for (k = 0; k < NKEYS && strcmp(key, key_names[k]); k++)
		;
	if (k == NKEYS)
		return fail(pp, "unknown key");
	if (pp->seen & (1u << k))
		return fail(pp, "key given twice");
	if (k != KEY_VERSION && !(pp->seen & (1u << KEY_VERSION)))
		return fail(pp, "the first key must be 'version'");
	pp->seen |= 1u << k;
	return apply_key(pp, (enum profile_key)k, value);
}

/*
 * Read the next line into buf (NUL-terminated, newline dropped). 1: a line,
 * 0: end of file, -EINVAL: too long or a control character, -ENOENT: read error.
 */
static int read_line(struct profile_parse *pp, FILE *f, char buf[PROFILE_MAX_LINE + 1])
{
	size_t n = 0;
	int c;
	while ((c = getc(f)) != EOF && c != '\n') {
		if (n == PROFILE_MAX_LINE)
			return fail(pp, "line longer than 255 bytes");
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return fail(pp, "control character (CR, NUL, ...) in the file");
		buf[n++] = (char)c;
	}
	if (ferror(f))
		return -ENOENT;
	buf[n] = '\0';
	return c != EOF || n > 0;
}

static int parse_file(struct profile_parse *pp, FILE *f)
{
	char buf[PROFILE_MAX_LINE + 1];
	int r;
	for (pp->line = 1; (r = read_line(pp, f, buf)) == 1; pp->line++) {
		if (pp->line > PROFILE_MAX_LINES)
			return fail(pp, "more than 1024 lines");
		if (parse_line(pp, buf))
			return -EINVAL;
	}
	if (r)
		return r;
	pp->line = 0;   /* what follows is about the file as a whole */
	if (!(pp->seen & (1u << KEY_VERSION)))
		return fail(pp, "no 'version' line");
	/* Only when the profile gives both: with one of them the other is the
	 * default (nt_from 0 alone is "always non-temporal", whatever the
	 * default small band; cp__pick looks at nt_from first). */
	unsigned both = (1u << KEY_SMALL_BELOW) | (1u << KEY_NT_FROM);
	if ((pp->seen & both) == both &&
	    pp->policy.small_below_pages > pp->policy.nt_from_pages)
		return fail(pp, "small_below is larger than nt_from");
	return 0;
}

/* Parse path into pp->policy (which holds the defaults on entry). */
static int profile_parse(const char *path, struct profile_parse *pp)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	int r = parse_file(pp, f);
	fclose(f);
	return r;
}

/* Two cp_set_profile calls at once must not interleave their field stores. */
static pthread_mutex_t set_lock = PTHREAD_MUTEX_INITIALIZER;

static int profile_load(const char *path, struct profile_parse *pp)
{
	const struct cp__state *s = cp__state();
	memset(pp, 0, sizeof(*pp));
	pp->state = s;
	pp->policy = s->defaults;    /* keys a profile leaves out keep their default */
	int r = profile_parse(path, pp);
	if (r == 0)
		cp__policy_set(&pp->policy);
	return r;
}

void cp__profile_load_at_init(const char *path)
{
	struct profile_parse pp;
	int r = profile_load(path, &pp);
	if (r == -ENOENT)
		cp__msg("CLEARPAGES_PROFILE: '%s' is missing or unreadable; defaults kept", path);
	else if (r)   /* line 0: the file as a whole (empty, no version, bands) */
		cp__msg("CLEARPAGES_PROFILE: '%s' line %u: %s; defaults kept", path, pp.line,
			pp.why);
}

int cp_set_profile(const char *path)
{
	const struct cp__state *s = cp__state();
	int r = 0;
	pthread_mutex_lock(&set_lock);
	if (path) {
		struct profile_parse pp;
		r = profile_load(path, &pp);
	} else {
		cp__policy_set(&s->defaults);
	}
	pthread_mutex_unlock(&set_lock);
	return r;
}
