/*
 * fork() safety of libvnpu.so: one set of fork handlers for the whole library, registered once by a
 * constructor (never under a limiter lock), taking every limiter mutex in the one documented order.
 *
 * LOCK ORDER (a thread holding a mutex may only take mutexes further down this list):
 *   1. g_init_mu      hooks.c       memory part initialisation (region open, slot claim)
 *   2. cfg_mu         compute.c     compute configuration install
 *   3. dev_mu         compute.c     joining a device (registry open)
 *   4. thr_mu         compute.c     measurement thread start
 *   5. pub_mu         compute.c     statistics publication (thread vs exit destructor)
 *   6. tc_mu          compute.c     list of per-thread counter blocks
 *   7. smp_mu         compute.c     measurement brackets, event pool, model/stream tables
 *   8. ptrmap stripes ptrmap.c      pointer table (stripe 0 .. N-1)
 *   9. reap_mu        region.c      reaping of dead slot owners
 * No code path nests 1 inside 2..9 (the compute part reads its configuration before it takes cfg_mu),
 * and nothing calls pthread_atfork, dlopen or the runtime while holding any of them, except the
 * measurement thread's runtime event calls, which hold none.
 *
 * Cost in a process that never calls a hooked function: fork takes and releases nine uncontended
 * mutexes (no system call, no allocation); nothing else runs before the first hooked call.
 */
#ifndef VNPU_LIMITER_FORK_H
#define VNPU_LIMITER_FORK_H

/* hooks.c: g_init_mu, and the child's return to UNINIT */
void vnpu_hooks_fork_prepare(void);
void vnpu_hooks_fork_parent(void);
void vnpu_hooks_fork_child(void);

/* compute.c: cfg_mu .. smp_mu, and the child's reset (no measurement thread, no registry state) */
void vnpu_compute_fork_prepare(void);
void vnpu_compute_fork_parent(void);
void vnpu_compute_fork_child(void);

#endif
