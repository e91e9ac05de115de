/*
 * hacfg_words.c - the word splitter of a haproxy.cfg line, for hacfg.c and
 * hacfg_cond.c (see hacfg_int.h): a restatement of HAProxy 2.6 src/tools.c
 * parse_line() with the options cfgparse.c readcfgfile() passes: env,
 * double and single quotes, backslash, '#', word expansion, and the
 * variables .LINE, .FILE, .SECTION.  HAProxy's own error texts are kept
 * where they are clear, lowercased.  The words of a line are built in one
 * reused buffer of the reader.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hacfg_int.h"
#include "lbt/vec.h"

#define MAX_WORDS LBT_HACFG_MAX_WORDS

/* Fill err with path:line and the message (hacfg_int.h).  @return -1 */
int lbt_hacfgi_err(struct rd *r, const char *fmt, ...)
{
	char msg[sizeof r->err->msg];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return lbt_err_at(r->err, r->path, r->lineno, "%s", msg);
}

/* Append byte ch to the line's output.  @return 0, or -1 with err */
static int emit(struct rd *r, char ch)
{
	if (LBT_GROW(r->out, r->cap, r->n + 1, 256) < 0)
		return lbt_err_set(r->err, "out of memory");
	r->out[r->n++] = ch;
	return 0;
}

/* End the current word and start the next (a 65th is an error, reported
 * once the line is read, as HAProxy does).  @return 0 or -1 */
static int next_word(struct rd *r)
{
	if (emit(r, '\0') < 0)
		return -1;
	if (++r->nw < MAX_WORDS)
		r->start[r->nw] = r->n;
	else
		r->toomany = 1;
	return 0;
}

/* Value of the two hex digits at s, or -1 (s[1] is not read when s[0] is not hex). */
static int hex2(const char *s)
{
	int v = 0;

	for (int k = 0; k < 2; k++) {
		int ch = (unsigned char)s[k];

		if (!isxdigit(ch))
			return -1;
		v = v * 16 + (isdigit(ch) ? ch - '0' : (ch | 0x20) - 'a' + 10);
	}
	return v;
}

/*
 * A backslash at *pin (outside single quotes; dq: inside double quotes):
 * emit what it stands for and move *pin past it.  @return 0, or -1 with err
 */
static int escape(struct rd *r, const char **pin, int dq)
{
	const char *in = *pin;
	char ch = '\\';
	int h;

	switch (in[1]) {
	case ' ': case '\\': case '#': case '\'': case '"':
		ch = *++in;
		break;
	case 't': ch = '\t'; in++; break;
	case 'n': ch = '\n'; in++; break;
	case 'r': ch = '\r'; in++; break;
	case '$':
		if (dq)
			ch = *++in;
		break;
	case 'x':
		if ((h = hex2(in + 2)) < 0)
			return lbt_hacfgi_err(r, "truncated or invalid hexadecimal sequence");
		ch = (char)h;
		in += 3;
		break;
	default:
		break;
	}
	*pin = in + 1;
	return emit(r, ch);
}

/* Value of variable name (".LINE" etc., opts.var, environment; hacfg_int.h), NULL unset. */
const char *lbt_hacfgi_var(struct rd *r, const char *name, char *buf, size_t size)
{
	const char *v = NULL;

	if (strcmp(name, ".LINE") == 0) {
		snprintf(buf, size, "%llu", (unsigned long long)r->lineno);
		return buf;
	}
	if (strcmp(name, ".FILE") == 0)
		return r->path;
	if (strcmp(name, ".SECTION") == 0)
		return r->cur == NULL ? NULL : r->cur->pub.name[0] ? r->cur->pub.name :
		    r->cur->pub.keyword;
	if (r->opts != NULL && r->opts->var != NULL)
		v = r->opts->var(r->opts->arg, name);
	return v != NULL ? v : getenv(name);
}

/* Emit value v[0..len), one word per blank-separated part when split. @return 0 or -1 */
static int emit_value(struct rd *r, const char *v, size_t len, int split)
{
	const char *end = v + len;

	while (v < end) {
		if (split && isspace((unsigned char)*v)) {
			if (next_word(r) < 0)
				return -1;
			while (++v < end && isspace((unsigned char)*v))
				;
		} else if (emit(r, *v++) < 0)
			return -1;
	}
	return 0;
}

/*
 * The tail of ${NAME...} at *pin (just after the name): "[*]", "-dflt",
 * then '}'.  Sets *split, and *v / *len to the default when *v is NULL.
 * @return 0, or -1 with err
 */
