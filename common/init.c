/* SPDX-License-Identifier: MIT */
/*
 * One-time initialisation, the only place that reads the environment, files
 * or writes messages, and the publication of states.
 *
 * First use (pthread_once): detect the CPU, read the environment, decide the
 * default state into `initial` (static: no heap), then the profile if one is
 * named or installed (into `initial_profile`, also static), and publish one
 * of the two. Nothing is published until it is whole.
 *
 * cp_set_profile reads and parses with no lock held, decides the new state
 * privately, and takes publish_lock only to publish it. States are kept for
 * the life of the process (a reader may hold the old pointer: nothing tells
 * when it is done): identical ones are published again rather than copied,
 * and at most MAX_STATES distinct policies are made (kept_same: a state per
 * policy, whatever the path it was loaded under); past that cp_set_profile
 * returns -ENOMEM and the policy stays as it is. They live in the library's
 * own image, never on the heap or in mappings of their own: a dlclose takes
 * them with it (a mapping per state outlived each unload), and untouched
 * slots cost address space only.
 *
 * fork(): publish_lock's handlers are registered once, by a constructor (or
 * the first call, if it runs before the constructors), never inside the once
 * routine: glibc re-runs that routine in a child forked while it ran, and a
 * second registration made the child's next fork take the lock twice. A fork
 * from a signal handler that interrupted this thread while it held (or was
 * taking) the lock skips it, rather than wait on itself; a cp_set_profile
 * from such a handler returns -EBUSY (a profile reloaded on SIGHUP would
 * otherwise wait on its own thread's lock for good).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "atfork.h"
#include "parse.h"
#include "profile.h"
#include "profile_file.h"
#include "select.h"
#include "residency.h"
#include "state.h"

#ifndef CP_SYSCONFDIR
#define CP_SYSCONFDIR "/etc"
#endif
/* The machine-wide profile; a variable only so tests can point it elsewhere
 * before the first call (never the environment: a setuid program must not
 * be steered to another file). */
const char *cp__system_profile_path = CP_SYSCONFDIR "/clearpages/profile";
#define SOURCE_MAX 4200               /* "system:" + a path */
#define MAX_STATES 256                /* distinct states published */
#define SOURCES_BYTES (64 * 1024)     /* their sources: 256 bytes each on average */

const struct cp__state *cp__current;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct cp__state initial, initial_profile;
static char initial_profile_source[SOURCE_MAX];
/* The first use reads a profile file into this (no heap): it runs once, and
 * cp_set_profile, which maps its own, waits for it to finish first. */
static char initial_text[CP__PROFILE_MAX_BYTES + 1];
static int quiet;

/* Serialises publications and guards the list of kept states. Held for a few
 * loads and stores (a new state takes a slot below); no system call, no I/O. */
static pthread_mutex_t publish_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct cp__state *kept;   /* newest first, through ->older */
static unsigned nkept;

/* This thread holds publish_lock or is about to (atfork.h's marked lock): a
 * signal handler on this thread that forks must not take it again. */
static _Thread_local atomic_int holds_publish, fork_took_publish;

static void publish_lock_take(void)
{
	cp__marked_lock(&publish_lock, &holds_publish);
}

static void publish_lock_drop(void)
{
	cp__marked_unlock(&publish_lock, &holds_publish);
}

/* A fork from a handler that interrupted this thread's publication: the
 * interrupted code still holds (or is taking) the lock and releases it. */
static void atfork_prepare(void)
{
	int take = !atomic_load_explicit(&holds_publish, memory_order_relaxed);
	atomic_store_explicit(&fork_took_publish, take, memory_order_relaxed);
	if (take)
		publish_lock_take();
}
static void atfork_release(void)
{
	if (atomic_load_explicit(&fork_took_publish, memory_order_relaxed))
		publish_lock_drop();
}
static int atfork_registered;
static void register_atfork(void)
{
	cp__atfork_once(&atfork_registered, atfork_prepare, atfork_release, atfork_release);
}
__attribute__((constructor)) static void init_fork_safe(void)
{
	register_atfork();
}

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
	if (quiet)
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

/* Read (into text, cap bytes), parse and check a profile file against base's
 * CPU. 0, -ENOENT or -EINVAL; why/line say what was wrong (line 0: the file
 * as a whole). */
