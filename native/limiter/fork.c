/* The library's only fork handlers, in the lock order of fork.h, and the raw-clone child check. */
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fork.h"
#include "ptrmap.h"
#include "region.h"

static void prepare(void)
{
    vnpu_hooks_fork_prepare();
    vnpu_compute_fork_prepare();
    vnpu_ptrmap_atfork_prepare();
    vnpu_region_atfork_prepare();
    vnpu_dlopen_fork_prepare();
}

static void parent(void)
{
    vnpu_dlopen_fork_parent();
    vnpu_region_atfork_parent();
    vnpu_ptrmap_atfork_parent();
    vnpu_compute_fork_parent();
    vnpu_hooks_fork_parent();
}

/* ---------- process mark (fork.h) ---------- */

static unsigned char unarmed = 1;    /* before the first call: nothing to reset */
static unsigned char always_check;   /* no MADV_WIPEONFORK: every check asks getpid() */
unsigned char *vnpu_fork_mark = &unarmed;
static unsigned char *mark_page;     /* MAP_PRIVATE|MAP_ANONYMOUS, MADV_WIPEONFORK */
static pid_t armed_pid;

void vnpu_fork_arm(void)
{
    __atomic_store_n(&armed_pid, getpid(), __ATOMIC_RELEASE);
    if (!mark_page) {
        long ps = sysconf(_SC_PAGESIZE);
        void *p = mmap(NULL, ps > 0 ? (size_t)ps : 4096u, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            __atomic_store_n(&vnpu_fork_mark, &always_check, __ATOMIC_RELEASE);
            return;
        }
        if (madvise(p, ps > 0 ? (size_t)ps : 4096u, MADV_WIPEONFORK) != 0) {
            munmap(p, ps > 0 ? (size_t)ps : 4096u);
            __atomic_store_n(&vnpu_fork_mark, &always_check, __ATOMIC_RELEASE);
            return;
        }
        mark_page = p;
    }
    __atomic_store_n(mark_page, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&vnpu_fork_mark, mark_page, __ATOMIC_RELEASE);
}

static void clone_child(void)
{
    vnpu_dlopen_clone_child();
    vnpu_region_clone_child();
    vnpu_ptrmap_clone_child();
    vnpu_compute_clone_child();
    vnpu_hooks_clone_child();
}

void vnpu_fork_adopt(void)
{
    if (__atomic_load_n(&vnpu_fork_mark, __ATOMIC_ACQUIRE) == &always_check) {
        /* old kernel: the PID tells (a syscall per check, only there) */
        if (getpid() == __atomic_load_n(&armed_pid, __ATOMIC_ACQUIRE))
            return;
        static int resetting;
        if (__atomic_exchange_n(&resetting, 1, __ATOMIC_ACQ_REL) == 0) {
            clone_child();
            __atomic_store_n(&armed_pid, getpid(), __ATOMIC_RELEASE);
            __atomic_store_n(&resetting, 0, __ATOMIC_RELEASE);
        } else {
            while (__atomic_load_n(&resetting, __ATOMIC_ACQUIRE))
                sched_yield();
        }
        return;
    }
    /* the page was wiped: this is a new process, and no fork handler ran (they re-arm the mark).
     * The first thread to notice resets; others (threads the child made before its first call)
     * wait the few microseconds it takes. */
    unsigned char expect = 0;
    if (__atomic_compare_exchange_n(mark_page, &expect, 2, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        clone_child();
        /* left unarmed (the reset made the state UNINIT): the child's first call arms it again */
        __atomic_store_n(&vnpu_fork_mark, &unarmed, __ATOMIC_RELEASE);
        __atomic_store_n(mark_page, 1, __ATOMIC_RELEASE);
        return;
    }
    while (__atomic_load_n(mark_page, __ATOMIC_ACQUIRE) == 2)
        sched_yield();
}

static void child(void)
{
    vnpu_dlopen_fork_child();
    vnpu_region_atfork_child();
    vnpu_ptrmap_atfork_child();
    vnpu_compute_fork_child();
    vnpu_hooks_fork_child();
    /* the kernel wiped the mark; the handlers did the reset: nothing left for vnpu_fork_adopt */
    if (__atomic_load_n(&vnpu_fork_mark, __ATOMIC_ACQUIRE) != &always_check)
        __atomic_store_n(&vnpu_fork_mark, &unarmed, __ATOMIC_RELEASE);
    else
        __atomic_store_n(&armed_pid, getpid(), __ATOMIC_RELEASE);
}

/* Registered while the library is loaded, before any thread of ours exists and outside every lock
 * (glibc 2.28-2.34 can hang a pthread_atfork call made while a fork handler waits on a held mutex). */
__attribute__((constructor)) static void vnpu_fork_register(void)
{
    (void)pthread_atfork(prepare, parent, child);
}
