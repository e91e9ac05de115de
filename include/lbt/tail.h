/*
 * tail.h - a growing log followed as `tail -F` does, its complete lines
 * handed on through a pipe that an lbt_input reads as a live stream
 * (lbt-triage --follow and the other analysis programs' --follow;
 * docs/follow.md).
 *
 * One thread a followed path polls it every 100 ms: new bytes are read
 * from the offset reached; a file shorter than that offset was truncated
 * in place (copytruncate, `: > log`) and is read again from byte 0; a path
 * that names another inode once the old file's end is reached was rotated
 * (mv + a new file) and the new file is read from its start; a path that
 * is missing is waited for.  Each of these is a note (lbt_tail_note) for
 * the program to show.  Only whole lines go into the pipe, so the reader
 * never waits inside a line; the pipe's line numbers run on across
 * rotations.  "-" follows standard input the same way (no rotation).
 *
 * The thread never blocks for more than 100 ms, so lbt_tail_stop is
 * prompt; it closes the pipe's write end, and the reader then sees the
 * end of its input.  No signal is touched (SIGPIPE cannot happen: the
 * read end outlives the thread).
 * Includes: err.h.
 */
#ifndef LBT_TAIL_H
#define LBT_TAIL_H

#include <stddef.h>
#include <stdint.h>

#include "lbt/err.h"

typedef struct lbt_tail lbt_tail;

/* Where an existing file is first read from: its last LBT_TAIL_START bytes
 * (at a line start), so that following a 2 GB log starts within seconds;
 * the window of the analysis wants only the last minutes anyway. */
#define LBT_TAIL_START (64u << 20)

/*
 * Follow `path` ("-": standard input) on a thread of its own.
 * @return the tail, or NULL with err (no pipe, no thread).
 */
lbt_tail *lbt_tail_start(const char *path, lbt_err *err);

/* The read end of its pipe, for lbt_input ("/dev/fd/N") and poll(2). */
int lbt_tail_fd(const lbt_tail *t);

/* The path followed, as given. */
const char *lbt_tail_path(const lbt_tail *t);

/*
 * The oldest note not yet taken ("access.log: truncated to 0 bytes (was
 * 81920): read again from its start"), into buf.  @return 1, or 0 none.
 */
int lbt_tail_note(lbt_tail *t, char *buf, size_t size);

/* Bytes read from the followed files so far (every file, rotations included). */
uint64_t lbt_tail_bytes(const lbt_tail *t);

/* Stop the thread, close the pipe's write end, free; NULL accepted.  The
 * read end is closed too. */
void lbt_tail_stop(lbt_tail *t);

#endif
