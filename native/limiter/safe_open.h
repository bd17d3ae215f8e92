/*
 * How the limiter opens every file it uses (quota region, vnpu.conf, registry, neighbours' activity
 * links): without following a symlink in the last component, without blocking (a FIFO planted at the
 * path can never hang the workload), regular files only, close-on-exec, and at a descriptor >= 3, so
 * that a process started with stdin/stdout/stderr closed never has one of ours at 0..2 (where its own
 * or our log output would be written into our files).
 */
#ifndef VNPU_LIMITER_SAFE_OPEN_H
#define VNPU_LIMITER_SAFE_OPEN_H

#include <sys/types.h>

/* The lowest descriptor the limiter keeps. */
#define VNPU_MIN_FD 3

/*
 * Opens path with flags (O_RDONLY / O_RDWR, optionally O_CREAT|O_EXCL with mode). Returns the
 * descriptor (>= VNPU_MIN_FD) or -1 with errno set; a path that is not a regular file gives EINVAL
 * (EFTYPE-like), a symlink ELOOP.
 */
int vnpu_open_regular(const char *path, int flags, mode_t mode);

#endif
