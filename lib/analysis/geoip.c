/*
 * geoip.c - country and AS of an address from MaxMind DB files (see
 * geoip.h).  Each database is opened with MMDB_MODE_MMAP; results are
 * cached in an hmap keyed by the 17 bytes of the lbt_addr.
 */
#include <errno.h>
#include <glob.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <maxminddb.h>

#include "lbt/geoip.h"
#include "lbt/hmap.h"

#define KIND_COUNTRY 0x1
#define KIND_ASN     0x2

struct db {
	MMDB_s mmdb;
	char *path;
	int kinds;                 /* KIND_* this database is asked for */
};

struct lbt_geoip {
	struct db *dbs;
	size_t n, cap;
	int kinds;                 /* union of the dbs' kinds */
	lbt_hmap *cache;           /* lbt_addr -> lbt_geoip_info */
};

/* Kinds of a database from its metadata database_type. */
static int kinds_of(const MMDB_s *m)
{
	const char *t = m->metadata.database_type;

	if (t == NULL)
		return KIND_COUNTRY | KIND_ASN;
	if (strstr(t, "ASN") != NULL)
		return KIND_ASN;
	if (strstr(t, "City") != NULL || strstr(t, "Country") != NULL)
		return KIND_COUNTRY;
	return KIND_COUNTRY | KIND_ASN;
}

/* Open one database and append it.  @return 0, or -1 with err. */
static int add_db(lbt_geoip *g, const char *path, lbt_err *err)
{
	struct db *d;
	int rc;

	if (g->n == g->cap) {
		size_t ncap = g->cap ? g->cap * 2 : 4;
		struct db *nd = realloc(g->dbs, ncap * sizeof(*nd));

		if (nd == NULL)
			return lbt_err_set(err, "out of memory");
		g->dbs = nd;
		g->cap = ncap;
	}
	d = &g->dbs[g->n];
	errno = 0;
	if ((rc = MMDB_open(path, MMDB_MODE_MMAP, &d->mmdb)) != MMDB_SUCCESS) {
		int e = errno;

		return lbt_err_at(err, path, 0, "cannot open GeoIP database: %s",
		    (rc == MMDB_FILE_OPEN_ERROR || rc == MMDB_IO_ERROR) && e != 0 ?
		    strerror(e) : MMDB_strerror(rc));
	}
	if ((d->path = strdup(path)) == NULL) {
		MMDB_close(&d->mmdb);
		return lbt_err_set(err, "out of memory");
	}
	d->kinds = kinds_of(&d->mmdb);
	g->kinds |= d->kinds;
	g->n++;
	return 0;
}

/* Add every *.mmdb of dir (sorted by name), skipping those that fail. */
static void scan_dir(lbt_geoip *g, const char *dir)
{
	char pat[4096];
	glob_t gl;

	if ((size_t)snprintf(pat, sizeof pat, "%s/*.mmdb", dir) >= sizeof pat)
		return;
	if (glob(pat, 0, NULL, &gl) != 0)
		return;
	for (size_t i = 0; i < gl.gl_pathc; i++)
		add_db(g, gl.gl_pathv[i], NULL);
	globfree(&gl);
}

/* Open the named databases, or scan dirs when none is named.
 * @return the handle, or NULL with err for a named file that fails. */
