/*
 * cli_int.h - what the files of lib/cli share; never installed.
 *
 *   cli.c         options, messages, the stream and the record loop
 *   cli_status.c  the exit status of a run and the notes that explain an
 *                 empty or partial answer (docs/exit-status.md)
 */
#ifndef LBT_CLI_INT_H
#define LBT_CLI_INT_H

#include "lbt/cli.h"

/*
 * After the run over `s`: say on stderr why the answer is empty or partial
 * (cli.h, lbt_cli_finish) and mark cli unread or empty accordingly.
 */
void lbt_clii_explain(lbt_cli *cli, const lbt_stream *s);

/* @return the exit status of the run: ERROR, UNREAD, EMPTY, OK in that order. */
int lbt_clii_status(const lbt_cli *cli);

#endif