static int profile_read(const struct cp__state *base, const char *path, int trusted,
			char *text, size_t cap, struct cp__profile *out,
			struct cp__profile_error *err)
{
	size_t len;
	err->line = 0;
	int r = cp__profile_file_read(path, text, cap, &len, trusted);
	if (r == -EINVAL)
		err->why = trusted ? "not a root-owned file that only root may write, larger than "
				     "16 KiB, or changed while read (install profiles by rename)"
				   : "larger than 16 KiB, or changed while read (install profiles by rename)";
	if (!r && cp__profile_parse(text, len, &base->kernels, out, err))
		r = -EINVAL;
	if (!r && !cp__profile_cpu_matches(out, &base->cpu)) {
		struct cp__profile_cpu here;
		char a[96], b[96];
		cp__profile_cpu_of(&base->cpu, &here);
		cp__profile_cpu_describe(&out->cpu, a, sizeof(a));
		cp__profile_cpu_describe(&here, b, sizeof(b));
		snprintf(err->detail, sizeof(err->detail), "measured on %s, this CPU is %s", a, b);
		err->why = err->detail;
		r = -EINVAL;
	}
	return r;
}

/* The init-time profile sources, in order: 1 when one was decided into
 * initial_profile. */
static int profile_at_init(const char *var_or_kind, const char *path, int trusted,
			   const char *prefix)
{
	struct cp__profile pr;
	struct cp__profile_error err;
	int r = profile_read(&initial, path, trusted, initial_text, sizeof(initial_text), &pr, &err);
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
	initial_profile = initial;
	cp__policy_with_profile(&initial, &pr, &initial_profile.policy);
	snprintf(initial_profile_source, sizeof(initial_profile_source), "%s:%s", prefix, path);
	initial_profile.source = initial_profile_source;
	return 1;
}

static void read_environment(struct cp__decide_in *in)
{
	const char *q = env("CLEARPAGES_QUIET");
	quiet = in->quiet = q && !strcmp(q, "1");
	if (q && strcmp(q, "0") && strcmp(q, "1"))
		msg("CLEARPAGES_QUIET: bad value '%s' ignored (use 0 or 1)", q);
	const char *disable = env("CLEARPAGES_DISABLE");
	if (disable)
		in->disable = cp__disable_parse(disable, disable_unknown, NULL);
	const char *nt = env("CLEARPAGES_NT_THRESHOLD");
	if (nt) {
		size_t bytes;
		if (cp__parse_size(nt, &bytes))
			msg("CLEARPAGES_NT_THRESHOLD: bad value '%s' ignored "
			    "(bytes, optional k/M/G suffix)", nt);
		else {  /* round up: an extent of at least `bytes` goes non-temporal */
			in->has_nt_threshold = 1;
			in->nt_threshold_pages = bytes / CP_PAGE_SIZE + (bytes % CP_PAGE_SIZE != 0);
		}
	}
	in->forced_name = env("CLEARPAGES_KERNEL");
}

/* s joins the kept states (publish_lock held): never freed from now on. */
static void keep_locked(struct cp__state *s)
{
	s->older = kept;
	kept = s;
	nkept++;
}

static void init(void)
{
	register_atfork();     /* a call made before the constructors ran */
	struct cp__cpu cpu;
	struct cp__decide_in in = { .cpu = &cpu };
	read_environment(&in);
	cp__cpu_detect(&cpu);
	cp__counter_calibration_start();   /* published with the state below */
	if (cp__state_decide(&in, &initial))
		msg("CLEARPAGES_KERNEL: '%s' is not a usable kernel here; ignored", in.forced_name);

	const char *profile = env("CLEARPAGES_PROFILE");
	int loaded = profile && profile_at_init("CLEARPAGES_PROFILE", profile, 0, "env");
	if (!loaded)
		loaded = profile_at_init("system profile", cp__system_profile_path, 1, "system");
	publish_lock_take();
	keep_locked(&initial);
	if (loaded)
		keep_locked(&initial_profile);
	__atomic_store_n(&cp__current, loaded ? &initial_profile : &initial, __ATOMIC_RELEASE);
	publish_lock_drop();
}

/* Not cancelled inside: the files and messages of the first use, and
 * cp_set_profile's, are no cancellation points of the calls (clearpages.h). */
