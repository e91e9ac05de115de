/*
 * tmpdir.h - the unit tests' temporary directory, one per test (Check forks
 * a process for each): made fresh by the fixture's setup, entered when the
 * test works with relative paths, removed with its files by the teardown.
 * Included by the check_*.c files that need one; `dir` is its path.
 */
#ifndef LBT_TEST_TMPDIR_H
#define LBT_TEST_TMPDIR_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[64];

/* Make /tmp/NAME.XXXXXX as dir, and enter it when `enter`. */
static void tmpdir_make(const char *name, int enter)
{
	snprintf(dir, sizeof dir, "/tmp/%s.XXXXXX", name);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	if (enter)
		ck_assert_int_eq(chdir(dir), 0);
}

/* Leave dir (if in it) and remove it with its files. */
static void tmpdir_remove(void)
{
	char cmd[128];

	ck_assert_int_eq(chdir("/"), 0);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

#endif