lbt_geoip *lbt_geoip_open(const char *const *files, size_t nfiles, const char *const *dirs,
    lbt_err *err)
{
	static const char *const def_dirs[] = { "/usr/share/GeoIP", "/var/lib/GeoIP", NULL };
	lbt_geoip *g = calloc(1, sizeof(*g));

	if (g == NULL || (g->cache = lbt_hmap_new(sizeof(lbt_geoip_info))) == NULL) {
		free(g);
		lbt_err_set(err, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < nfiles; i++)
		if (add_db(g, files[i], err) < 0) {
			lbt_geoip_free(g);
			return NULL;
		}
	if (nfiles == 0)
		for (const char *const *d = dirs ? dirs : def_dirs; *d != NULL; d++)
			scan_dir(g, *d);
	return g;
}

/* Close every database and free the cache; NULL accepted. */
void lbt_geoip_free(lbt_geoip *g)
{
	if (g == NULL)
		return;
	for (size_t i = 0; i < g->n; i++) {
		MMDB_close(&g->dbs[i].mmdb);
		free(g->dbs[i].path);
	}
	free(g->dbs);
	lbt_hmap_free(g->cache);
	free(g);
}

/* @return 1 when a database can give a country. */
int lbt_geoip_has_country(const lbt_geoip *g)
{
	return g != NULL && (g->kinds & KIND_COUNTRY) != 0;
}

/* @return 1 when a database can give an AS. */
int lbt_geoip_has_asn(const lbt_geoip *g)
{
	return g != NULL && (g->kinds & KIND_ASN) != 0;
}

/* @return the number of databases open. */
size_t lbt_geoip_count(const lbt_geoip *g)
{
	return g ? g->n : 0;
}

/* @return the path of database i, NULL past the end. */
const char *lbt_geoip_path(const lbt_geoip *g, size_t i)
{
	return g != NULL && i < g->n ? g->dbs[i].path : NULL;
}

/* The sockaddr libmaxminddb wants for a (v4 as AF_INET). */
static const struct sockaddr *to_sockaddr(const lbt_addr *a, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == 4) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, a->b + 12, 4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, a->b, 16);
	}
	return (const struct sockaddr *)ss;
}

/* Copy a UTF-8 string entry into buf.  @return 1 when it was one. */
static int get_str(MMDB_entry_s *e, char *buf, size_t size, const char *k1, const char *k2)
{
	MMDB_entry_data_s d;

	if (MMDB_get_value(e, &d, k1, k2, NULL) != MMDB_SUCCESS || !d.has_data ||
	    d.type != MMDB_DATA_TYPE_UTF8_STRING)
		return 0;
	snprintf(buf, size, "%.*s", (int)d.data_size, d.utf8_string);
	return 1;
}

/* Fill what one database knows about the entry into *out (first wins). */
static void read_entry(const struct db *d, MMDB_entry_s *e, lbt_geoip_info *out)
{
	MMDB_entry_data_s v;

	if ((d->kinds & KIND_COUNTRY) && !out->has_country)
		out->has_country = get_str(e, out->country, sizeof out->country,
		    "country", "iso_code") || get_str(e, out->country, sizeof out->country,
		    "registered_country", "iso_code");
	if ((d->kinds & KIND_ASN) && !out->has_asn &&
	    MMDB_get_value(e, &v, "autonomous_system_number", NULL) == MMDB_SUCCESS &&
	    v.has_data && v.type == MMDB_DATA_TYPE_UINT32) {
		out->has_asn = 1;
		out->asn = v.uint32;
		get_str(e, out->org, sizeof out->org, "autonomous_system_organization", NULL);
	}
}

/* Ask every database about a, without the cache. */
static void lookup_all(const lbt_geoip *g, const lbt_addr *a, lbt_geoip_info *out)
{
	struct sockaddr_storage ss;
	const struct sockaddr *sa = to_sockaddr(a, &ss);

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < g->n; i++) {
		int mmerr;
		MMDB_lookup_result_s res = MMDB_lookup_sockaddr(&g->dbs[i].mmdb, sa, &mmerr);

		if (mmerr == MMDB_SUCCESS && res.found_entry)
			read_entry(&g->dbs[i], &res.entry, out);
	}
}

/* What the databases know of a, through the cache.  @return 1 found,
 * 0 not, -1 when the cache could not grow. */
int lbt_geoip_lookup(lbt_geoip *g, const lbt_addr *a, lbt_geoip_info *out)
{
	lbt_geoip_info *c;
	int created;

	memset(out, 0, sizeof(*out));
	if (g == NULL || g->n == 0 || (a->family != 4 && a->family != 6))
		return 0;
	if ((c = lbt_hmap_put(g->cache, a, sizeof(*a), &created)) == NULL) {
		lookup_all(g, a, out);
		return -1;
	}
	if (created)
		lookup_all(g, a, c);
	*out = *c;
	return out->has_country || out->has_asn;
}
