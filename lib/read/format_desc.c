/*
 * format_desc.c - format descriptors (formats/NAME.fmt, lbt-formats(5)) and
 * the built-in ones compiled into the library.
 *
 * A descriptor is lines of "key value"; '#' starts a comment line, blank
 * lines are ignored.  Keys: name, describe, dialect (haproxy, nginx, json or
 * tsv), escape (nginx: default, json, none), captures (host,ua,...),
 * priority (integer, detection tie-breaker), trailing (error, or ignore:
 * text after the template is accepted), keys (JSON templates: all, or
 * any: a line may lack some of the template's keys), template and
 * template+.  For
 * template and template+ the value is everything after the one blank that
 * follows the key, so leading spaces are kept; template+ appends its value
 * to the template verbatim (an NGINX log_format spread over lines).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format_int.h"
#include "lbt/format_builtin.h"
#include "lbt/num.h"

#define MAX_DESC (1u << 20)

/* A descriptor being read. */
struct desc {
	char *v[8];           /* name, describe, dialect, escape, captures, priority, trailing,
	                         keys */
	char *tmpl;
	size_t tlen;
	uint64_t tline;       /* line of the first template key */
};

static const char *const keys[] = { "name", "describe", "dialect", "escape", "captures",
	"priority", "trailing", "keys" };
#define NKEYS (sizeof keys / sizeof keys[0])

/* Release a descriptor's strings. */
static void desc_free(struct desc *d)
{
	for (size_t i = 0; i < NKEYS; i++)
		free(d->v[i]);
	free(d->tmpl);
}

/* Append s[0..n) to the template. @return 0 or -1 (no memory) */
static int tmpl_append(struct desc *d, const char *s, size_t n)
{
	char *t = realloc(d->tmpl, d->tlen + n + 1);

	if (t == NULL)
		return -1;
	memcpy(t + d->tlen, s, n);
	d->tlen += n;
	t[d->tlen] = '\0';
	d->tmpl = t;
	return 0;
}

