/* SPDX-License-Identifier: MIT */
/*
 * The profile parser: text in, a whole valid profile or an error (line and
 * reason) out. Pure, no libc beyond the string helpers of str.h, so the same
 * code serves the hosted library, the tests and the fuzz target.
 *
 * Strict: lines are bounded, every key is known, version comes first, a
 * version-2 file ends with an `end` line (a cut file is refused, never read as
 * a shorter profile), kernels must be usable here and of the right class.
 * Format: docs/profiles-and-tuning.md, "The format".
 */
#include <errno.h>
#include "cpu.h"
#include "parse.h"
#include "profile.h"
#include "str.h"

#define MAX_LINE 255      /* bytes, without the newline */
#define MAX_LINES 1024

enum key {
	K_VERSION, K_ARCH,
	K_SMALL, K_SMALL_BELOW, K_TEMPORAL, K_NT_FROM, K_NONTEMPORAL,   /* version 1 */
	K_CPU, K_BAND, K_PARALLEL, K_END,                              /* version 2 */
	K_UNCACHED_BAND, K_CACHED_MIN_MBPS, K_DISCARD_FROM,            /* version 3 */
	NKEYS
};
static const char *const key_names[NKEYS] = {
	"version", "arch", "small", "small_below", "temporal", "nt_from", "nontemporal",
	"cpu", "band", "parallel", "end", "uncached_band", "cached_min_mbps",
	"discard_from",
};
#define V1_KEYS ((1u << K_SMALL) | (1u << K_SMALL_BELOW) | (1u << K_TEMPORAL) | \
		 (1u << K_NT_FROM) | (1u << K_NONTEMPORAL))
#define V2_KEYS ((1u << K_CPU) | (1u << K_BAND) | (1u << K_PARALLEL) | (1u << K_END))
#define V3_KEYS ((1u << K_UNCACHED_BAND) | (1u << K_CACHED_MIN_MBPS) | (1u << K_DISCARD_FROM))

struct parse {
	const struct cp__kernel_list *usable;
	struct cp__profile *p;
	struct cp__profile_error *err;
	unsigned seen;            /* 1 << enum key */
};

