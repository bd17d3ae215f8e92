/* The library's only fork handlers, in the lock order of fork.h. */
#include <pthread.h>

#include "fork.h"
#include "ptrmap.h"
#include "region.h"

static void prepare(void)
{
    vnpu_hooks_fork_prepare();
    vnpu_compute_fork_prepare();
    vnpu_ptrmap_atfork_prepare();
    vnpu_region_atfork_prepare();
}

static void parent(void)
{
    vnpu_region_atfork_parent();
    vnpu_ptrmap_atfork_parent();
    vnpu_compute_fork_parent();
    vnpu_hooks_fork_parent();
}

static void child(void)
{
    vnpu_region_atfork_child();
    vnpu_ptrmap_atfork_child();
    vnpu_compute_fork_child();
    vnpu_hooks_fork_child();
}

/* Registered while the library is loaded, before any thread of ours exists and outside every lock
 * (glibc 2.28-2.34 can hang a pthread_atfork call made while a fork handler waits on a held mutex). */
__attribute__((constructor)) static void vnpu_fork_register(void)
{
    (void)pthread_atfork(prepare, parent, child);
}
