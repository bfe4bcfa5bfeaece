/* SPDX-License-Identifier: MIT */
/*
 * One-time initialisation, the only place that reads the environment, files
 * or writes messages: detect the CPU, mask CLEARPAGES_DISABLE, build the
 * kernel list, select the policy (CLEARPAGES_PROFILE, else the machine-wide
 * profile, else the built-in profile or the generic rule), publish it.
 * Thread-safe (pthread_once); cp_set_profile reads and parses with no lock
 * held and takes one only around the publication, whose atfork handlers are
 * registered here, before any use.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"
#include "profile.h"
#include "profile_file.h"
#include "select.h"
#include "state.h"

#ifndef CP_SYSCONFDIR
#define CP_SYSCONFDIR "/etc"
#endif
/* The machine-wide profile; a variable only so tests can point it elsewhere
 * before the first call (never the environment: a setuid program must not
 * be steered to another file). */
const char *cp__system_profile_path = CP_SYSCONFDIR "/clearpages/profile";
#define SOURCE_MAX 4200               /* "system:" + a path */

struct cp__state cp__the_state;
int cp__ready;
static pthread_once_t once = PTHREAD_ONCE_INIT;
/* Serialises publications (two cp_set_profile calls must not interleave their
 * stores). Held only for a few stores, never across I/O. */
static pthread_mutex_t publish_lock = PTHREAD_MUTEX_INITIALIZER;
/* cp_policy_source() strings: a publication writes the buffer not in use. */
static char source_buf[2][SOURCE_MAX];
static unsigned source_next;
static char default_source[48];

static const char *env(const char *name)
{
#ifdef __GLIBC__
	const char *v = secure_getenv(name);
#else
	const char *v = getenv(name);
#endif
	return v && *v ? v : NULL;     /* empty is the same as unset */
}

