/*
 * db_layout.c - the columns of an lbt index, defined once: the dictionary
 * tables, the dictionaries a shape holds, the id columns of a request,
 * its numbers and the text columns of a block.  The SQL of every version
 * (db_schema.c, db_views.c), the writer and the reader are made from
 * these tables, so none of them can disagree on a position.
 *
 * Direction: data only; every db_*.c file may read it, it calls nothing.
 */
#include "db_int.h"

/* Dictionary tables (the order of the writer's and reader's caches, LBT_DBI_D_*). */
const struct lbt_dbi_dict lbt_dbi_dicts[LBT_DBI_NDICT] = {
	{ LBT_F_LB, "lbs" }, { LBT_F_FRONTEND, "frontends" }, { LBT_F_BACKEND, "backends" },
	{ LBT_F_SERVER, "servers" }, { LBT_F_METHOD, "methods" }, { LBT_F_PATH, "paths" },
	{ LBT_F_QUERY, "queries" }, { LBT_F_HOST, "hosts" }, { LBT_F_VERSION, "versions" },
	{ LBT_F_TERM, "terms" }, { LBT_F_UA, "uas" }, { LBT_F_KEY, "keys" },
};

/* Dictionaries reached through shapes, in the column order of `shapes`. */
const int lbt_dbi_shape_dicts[LBT_DBI_NSHAPE] = {
	LBT_DBI_D_LB, LBT_DBI_D_FRONTEND, LBT_DBI_D_BACKEND, LBT_DBI_D_SERVER,
	LBT_DBI_D_METHOD, LBT_DBI_D_VERSION, LBT_DBI_D_TERM,
};

/* The id columns of requests after shape_id (-1: the address, not a dictionary). */
const int lbt_dbi_id_dicts[LBT_DBI_NID] = {
	-1, LBT_DBI_D_PATH, LBT_DBI_D_KEY, LBT_DBI_D_HOST, LBT_DBI_D_UA, LBT_DBI_D_QUERY,
};

/* The numbers of a request, in the column order of blocks. */
const struct lbt_dbi_num lbt_dbi_nums[LBT_DBI_NNUM] = {
	{ LBT_F_PORT, "port" }, { LBT_F_TA, "ta" }, { LBT_F_TR, "tr" }, { LBT_F_TW, "tw" },
	{ LBT_F_TC, "tc" }, { LBT_F_TRESP, "tresp" }, { LBT_F_AC, "ac" }, { LBT_F_FC, "fc" },
	{ LBT_F_BC, "bc" }, { LBT_F_SC, "sc" }, { LBT_F_RC, "rc" }, { LBT_F_SQ, "sq" },
	{ LBT_F_BQ, "bq" }, { LBT_F_TT, "tt" }, { LBT_F_TQ, "tq" }, { LBT_F_TH, "th" },
	{ LBT_F_TI, "ti" },
};

/* The text columns of blocks (LBT_DBI_C_*): the fields, then lbt_dbi_nums. */
const char *const lbt_dbi_col_names[LBT_DBI_NCOL] = {
	"time", "line", "shape", "addr", "path", "key", "host", "ua", "query", "bytes",
	"port", "ta", "tr", "tw", "tc", "tresp", "ac", "fc", "bc", "sc", "rc", "sq", "bq",
	"tt", "tq", "th", "ti",
};