/* Trimmed copy of s[0..n). */
static char *trimmed(const char *s, size_t n)
{
	while (n > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return lbt_fmti_strndup(s, n);
}

/* Apply one "key value" line. @return 0 or -1 with err at file:lineno */
static int desc_line(struct desc *d, const char *s, size_t n, const char *file,
    uint64_t lineno, lbt_err *err)
{
	size_t kl = 0, i;
	const char *val;

	while (kl < n && s[kl] != ' ' && s[kl] != '\t')
		kl++;
	val = s + (kl < n ? kl + 1 : kl);
	if ((kl == 8 && memcmp(s, "template", 8) == 0) || (kl == 9 && memcmp(s, "template+", 9) == 0)) {
		if (kl == 9 && d->tmpl == NULL)
			return lbt_err_at(err, file, lineno, "template+ before template");
		if (kl == 8 && d->tmpl != NULL)
			return lbt_err_at(err, file, lineno, "second template (use template+ to continue)");
		if (kl == 8)
			d->tline = lineno;
		if (tmpl_append(d, val, (size_t)(s + n - val)) < 0)
			return lbt_err_at(err, file, lineno, "out of memory");
		return 0;
	}
	for (i = 0; i < NKEYS; i++)
		if (strlen(keys[i]) == kl && memcmp(keys[i], s, kl) == 0)
			break;
	if (i == NKEYS)
		return lbt_err_at(err, file, lineno, "unknown key '%.*s' (name, describe, dialect, "
		    "escape, captures, priority, trailing, keys, template, template+)", (int)kl, s);
	free(d->v[i]);
	d->v[i] = trimmed(val, (size_t)(s + n - val));
	return d->v[i] ? 0 : lbt_err_at(err, file, lineno, "out of memory");
}

/* Read every line of text into d. @return 0 or -1 */
static int desc_read(struct desc *d, const char *text, const char *file, lbt_err *err)
{
	const char *p = text;
	uint64_t lineno = 0;

	while (*p != '\0') {
		const char *nl = strchr(p, '\n'), *e = nl ? nl : p + strlen(p);
		size_t n = (size_t)(e - p);

		lineno++;
		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (n > 0 && p[0] != '#' && strspn(p, " \t") < n &&
		    desc_line(d, p, n, file, lineno, err) < 0)
			return -1;
		p = nl ? nl + 1 : e;
	}
	return 0;
}

/* Dialect named s. @return 0 with *dl, or -1 */
static int dialect_of(const char *s, lbt_dialect *dl)
{
	if (strcmp(s, "haproxy") == 0)
		*dl = LBT_DIALECT_HAPROXY;
	else if (strcmp(s, "nginx") == 0)
		*dl = LBT_DIALECT_NGINX;
	else if (strcmp(s, "tsv") == 0 || strcmp(s, "lbt-tsv") == 0)
		*dl = LBT_DIALECT_TSV;
	else if (strcmp(s, "json") == 0)
		*dl = LBT_DIALECT_JSON;
	else
		return -1;
	return 0;
}

/* Give err (already holding a message) the file name and line. */
static void err_here(lbt_err *err, const char *file, uint64_t line)
{
	char msg[sizeof err->msg];

	if (err == NULL)
		return;
	memcpy(msg, err->msg, sizeof msg);
	lbt_err_at(err, file, line, "%s", msg);
}

/*
 * The options that tune a compiled format: trailing (error or ignore, text
 * templates) and keys (all or any, JSON templates).  @return 0, or -1 with
 * err at file
 */
static int desc_options(const struct desc *d, lbt_format *f, const char *file, lbt_err *err)
{
	const char *tr = d->v[6], *ks = d->v[7];

	if (tr != NULL && strcmp(tr, "ignore") != 0 && strcmp(tr, "error") != 0)
		return lbt_err_at(err, file, 0, "trailing '%s': ignore or error", tr);
	if (ks != NULL && strcmp(ks, "any") != 0 && strcmp(ks, "all") != 0)
		return lbt_err_at(err, file, 0, "keys '%s': any or all", ks);
	if (tr != NULL && strcmp(tr, "ignore") == 0) {
		if (f->enc != ENC_TEXT)
			return lbt_err_at(err, file, 0, "trailing ignore is for text templates");
		f->prog.tail = 1;
	}
	if (ks != NULL && strcmp(ks, "any") == 0) {
		if (f->enc != ENC_HJSON && f->enc != ENC_NJSON)
			return lbt_err_at(err, file, 0, "keys any is for JSON templates");
		f->keys_any = 1;
	}
	return 0;
}

/* Compile a read descriptor; name_default when it has no name key. @return format or NULL */
static lbt_format *desc_build(struct desc *d, const char *name_default, const char *file,
    lbt_err *err)
{
	lbt_dialect dl;
	lbt_format *f;
	int64_t prio = 0;

	if (d->v[2] == NULL || dialect_of(d->v[2], &dl) < 0) {
		lbt_err_at(err, file, 0, d->v[2] ? "unknown dialect '%s' (haproxy, nginx, json or "
		    "tsv)" : "no dialect key%s", d->v[2] ? d->v[2] : "");
		return NULL;
	}
	if (d->tmpl == NULL && dl != LBT_DIALECT_TSV && dl != LBT_DIALECT_JSON) {
		lbt_err_at(err, file, 0, "no template key");
		return NULL;
	}
	if (d->v[5] != NULL && lbt_num_parse(d->v[5], -1000, 1000, "priority", &prio, err) < 0) {
		err_here(err, file, 0);
		return NULL;
	}
	f = lbt_format_compile(dl, d->tmpl ? d->tmpl : "", d->v[3], err);
	if (f == NULL) {
		err_here(err, file, d->tline);
		return NULL;
	}
	f->priority = (int)prio;
	free(f->name);
	f->name = lbt_fmti_strndup(d->v[0] ? d->v[0] : name_default,
	    strlen(d->v[0] ? d->v[0] : name_default));
	f->describe = d->v[1] ? lbt_fmti_strndup(d->v[1], strlen(d->v[1])) : NULL;
	if (f->name == NULL || (d->v[4] && lbt_fmti_set_captures(f, d->v[4], err) < 0)) {
		if (f->name == NULL)
			lbt_err_set(err, "out of memory");
		err_here(err, file, 0);
		lbt_format_free(f);
		return NULL;
	}
	if (desc_options(d, f, file, err) < 0) {
		lbt_format_free(f);
		return NULL;
	}
	return f;
}

/*
 * Compile descriptor `text`; `name` is used when it has no name key, `file`
 * labels messages.  @return a format, or NULL with err at file:line.
 */
lbt_format *lbt_fmti_from_desc(const char *text, const char *name, const char *file, lbt_err *err)
{
	struct desc d;
	lbt_format *f = NULL;

	memset(&d, 0, sizeof d);
	if (desc_read(&d, text, file, err) == 0)
		f = desc_build(&d, name, file, err);
	desc_free(&d);
	return f;
}

/* Whole file into a new NUL-terminated buffer. @return it or NULL with err */
static char *slurp(const char *path, lbt_err *err)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	size_t n;

	if (fp == NULL) {
		lbt_err_at(err, path, 0, "%s", strerror(errno));
		return NULL;
	}
	buf = malloc(MAX_DESC + 1);
	n = buf ? fread(buf, 1, MAX_DESC + 1, fp) : 0;
	if (buf == NULL || ferror(fp) || n > MAX_DESC) {
		lbt_err_at(err, path, 0, buf == NULL ? "out of memory" :
		    ferror(fp) ? "read error" : "larger than 1 MiB");
		fclose(fp);
		free(buf);
		return NULL;
	}
	fclose(fp);
	buf[n] = '\0';
	return buf;
}

