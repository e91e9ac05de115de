/*
 * geoip.h - country and autonomous system of a source, from MaxMind DB
 * files (libmaxminddb): GeoIP2/GeoLite2 City or Country databases give
 * country.iso_code (registered_country.iso_code as a fallback), ASN
 * databases give autonomous_system_number and _organization.
 *
 * Databases are named (--geoip FILE, repeatable) or, when none is named,
 * found as *.mmdb in /usr/share/GeoIP and /var/lib/GeoIP.  Finding none is
 * not an error: lbt_geoip_has_country()/has_asn() say 0 and the programs
 * leave the columns out.  A database's kind comes from its metadata
 * database_type ("...ASN..." -> ASN; "...City..." or "...Country..." ->
 * country; anything else is asked for both).  The first database that
 * answers wins, in the order given (directory entries sorted by name).
 * Lookups are cached per address (callers pass the source network), so a
 * report asks each database once per source.
 * Includes: addr.h, err.h.
 */
#ifndef LBT_GEOIP_H
#define LBT_GEOIP_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/addr.h"
#include "lbt/err.h"

typedef struct lbt_geoip lbt_geoip;

typedef struct lbt_geoip_info {
	int has_country;
	char country[8];        /* ISO 3166 alpha-2, "XA" */
	int has_asn;
	uint32_t asn;           /* 64500 */
	char org[128];          /* "Example Net"; may be "" with has_asn set */
} lbt_geoip_info;

/*
 * Open the databases files[0..nfiles).  When nfiles is 0, look for *.mmdb
 * in dirs (NULL-terminated; NULL means /usr/share/GeoIP and
 * /var/lib/GeoIP), skipping files that do not open.
 * @return a handle (possibly with no database), or NULL with err naming a
 * given file that cannot be opened and why.
 */
lbt_geoip *lbt_geoip_open(const char *const *files, size_t nfiles, const char *const *dirs,
    lbt_err *err);

/* NULL accepted. */
void lbt_geoip_free(lbt_geoip *g);

/* Whether some open database can give a country / an AS. */
int lbt_geoip_has_country(const lbt_geoip *g);
int lbt_geoip_has_asn(const lbt_geoip *g);

/* Number of databases open, and the path of database i. */
size_t lbt_geoip_count(const lbt_geoip *g);
const char *lbt_geoip_path(const lbt_geoip *g, size_t i);

/*
 * Look up an address (IPv4 or IPv6; the network address of a source).
 * *out gets what the databases know (has_* flags 0 when nothing).
 * @return 1 when anything was found, 0 when not, -1 when out of memory
 * (the cache could not grow; *out is still filled).
 */
int lbt_geoip_lookup(lbt_geoip *g, const lbt_addr *a, lbt_geoip_info *out);

#endif
