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
 *  10. patch_mu       dlopen.c      GOT patching after a RTLD_DEEPBIND dlopen (taken after the real
 *                                   dlopen returned, never around it: constructors may dlopen)
 * No code path nests 1 inside 2..9 (the compute part reads its configuration before it takes cfg_mu),
 * and nothing calls pthread_atfork, dlopen or the runtime while holding any of them, except the
 * measurement thread's runtime event calls, which hold none.
 *
 * Cost in a process that never calls a hooked function: fork takes and releases ten uncontended
 * mutexes (no system call, no allocation); nothing else runs before the first hooked call.
 */
#ifndef VNPU_LIMITER_FORK_H
#define VNPU_LIMITER_FORK_H

/*
 * Children made without fork(): a raw clone(SIGCHLD) (syscall(SYS_clone, ...), or glibc's clone()
 * without CLONE_VM) runs no fork handler, so it would inherit the parent's slot, pointer table and
 * compute state and charge its allocations to the parent for ever. The memory part arms a
 * process mark on its first call: one byte on a private page advised MADV_WIPEONFORK, which the
 * kernel hands to every child with its own address space zero-filled, however it was made.
 * vnpu_fork_changed() is one load and compare (the hot-path check); vnpu_fork_adopt() then resets
 * the child like the fork handlers do, re-initialising the mutexes instead of unlocking them (no
 * prepare handler took them: a parent thread may have held one). Kernels without MADV_WIPEONFORK
 * (< 4.14) fall back to comparing getpid() with the armed PID on every check. Children sharing the
 * address space (CLONE_VM without CLONE_THREAD, vfork) share everything with the parent and count
 * as the parent.
 */
extern unsigned char *vnpu_fork_mark;

/* 1 in a child made after vnpu_fork_arm() by anything but fork() (or on an old kernel: always).
 * Two plain loads on x86-64 and AArch64 (acquire: the armed byte is visible with the pointer). */
static inline int vnpu_fork_changed(void)
{
    return __atomic_load_n(__atomic_load_n(&vnpu_fork_mark, __ATOMIC_ACQUIRE), __ATOMIC_RELAXED) == 0;
}
/* Arms the mark for this process (memory part init; idempotent; after fork the child handler
 * re-arms it). */
void vnpu_fork_arm(void);
/* Slow path of vnpu_fork_changed(): resets the library's state when this really is a new process. */
void vnpu_fork_adopt(void);

/* re-initialise and reset without the prepare handler having run (raw clone children) */
void vnpu_hooks_clone_child(void);
void vnpu_compute_clone_child(void);
void vnpu_dlopen_clone_child(void);

/* dlopen.c: patch_mu */
void vnpu_dlopen_fork_prepare(void);
void vnpu_dlopen_fork_parent(void);
void vnpu_dlopen_fork_child(void);

/* hooks.c: g_init_mu, and the child's return to UNINIT */
void vnpu_hooks_fork_prepare(void);
void vnpu_hooks_fork_parent(void);
void vnpu_hooks_fork_child(void);

/* compute.c: cfg_mu .. smp_mu, and the child's reset (no measurement thread, no registry state) */
void vnpu_compute_fork_prepare(void);
void vnpu_compute_fork_parent(void);
void vnpu_compute_fork_child(void);

#endif
