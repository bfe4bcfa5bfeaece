/* SPDX-License-Identifier: MIT */
/* JSON: string literals written (table.c, header.c); a small reader for
 * clearbench's own output files (compare): objects, arrays, strings, numbers,
 * true/false/null; depth-limited; errors say where. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"

void bench_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

struct parser {
	const char *p, *start;
	char err[128];
	int depth;
};

static void *xalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);
	if (!p)
		abort();
	return p;
}

static void ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
}

static int fail(struct parser *ps, const char *what)
{
	if (!ps->err[0])
		snprintf(ps->err, sizeof(ps->err), "%s at byte %td", what, ps->p - ps->start);
	return -1;
}

static int parse_value(struct parser *ps, struct json *v);

static int parse_string(struct parser *ps, char **out)
{
	size_t cap = 16, n = 0;
	char *s = xalloc(cap);
	ps->p++;   /* the opening quote */
	for (;;) {
		char c = *ps->p++;
		if (!c || (unsigned char)c < 0x20) {
			free(s);
			return fail(ps, "unterminated string");
		}
		if (c == '"')
			break;
		if (c == '\\') {
			char e = *ps->p++;
			switch (e) {
			case '"': case '\\': case '/': break;
			case 'b': e = '\b'; break;
			case 'f': e = '\f'; break;
			case 'n': e = '\n'; break;
			case 'r': e = '\r'; break;
			case 't': e = '\t'; break;
			case 'u': {
				unsigned u;
				if (sscanf(ps->p, "%4x", &u) != 1) {
					free(s);
					return fail(ps, "bad \\u escape");
				}
				ps->p += 4;
				e = u < 0x80 ? (char)u : '?';
				break;
			}
			default:
				free(s);
				return fail(ps, "bad escape");
			}
			c = e;
		}
		if (n + 2 > cap)
			s = realloc(s, cap *= 2);
		if (!s)
			abort();
		s[n++] = c;
	}
	s[n] = '\0';
	*out = s;
	return 0;
}

static int parse_items(struct parser *ps, struct json *v, int object)
{
	char close = object ? '}' : ']';
	size_t cap = 0;
	ps->p++;
	ws(ps);
	if (*ps->p == close) {
		ps->p++;
		return 0;
	}
	for (;;) {
		if (v->n == cap) {
			cap = cap ? 2 * cap : 8;
			v->items = realloc(v->items, cap * sizeof(*v->items));
			v->keys = realloc(v->keys, cap * sizeof(*v->keys));
			if (!v->items || !v->keys)
				abort();
		}
		v->keys[v->n] = NULL;
		memset(&v->items[v->n], 0, sizeof(v->items[v->n]));
		ws(ps);
		if (object) {
			if (*ps->p != '"' || parse_string(ps, &v->keys[v->n]))
				return fail(ps, "want a key");
			ws(ps);
			if (*ps->p++ != ':')
				return fail(ps, "want ':'");
		}
		v->n++;
		if (parse_value(ps, &v->items[v->n - 1]))
			return -1;
		ws(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p++ == close)
			return 0;
		return fail(ps, object ? "want ',' or '}'" : "want ',' or ']'");
	}
}

static int parse_value(struct parser *ps, struct json *v)
{
	ws(ps);
	if (++ps->depth > 32)
		return fail(ps, "nested too deep");
	int rc = 0;
	char c = *ps->p;
	if (c == '{') {
		v->type = J_OBJECT;
		rc = parse_items(ps, v, 1);
	} else if (c == '[') {
		v->type = J_ARRAY;
		rc = parse_items(ps, v, 0);
	} else if (c == '"') {
		v->type = J_STRING;
		rc = parse_string(ps, &v->str);
	} else if (!strncmp(ps->p, "true", 4) || !strncmp(ps->p, "false", 5)) {
		v->type = J_BOOL;
		v->num = c == 't';
		ps->p += c == 't' ? 4 : 5;
	} else if (!strncmp(ps->p, "null", 4)) {
		v->type = J_NULL;
		ps->p += 4;
	} else {
		char *end;
		v->type = J_NUMBER;
		v->num = strtod(ps->p, &end);
		if (end == ps->p)
			rc = fail(ps, "not JSON");
		ps->p = end;
	}
	ps->depth--;
	return rc;
}

struct json *json_read_file(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "cannot read: %m");
		return NULL;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	char buf[65536];
	size_t n;
	while (m && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, m);
	fclose(f);
	if (!m || fclose(m))
		abort();
	struct parser ps = { text, text, "", 0 };
	struct json *v = xalloc(sizeof(*v));
	int rc = parse_value(&ps, v);
	ws(&ps);
	if (!rc && *ps.p)
		rc = fail(&ps, "trailing text");
	free(text);
	if (rc) {
		snprintf(err, errlen, "not valid JSON: %s", ps.err);
		json_free(v);
		return NULL;
	}
	return v;
}


static void json_free_inner(struct json *v)
{
	for (size_t i = 0; i < v->n; i++) {
		free(v->keys[i]);
		json_free_inner(&v->items[i]);
	}
	free(v->keys);
	free(v->items);
	free(v->str);
}

void json_free(struct json *v)
{
	if (v) {
		json_free_inner(v);
		free(v);
	}
}

const struct json *json_get(const struct json *obj, const char *key)
{
	if (!obj || obj->type != J_OBJECT)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (obj->keys[i] && !strcmp(obj->keys[i], key))
			return &obj->items[i];
	return NULL;
}

const char *json_str(const struct json *v)
{
	return v && v->type == J_STRING ? v->str : NULL;
}