const struct cp__state *cp__state_slow(void)
{
	int cancel_state;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	pthread_once(&once, init);
	pthread_setcancelstate(cancel_state, NULL);
	return cp__state_published();
}

/* cp_set_profile's read buffer comes from mmap, and states from the slots
 * below, not malloc: a profile change then takes no lock but publish_lock,
 * so a signal handler may fork while one runs (glibc's fork waits for
 * malloc's locks), and an allocator may call it from inside itself. */
static void *pages_alloc(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* The states cp_set_profile and cp__policy_publish make, and their sources
 * (publish_lock held): a slot and len bytes of source, or NULL. */
static struct cp__state state_slots[MAX_STATES];
static unsigned state_slots_used;
static char sources[SOURCES_BYTES];
static size_t sources_used;
static struct cp__state *slot_alloc(size_t len, char **source)
{
	if (state_slots_used == MAX_STATES || len > SOURCES_BYTES - sources_used)
		return NULL;
	*source = sources + sources_used;
	sources_used += len;
	return &state_slots[state_slots_used++];
}

/* The kept state to publish for policy p (publish_lock held): the one with
 * this policy and source, else the first kept with this policy, else NULL.
 * States are keyed on their policy: the cap counts policies, not names, so
 * one profile reloaded under any number of spellings of its path (symlinks,
 * "./", "//") or from copies of its file is one state, and its source stays
 * the name that first published that policy (a published state is never
 * rewritten; a state per name would let names exhaust the cap). */
static const struct cp__state *kept_same(const struct cp__policy *p, const char *source)
{
	const struct cp__state *first = NULL;
	for (const struct cp__state *s = kept; s; s = s->older)
		if (cp__policy_eq(&s->policy, p)) {
			if (!strcmp(s->source, source))
				return s;
			first = s;      /* the list is newest first */
		}
	return first;
}

/* Publish base with policy p and the given source: a kept state with that
 * policy again, else a new one in a slot of the library's image. 0, -ENOMEM,
 * or -EBUSY from a signal handler that interrupted this thread inside a
 * publication (its lock is held, or being taken, by the code the handler
 * interrupted); nothing changed on error. */
static int publish(const struct cp__state *base, const struct cp__policy *p, const char *source)
{
	if (atomic_load_explicit(&holds_publish, memory_order_relaxed))
		return -EBUSY;
	size_t len = strlen(source) + 1;
	publish_lock_take();
	const struct cp__state *same = kept_same(p, source);
	char *kept_source = NULL;
	struct cp__state *s = same || nkept >= MAX_STATES ? NULL : slot_alloc(len, &kept_source);
	if (s) {
		*s = *base;
		s->policy = *p;
		s->source = memcpy(kept_source, source, len);
		keep_locked(s);
		same = s;
	}
	if (same)
		__atomic_store_n(&cp__current, same, __ATOMIC_RELEASE);
	publish_lock_drop();
	return same ? 0 : -ENOMEM;
}

int cp__policy_publish(const struct cp__policy *policy, const char *source)
{
	struct cp__policy p = *policy;
	if (!p.copy.band[0].kernel)   /* copy bands, where it made none */
		cp__copy_bands_derive(&cp__state()->copy_kernels, &p);
	cp__policy_finish(&p);     /* a hand-made policy's derived fields, the copies' too */
	return publish(cp__state(), &p, source);
}

static int set_profile(const char *path);
int cp_set_profile(const char *path)
{
	int cancel_state;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	int r = set_profile(path);
	pthread_setcancelstate(cancel_state, NULL);
	return r;
}

static int set_profile(const char *path)
{
	const struct cp__state *base = cp__state();
	if (!path)
		return publish(&initial, &initial.policy, initial.source);
	struct cp__profile pr;
	struct cp__profile_error err;
	size_t cap = CP__PROFILE_MAX_BYTES + 1;
	char *text = pages_alloc(cap);
	if (!text)
		return -ENOMEM;
	int r = profile_read(base, path, 0, text, cap, &pr, &err);
	munmap(text, cap);
	if (r)
		return r;
	struct cp__policy policy;
	cp__policy_with_profile(base, &pr, &policy);
	char source[SOURCE_MAX];
	snprintf(source, sizeof(source), "env:%s", path);
	return publish(base, &policy, source);
}

const char *cp_policy_source(void)
{
	return cp__state()->source;
}
