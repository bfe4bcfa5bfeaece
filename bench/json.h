/* SPDX-License-Identifier: MIT */
/* JSON: a string literal written (table.c, header.c), and a small reader for
 * clearbench's own output files (compare.c). */
#ifndef CLEARBENCH_JSON_H
#define CLEARBENCH_JSON_H

#include <stddef.h>
#include <stdio.h>

enum json_type { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT };
struct json {
	enum json_type type;
	double num;                /* J_NUMBER, J_BOOL */
	char *str;                 /* J_STRING */
	size_t n;                  /* J_ARRAY, J_OBJECT: items (and keys, objects only) */
	char **keys;
	struct json *items;
};
/* The file's value, or NULL with a reason in err. */
struct json *json_read_file(const char *path, char *err, size_t errlen);
void json_free(struct json *v);
/* A member of an object, or NULL. */
const struct json *json_get(const struct json *obj, const char *key);
/* The string, or NULL when v is not one. */
const char *json_str(const struct json *v);

/* s as a JSON string literal. */
void bench_json_str(FILE *f, const char *s);

#endif
