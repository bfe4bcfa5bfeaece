/* SPDX-License-Identifier: MIT */
/*
 * tune's profile: its text (format 3, derive.c writes it), the check that the
 * library reads it as meant, and where it goes (--out, --install, or printed
 * only, so no run leaves a file behind).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "derive.h"
#include "introspect.h"
#include "opts.h"
#include "table.h"
#include "tune.h"

char *tune_profile_text(const struct tune *t, const struct derive_result *r,
			const struct tune_v3 *v3, size_t *len)
{
	char date[32], cpu[160];
	const char *brand;
	time_t now = time(NULL);
	strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&now));
	bench_profile_cpu_line(cpu, sizeof(cpu), &brand);
	/* tune does not measure the parallel split (the parallel scenario does): left out */
	struct derive_profile_id id = { date, t->k[0]->arch, cpu, brand, 0, 0,
					v3->uncached, v3->cached_min_mbps, v3->comment,
					v3->discard_from_pages };
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	if (!f)
		abort();
	derive_write_profile(f, &id, &t->in, r);
	fclose(f);
	return text;
}

int tune_library_accepts(const struct tune *t, const char *text, size_t len,
			 size_t discard_from_pages, int *uncached)
{
	size_t discard_from;
	if (bench_profile_read(text, len, &discard_from))
		return 1;
	if (discard_from_pages && discard_from != discard_from_pages) {
		fprintf(stderr, "clearbench: the library reads tune's discard_from as %zu pages, "
			"not %zu\n", discard_from, discard_from_pages);
		return 1;
	}
	for (size_t i = 0; i < t->in.nsizes; i++) {
		const struct cp_kernel *k = bench_profile_uncached(t->in.pages[i]);
		uncached[i] = -1;
		for (size_t j = 0; j < t->in.nkernels; j++)
			if (t->k[j] == k)
				uncached[i] = (int)j;
	}
	return 0;
}

/* A temporary file beside `path`, renamed over it: no reader sees half a file. */
static int write_atomic(const char *path, const char *text, size_t len, int root_owned)
{
	char tmp[4096];
	const char *slash = strrchr(path, '/');
	int dir = slash ? (int)(slash - path + 1) : 0;
	if (snprintf(tmp, sizeof(tmp), "%.*s.%s.XXXXXX", dir, path, path + dir) >= (int)sizeof(tmp)) {
		fprintf(stderr, "clearbench: path too long: %s\n", path);
		return 1;
	}
	int fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "clearbench: cannot create %s: %s\n", tmp, strerror(errno));
		return 1;
	}
	int ok = write(fd, text, len) == (ssize_t)len && fchmod(fd, 0644) == 0 &&
		 (!root_owned || fchown(fd, 0, 0) == 0) && fsync(fd) == 0;
	ok = close(fd) == 0 && ok && rename(tmp, path) == 0;
	if (!ok) {
		fprintf(stderr, "clearbench: cannot write %s: %s\n", path, strerror(errno));
		unlink(tmp);
	}
	return !ok;
}

/* Before measuring: a target that is there must be a regular file (renaming
 * over /dev/null would replace it), and --install needs root. 0 or 2. */
int tune_check_targets(const struct bench_opts *opts)
{
	struct stat st;
	if (opts->out_path && lstat(opts->out_path, &st) == 0 && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "clearbench: --out '%s': not a regular file\n", opts->out_path);
		return 2;
	}
	if (opts->install && geteuid() != 0) {
		fprintf(stderr, "clearbench: --install: needs root (the library loads %s only "
			"when root owns it)\n", bench_system_profile_path());
		return 2;
	}
	return 0;
}

int tune_save(const struct bench_opts *opts, const char *text, size_t len, int passed)
{
	int rc = 0;
	if (opts->out_path && (passed || opts->force)) {
		rc |= write_atomic(opts->out_path, text, len, 0);
		if (!rc)
			bench_note("profile written to %s%s; use it with CLEARPAGES_PROFILE=%s",
				   opts->out_path, passed ? "" : " (--force: verify did not pass)",
				   opts->out_path);
	}
	if (opts->install && !passed) {
		bench_note("not installed: verify did not pass (--force never installs)");
		rc = 1;
	} else if (opts->install) {
		/* the folders up to it, as mkdir -p (SYSCONFDIR may be new) */
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s", bench_system_profile_path());
		for (char *p = strchr(dir + 1, '/'); p; p = strchr(p + 1, '/')) {
			*p = '\0';
			if (mkdir(dir, 0755) && errno != EEXIST) {
				fprintf(stderr, "clearbench: cannot create %s: %s\n", dir,
					strerror(errno));
				return 1;
			}
			*p = '/';
		}
		rc |= write_atomic(bench_system_profile_path(), text, len, 1);
		if (!rc)
			bench_note("installed %s (root, 0644): processes started from now on use "
				   "it; remove the file to go back to the defaults",
				   bench_system_profile_path());
	}
	if (!opts->out_path && !opts->install && (passed || opts->force))
		bench_note("profile printed above%s, not saved: --out FILE saves it, --install "
			   "installs it for every process", passed ? "" : " (--force)");
	return rc || !(passed || opts->force);
}