/* One line on stderr, prefixed "clearpages: ", unless CLEARPAGES_QUIET=1. */
static void __attribute__((format(printf, 1, 2))) msg(const char *fmt, ...)
{
	if (cp__the_state.quiet)
		return;
	char line[SOURCE_MAX + 256];
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

static void disable_unknown(const char *tok, size_t len, void *ctx)
{
	(void)ctx;
	msg("CLEARPAGES_DISABLE: unknown feature '%.*s' ignored", (int)len, tok);
}

/* Selection inputs from the state; the profile, if any, from the caller. */
static struct cp__select_in select_in(const struct cp__profile *profile,
				      const struct cp__select_in *overrides)
{
	struct cp__select_in in = *overrides;
	in.profile = profile;
	return in;
}
static struct cp__select_in overrides;   /* cpu, kernels, NT threshold, forced */

/* Read, parse and check a profile file against this CPU. 0, -ENOENT or
 * -EINVAL; why/line say what was wrong (line 0: the file as a whole). */
static int profile_read(const char *path, int trusted, struct cp__profile *out,
			struct cp__profile_error *err)
{
	size_t cap = CP__PROFILE_MAX_BYTES + 1, len;
	char *text = malloc(cap);
	err->line = 0;
	if (!text) {
		err->why = "out of memory";
		return -EINVAL;
	}
	int r = cp__profile_file_read(path, text, cap, &len, trusted);
	if (r == -EINVAL)
		err->why = trusted ? "not a root-owned file that only root may write, larger than "
				     "16 KiB, or changed while read (install profiles by rename)"
				   : "larger than 16 KiB, or changed while read (install profiles by rename)";
	if (!r && cp__profile_parse(text, len, &cp__the_state.kernels, out, err))
		r = -EINVAL;
	free(text);
	if (!r && !cp__profile_cpu_matches(out, &cp__the_state.cpu)) {
		struct cp__profile_cpu here;
		char a[96], b[96];
		cp__profile_cpu_of(&cp__the_state.cpu, &here);
		cp__profile_cpu_describe(&out->cpu, a, sizeof(a));
		cp__profile_cpu_describe(&here, b, sizeof(b));
		snprintf(err->detail, sizeof(err->detail), "measured on %s, this CPU is %s", a, b);
		err->why = err->detail;
		r = -EINVAL;
	}
	return r;
}

/* The policy of a checked profile, published with its source "PREFIX:PATH"
 * (at init and from cp_set_profile alike). */
static void publish_profile(const struct cp__profile *pr, const char *prefix, const char *path)
{
	struct cp__select_in in = select_in(pr, &overrides);
	struct cp__policy p;
	cp__select(&in, &p);
	/* The source buffer not in use: a reader of the previous string keeps it
	 * until the publication after this one. */
	pthread_mutex_lock(&publish_lock);
	char *buf = source_buf[source_next++ & 1];
	snprintf(buf, SOURCE_MAX, "%s:%s", prefix, path);
	pthread_mutex_unlock(&publish_lock);
	cp__policy_publish(&p, buf);
}

/* The init-time profile sources, in order; 1 when one was applied. */
static int load_profile_at_init(const char *var_or_kind, const char *path, int trusted,
				const char *prefix)
{
	struct cp__profile pr;
	struct cp__profile_error err;
	int r = profile_read(path, trusted, &pr, &err);
	if (r == -ENOENT) {
		if (!trusted)   /* a missing system profile is the normal case */
			msg("%s: '%s' is missing or unreadable; ignored", var_or_kind, path);
		return 0;
	}
	if (r) {
		if (err.line)
			msg("%s: '%s' line %u: %s; ignored", var_or_kind, path, err.line, err.why);
		else
			msg("%s: '%s': %s; ignored", var_or_kind, path, err.why);
		return 0;
	}
	publish_profile(&pr, prefix, path);
	return 1;
}

static void atfork_prepare(void) { pthread_mutex_lock(&publish_lock); }
static void atfork_release(void) { pthread_mutex_unlock(&publish_lock); }

static void init(void)
{
	struct cp__state *s = &cp__the_state;
	/* before the first publication: a fork never copies the lock held */
	pthread_atfork(atfork_prepare, atfork_release, atfork_release);
	const char *quiet = env("CLEARPAGES_QUIET");
	s->quiet = quiet && !strcmp(quiet, "1");
	if (quiet && strcmp(quiet, "0") && strcmp(quiet, "1"))
		msg("CLEARPAGES_QUIET: bad value '%s' ignored (use 0 or 1)", quiet);

	cp__cpu_detect(&s->cpu);
	s->features = s->cpu.features;
	const char *disable = env("CLEARPAGES_DISABLE");
	if (disable)
		s->features &= ~cp__disable_parse(disable, disable_unknown, NULL);
	cp__registry_build(s->features, &s->kernels);

	overrides.cpu = &s->cpu;
	overrides.usable = &s->kernels;
	const char *nt = env("CLEARPAGES_NT_THRESHOLD");
	if (nt) {
		size_t bytes;
		if (cp__parse_size(nt, &bytes))
			msg("CLEARPAGES_NT_THRESHOLD: bad value '%s' ignored "
			    "(bytes, optional k/M/G suffix)", nt);
		else {  /* round up: an extent of at least `bytes` goes non-temporal */
			overrides.has_nt_threshold = 1;
			overrides.nt_threshold_pages = bytes / CP_PAGE_SIZE +
						       (bytes % CP_PAGE_SIZE != 0);
		}
	}
	const char *name = env("CLEARPAGES_KERNEL");
	if (name) {
		s->forced = cp__list_find(&s->kernels, name);
		if (!s->forced)
			msg("CLEARPAGES_KERNEL: '%s' is not a usable kernel here; ignored", name);
		overrides.forced = s->forced;
	}

	struct cp__select_in in = select_in(NULL, &overrides);
	const struct cp__builtin *b = cp__select(&in, &s->defaults);
	snprintf(default_source, sizeof(default_source), b ? "builtin:%s" : "generic",
		 b ? b->uarch : "");
	s->default_source = default_source;
	cp__policy_publish(&s->defaults, default_source);

	const char *profile = env("CLEARPAGES_PROFILE");
	if (!profile || !load_profile_at_init("CLEARPAGES_PROFILE", profile, 0, "env"))
		load_profile_at_init("system profile", cp__system_profile_path, 1, "system");
	__atomic_store_n(&cp__ready, 1, __ATOMIC_RELEASE);
}

const struct cp__state *cp__state_slow(void)
{
	pthread_once(&once, init);
	return &cp__the_state;
}

void cp__policy_publish(const struct cp__policy *p, const char *source)
{
	pthread_mutex_lock(&publish_lock);
	cp__policy_store(&cp__the_state.policy, p);
	__atomic_store_n(&cp__the_state.source, source, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&publish_lock);
}

int cp_set_profile(const char *path)
{
	const struct cp__state *s = cp__state();
	if (!path) {
		cp__policy_publish(&s->defaults, s->default_source);
		return 0;
	}
	struct cp__profile pr;
	struct cp__profile_error err;
	int r = profile_read(path, 0, &pr, &err);
	if (r)
		return r;
	publish_profile(&pr, "env", path);
	return 0;
}

const char *cp_policy_source(void)
{
	cp__state();
	return __atomic_load_n(&cp__the_state.source, __ATOMIC_ACQUIRE);
}