static int fail(struct parse *ps, const char *why)
{
	ps->err->why = why;
	return -EINVAL;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* A value: [s, s + len), trimmed, no inner blanks (`one` set) or any. */
struct span {
	const char *s;
	size_t len;
};

static struct span next_word(struct span *rest)
{
	size_t i = 0;
	while (i < rest->len && is_blank(rest->s[i]))
		i++;
	size_t b = i;
	while (i < rest->len && !is_blank(rest->s[i]))
		i++;
	struct span w = { rest->s + b, i - b };
	rest->s += i;
	rest->len -= i;
	return w;
}

static int span_is(struct span w, const char *lit)
{
	size_t n = cp__strlen(lit);
	if (w.len != n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (w.s[i] != lit[i])
			return 0;
	return 1;
}

static int kernel_value(struct parse *ps, struct span w, int want_class,
			const struct cp_kernel **out)
{
	char name[40];
	if (w.len >= sizeof(name))
		return fail(ps, "kernel unknown, not usable on this CPU, or disabled");
	for (size_t i = 0; i < w.len; i++)
		name[i] = w.s[i];
	name[w.len] = '\0';
	const struct cp_kernel *k = cp__list_find(ps->usable, name);
	if (!k)
		return fail(ps, "kernel unknown, not usable on this CPU, or disabled");
	int nt = (k->flags & CP_NONTEMPORAL) != 0;
	if (want_class >= 0 && nt != want_class)
		return fail(ps, want_class ? "nontemporal needs a non-temporal kernel"
					   : "small and temporal need temporal kernels");
	*out = k;
	return 0;
}

/* Bytes with an optional k/M/G suffix, a whole number of pages. */
static int pages_value(struct parse *ps, struct span w, size_t *out)
{
	size_t bytes;
	if (cp__parse_size_n(w.s, w.len, &bytes))
		return fail(ps, "bad size (bytes, optional k/M/G suffix)");
	if (bytes % CP_PAGE_SIZE)
		return fail(ps, "size is not a multiple of 4096 bytes");
	*out = bytes / CP_PAGE_SIZE;
	return 0;
}

/* Decimal, or hex with 0x; fits in unsigned. */
static int number_value(struct span w, unsigned *out)
{
	unsigned base = 10, v = 0;
	size_t i = 0;
	if (w.len > 2 && w.s[0] == '0' && (w.s[1] == 'x' || w.s[1] == 'X'))
		base = 16, i = 2;
	if (i == w.len)
		return -1;
	for (; i < w.len; i++) {
		char c = cp__lower(w.s[i]);
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
			   : c >= 'a' && c <= 'f' && base == 16 ? (unsigned)(c - 'a' + 10) : 99;
		if (d >= base || v > (0xffffffffu - d) / base)
			return -1;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

static void copy_span(char *dst, size_t size, struct span w)
{
	size_t n = w.len < size - 1 ? w.len : size - 1;
	for (size_t i = 0; i < n; i++)
		dst[i] = w.s[i];
	dst[n] = '\0';
}

/* cpu VENDOR FAMILY MODEL [BRAND...] | cpu arm64 IMPLEMENTER PART */
static int cpu_value(struct parse *ps, struct span rest)
{
	struct cp__profile_cpu *c = &ps->p->cpu;
	struct span vendor = next_word(&rest), a = next_word(&rest), b = next_word(&rest);
	if (!vendor.len || !a.len || !b.len || vendor.len >= sizeof(c->vendor))
		return fail(ps, "cpu needs a vendor and two numbers");
	copy_span(c->vendor, sizeof(c->vendor), vendor);
	unsigned x, y;
	if (number_value(a, &x) || number_value(b, &y))
		return fail(ps, "cpu needs a vendor and two numbers");
	if (cp__streq(c->vendor, "arm64")) {
		c->midr_implementer = x, c->midr_part = y;
		if (next_word(&rest).len)
			return fail(ps, "more than one value");
	} else {
		c->family = x, c->model = y;
		while (rest.len && is_blank(rest.s[0]))
			rest.s++, rest.len--;
		copy_span(c->brand, sizeof(c->brand), rest);
	}
	ps->p->has_cpu = 1;
	return 0;
}

/* band (or uncached_band) FROM KERNEL, appended to bands[*n]. */
static int band_value(struct parse *ps, struct span rest, struct cp__band *bands, unsigned *n)
{
	struct span from = next_word(&rest), kernel = next_word(&rest);
	if (!kernel.len)
		return fail(ps, "band needs a size and a kernel");
	if (next_word(&rest).len)
		return fail(ps, "more than two values");
	if (*n == CP__MAX_BANDS)
		return fail(ps, "more than 8 bands");
	struct cp__band *b = &bands[*n];
	if (pages_value(ps, from, &b->from_pages) || kernel_value(ps, kernel, -1, &b->kernel))
		return -EINVAL;
	if (*n == 0 && b->from_pages != 0)
		return fail(ps, "the first band must start at 0");
	if (*n && b->from_pages <= bands[*n - 1].from_pages)
		return fail(ps, "bands must be in ascending order");
	(*n)++;
	return 0;
}

static int apply_key(struct parse *ps, enum key k, struct span rest)
{
	struct cp__profile *p = ps->p;
	if (k == K_CPU)
		return cpu_value(ps, rest);
	if (k == K_BAND)
		return band_value(ps, rest, p->bands, &p->nbands);
	if (k == K_UNCACHED_BAND)
		return band_value(ps, rest, p->uncached, &p->nuncached);
	struct span v = next_word(&rest);
	if (k == K_END) {
		if (v.len)
			return fail(ps, "end takes no value");
		return 0;
	}
	if (!v.len)
		return fail(ps, "key without a value");
	if (next_word(&rest).len)
		return fail(ps, "more than one value");
	switch (k) {
	case K_VERSION:
		if (span_is(v, "1"))
			p->version = 1;
		else if (span_is(v, "2"))
			p->version = 2;
		else if (span_is(v, "3"))
			p->version = 3;
		else
			return fail(ps, "unsupported version");
		return 0;
	case K_ARCH:
		return span_is(v, CP_ARCH_NAME) ? 0 : fail(ps, "profile is for another architecture");
	case K_PARALLEL:
		p->has_parallel = 1;
		if (span_is(v, "none")) {
			p->parallel_min_share_pages = 0;
			return 0;
		}
		if (pages_value(ps, v, &p->parallel_min_share_pages))
			return -EINVAL;
		return p->parallel_min_share_pages ? 0 : fail(ps, "parallel 0: write 'none'");
	case K_CACHED_MIN_MBPS:
		p->has_cached_min_mbps = 1;
		if (number_value(v, &p->cached_min_mbps))
			return fail(ps, "cached_min_mbps needs a number (MB/s; 0: never estimate)");
		return 0;
	case K_DISCARD_FROM:
		p->has_discard_from = 1;
		if (span_is(v, "none")) {
			p->discard_from_pages = CP__BAND_UNUSED;
			return 0;
		}
		if (pages_value(ps, v, &p->discard_from_pages))
			return -EINVAL;
		return p->discard_from_pages ? 0 : fail(ps, "discard_from 0: write 'none' or a size");
	case K_SMALL:        return kernel_value(ps, v, 0, &p->small);
	case K_TEMPORAL:     return kernel_value(ps, v, 0, &p->temporal);
	case K_NONTEMPORAL:  return kernel_value(ps, v, 1, &p->nontemporal);
	case K_SMALL_BELOW:  return pages_value(ps, v, &p->small_below_pages);
	case K_NT_FROM:      return pages_value(ps, v, &p->nt_from_pages);
	default:             return fail(ps, "unknown key");
	}
}

/* One line, comment stripped: blank, or "key value..." separated by blanks. */
static int parse_line(struct parse *ps, const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (line[i] == '#') {
			len = i;
			break;
		}
	struct span rest = { line, len };
	struct span key = next_word(&rest);
	if (!key.len)
		return 0;
	if (ps->seen & (1u << K_END))
		return fail(ps, "text after 'end'");
	unsigned k;
	for (k = 0; k < NKEYS && !span_is(key, key_names[k]); k++)
		;
	if (k == NKEYS)
		return fail(ps, "unknown key");
	if (k != K_VERSION && !(ps->seen & (1u << K_VERSION)))
		return fail(ps, "the first key must be 'version'");
	if ((ps->p->version == 1 && ((1u << k) & (V2_KEYS | V3_KEYS))) ||
	    (ps->p->version == 2 && ((1u << k) & (V1_KEYS | V3_KEYS))) ||
	    (ps->p->version == 3 && ((1u << k) & V1_KEYS)))
		return fail(ps, "unknown key");
	if ((ps->seen & (1u << k)) && k != K_BAND && k != K_UNCACHED_BAND)
		return fail(ps, "key given twice");
	ps->seen |= 1u << k;
	if (k >= K_SMALL && k <= K_NONTEMPORAL)
		ps->p->v1_given |= 1u << (k - K_SMALL);
	return apply_key(ps, (enum key)k, rest);
}

static int check_whole(struct parse *ps)
{
	struct cp__profile *p = ps->p;
	ps->err->line = 0;   /* what follows is about the file as a whole */
	if (!(ps->seen & (1u << K_VERSION)))
		return fail(ps, "no 'version' line");
	if (p->version == 1) {
		/* Only when both are given: with one, the other is the default
		 * (nt_from 0 alone is "always non-temporal"). */
		unsigned both = (1u << K_SMALL_BELOW) | (1u << K_NT_FROM);
		if ((ps->seen & both) == both && p->small_below_pages > p->nt_from_pages)
			return fail(ps, "small_below is larger than nt_from");
		return 0;
	}
	if (!(ps->seen & (1u << K_END)))
		return fail(ps, "no 'end' line: the file is incomplete");
	if (!p->has_cpu)
		return fail(ps, "no 'cpu' line");
	if (!p->nbands)
		return fail(ps, "no 'band' line");
	return 0;
}

int cp__profile_parse(const char *text, size_t len, const struct cp__kernel_list *usable,
		      struct cp__profile *out, struct cp__profile_error *err)
{
	struct parse ps = { usable, out, err, 0 };
	for (size_t i = 0; i < sizeof(*out); i++)
		((unsigned char *)out)[i] = 0;
	err->line = 0;
	err->why = "";
	if (len > CP__PROFILE_MAX_BYTES)
		return fail(&ps, "larger than 16 KiB");
	size_t pos = 0;
	for (unsigned line = 1; pos < len; line++) {
		err->line = line;
		if (line > MAX_LINES)
			return fail(&ps, "more than 1024 lines");
		size_t end = pos;
		while (end < len && text[end] != '\n') {
			unsigned char c = (unsigned char)text[end];
			if (end - pos == MAX_LINE)
				return fail(&ps, "line longer than 255 bytes");
			if ((c < 0x20 && c != '\t') || c == 0x7f)
				return fail(&ps, "control character (CR, NUL, ...) in the file");
			end++;
		}
		if (parse_line(&ps, text + pos, end - pos))
			return -EINVAL;
		pos = end + 1;
	}
	return check_whole(&ps);
}

/* Trailing blanks aside (brand strings are padded). */
static int brand_eq(const char *a, const char *b)
{
	size_t na = cp__strlen(a), nb = cp__strlen(b);
	while (na && a[na - 1] == ' ')
		na--;
	while (nb && b[nb - 1] == ' ')
		nb--;
	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

void cp__profile_cpu_of(const struct cp__cpu *cpu, struct cp__profile_cpu *out)
{
	for (size_t i = 0; i < sizeof(*out); i++)
		((unsigned char *)out)[i] = 0;
	cp__strlcpy(out->vendor, cpu->vendor, sizeof(out->vendor));
	out->family = cpu->family;
	out->model = cpu->model_id;
	out->midr_implementer = cpu->midr_implementer;
	out->midr_part = cpu->midr_part;
	cp__strlcpy(out->brand, cpu->model, sizeof(out->brand));
}

int cp__profile_cpu_matches(const struct cp__profile *p, const struct cp__cpu *cpu)
{
	if (!p->has_cpu)
		return 1;
	const struct cp__profile_cpu *c = &p->cpu;
	if (!cp__streq(c->vendor, cpu->vendor))
		return 0;
	if (cp__streq(c->vendor, "arm64"))
		return c->midr_implementer == cpu->midr_implementer && c->midr_part == cpu->midr_part;
	return c->family == cpu->family && c->model == cpu->model_id &&
	       (!c->brand[0] || brand_eq(c->brand, cpu->model));
}

/* Decimal digits of v into out; returns the count. */
static size_t put_uint(char *out, size_t room, unsigned v, unsigned base)
{
	char digits[12];
	size_t n = 0, w = 0;
	do {
		unsigned d = v % base;
		digits[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		v /= base;
	} while (v);
	while (n && w + 1 < room)
		out[w++] = digits[--n];
	return w;
}

static size_t put_str(char *out, size_t room, const char *s)
{
	size_t w = 0;
	while (*s && w + 1 < room)
		out[w++] = *s++;
	return w;
}

void cp__profile_cpu_describe(const struct cp__profile_cpu *c, char *out, size_t len)
{
	size_t w = put_str(out, len, c->vendor);
	int arm = cp__streq(c->vendor, "arm64");
	w += put_str(out + w, len - w, arm ? " 0x" : " ");
	w += put_uint(out + w, len - w, arm ? c->midr_implementer : c->family, arm ? 16 : 10);
	w += put_str(out + w, len - w, arm ? " 0x" : " ");
	w += put_uint(out + w, len - w, arm ? c->midr_part : c->model, arm ? 16 : 10);
	if (!arm && c->brand[0]) {
		w += put_str(out + w, len - w, " ");
		w += put_str(out + w, len - w, c->brand);
	}
	out[w] = '\0';
}