static int brace_tail(struct rd *r, const char **pin, int *split, const char **v, size_t *len)
{
	const char *in = *pin, *close;

	if (*in == '[') {
		if (in[1] != '*' || in[2] != ']')
			return lbt_hacfgi_err(r, "truncated or invalid word expansion sequence");
		*split = 1;
		in += 3;
	}
	if (*in == '-') {
		if ((close = strchr(in, '}')) == NULL)
			return lbt_hacfgi_err(r, "unmatched brace in environment variable name");
		if (*v == NULL) {
			*v = in + 1;
			*len = (size_t)(close - in - 1);
		}
		in = close;
	} else if (*in != '}')
		return lbt_hacfgi_err(r, "unmatched brace in environment variable name");
	*pin = in + 1;
	return 0;
}

/* Note the first variable without a value.  @return 0 or -1 */
static int note_unset(struct rd *r, const char *name)
{
	if (r->unset == NULL && name[0] != '.' && (r->unset = strdup(name)) == NULL)
		return lbt_err_set(r->err, "out of memory");
	return 0;
}

/*
 * "$NAME" or "${NAME...}" at *pin (inside double quotes): emit its value
 * and move *pin past it.  @return 0, or -1 with err
 */
static int expand(struct rd *r, const char **pin)
{
	const char *in = *pin + 1, *name, *v;
	char nbuf[256], lbuf[24];
	size_t len = 0;
	int brace = 0, split = 0;

	if (*in == '{') {
		brace = 1;
		in++;
	}
	if (!isalpha((unsigned char)*in) && *in != '_' && *in != '.')
		return lbt_hacfgi_err(r, "forbidden first character in environment variable name");
	name = in;
	if (*in == '.')
		in++;
	while (isalnum((unsigned char)*in) || *in == '_')
		in++;
	if ((size_t)(in - name) >= sizeof nbuf)
		return lbt_hacfgi_err(r, "environment variable name too long");
	snprintf(nbuf, sizeof nbuf, "%.*s", (int)(in - name), name);
	if (nbuf[0] == '.' && strcmp(nbuf, ".LINE") && strcmp(nbuf, ".FILE") &&
	    strcmp(nbuf, ".SECTION"))
		return lbt_hacfgi_err(r, "unknown internal variable '%s'", nbuf);
	v = lbt_hacfgi_var(r, nbuf, lbuf, sizeof lbuf);
	if (v != NULL)
		len = strlen(v);
	if (brace && brace_tail(r, &in, &split, &v, &len) < 0)
		return -1;
	*pin = in;
	if (v == NULL)
		return note_unset(r, nbuf);
	return emit_value(r, v, len, split);
}

/*
 * Split line s into r->out / r->start as HAProxy's parse_line() does.
 * @return the number of words (0: an empty line), or -1 with err
 */
int lbt_hacfgi_split(struct rd *r, const char *in)
{
	int sq = 0, dq = 0, rc = 0, count;

	r->n = 0;
	r->nw = 0;
	r->start[0] = 0;
	r->toomany = 0;
	free(r->unset);
	r->unset = NULL;
	while (rc == 0) {
		unsigned char ch = (unsigned char)*in;

		if (ch == '\0' || ch == '\n' || ch == '\r' || (ch == '#' && !sq && !dq))
			break;
		if (ch == '"' && !sq) {
			dq = !dq;
			in++;
		} else if (ch == '\'' && !dq) {
			sq = !sq;
			in++;
		} else if (ch == '\\' && !sq)
			rc = escape(r, &in, dq);
		else if (isspace(ch) && !sq && !dq) {
			while (isspace((unsigned char)*in))
				in++;
			rc = next_word(r);
		} else if (ch == '$' && dq)
			rc = expand(r, &in);
		else {
			rc = emit(r, (char)ch);
			in++;
		}
	}
	if (rc < 0 || emit(r, '\0') < 0)
		return -1;
	if (sq || dq)
		return lbt_hacfgi_err(r, "unterminated %s quote", dq ? "double" : "single");
	if (r->toomany)
		return lbt_hacfgi_err(r, "too many words (more than %d)", MAX_WORDS);
	/* a last word left empty (trailing blanks) is not a word */
	count = r->nw + (r->start[r->nw] != r->n - 1);
	return count > 0 && r->out[r->start[0]] != '\0' ? count : 0;
}