/* File name without directory and ".fmt", copied into buf. */
static const char *base_name(const char *path, char *buf, size_t size)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strlen(b);
	if (n > 4 && strcmp(b + n - 4, ".fmt") == 0)
		n -= 4;
	snprintf(buf, size, "%.*s", (int)n, b);
	return buf;
}

/* Descriptor text of built-in `name`, or NULL (static storage). */
const char *lbt_format_builtin_text(const char *name)
{
	for (size_t i = 0; lbt_format_builtins[i].name != NULL; i++)
		if (strcmp(lbt_format_builtins[i].name, name) == 0)
			return lbt_format_builtins[i].text;
	return NULL;
}

/* Names of the built-ins, NULL-terminated (generated table). */
const char *const *lbt_format_builtin_names(void)
{
	return lbt_format_builtin_name_list;
}

/* "unknown format 'x' (built-in: a, b, ...)". */
static void unknown(const char *spec, lbt_err *err)
{
	char list[400] = "";
	size_t n = 0;

	for (size_t i = 0; lbt_format_builtins[i].name != NULL && n < sizeof list; i++)
		n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "",
		    lbt_format_builtins[i].name);
	lbt_err_set(err, "unknown format '%s' (built-in: %s; or a descriptor file path)", spec,
	    list);
}

/*
 * A descriptor file when spec has a '/' or ends in ".fmt", else a built-in.
 * @return the format, or NULL with err (unknown name lists the built-ins).
 */
lbt_format *lbt_format_open(const char *spec, lbt_err *err)
{
	size_t n = strlen(spec);
	char name[256], label[300];
	const char *text;
	lbt_format *f;

	if (strchr(spec, '/') != NULL || (n > 4 && strcmp(spec + n - 4, ".fmt") == 0)) {
		char *buf = slurp(spec, err);

		if (buf == NULL)
			return NULL;
		f = lbt_fmti_from_desc(buf, base_name(spec, name, sizeof name), spec, err);
		free(buf);
		return f;
	}
	text = lbt_format_builtin_text(spec);
	if (text == NULL) {
		unknown(spec, err);
		return NULL;
	}
	snprintf(label, sizeof label, "formats/%s.fmt", spec);
	return lbt_fmti_from_desc(text, spec, label, err);
}
