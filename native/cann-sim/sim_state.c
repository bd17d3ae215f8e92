/*
 * Process-wide state of the simulated runtime: the simulated host (device facts, shared files under
 * $VNPU_SIM_ROOT), the thread's current device, crash-safe HBM usage and the device timeline.
 *
 * HBM usage is the contract counter array hbm.bin (read by the DCMI simulator). Like a real driver,
 * which frees a process's device memory when it dies, every process also publishes what it holds in
 * "procs/<pid>-<start ns>" and keeps a POSIX write lock on that file for its lifetime; a process that
 * needs memory (or asks for memory info) reaps files whose lock is free, i.e. whose owner is dead.
 */
#include "sim_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define USAGE_MAGIC VNPU_SIM_PROC_USAGE_MAGIC

/* Layout documented in cann_sim.h; `reaped` is set under the record lock. */
_Static_assert(VNPU_SIM_MAX_DEVICES == 16, "vnpu_sim_proc_usage.used has 16 entries");

struct own_usage {
    pthread_mutex_t lock;
    pid_t pid;
    pid_t failed_pid; /* the record could not be created in this process: do not retry */
    int fd;
    char path[600];
    struct vnpu_sim_proc_usage *rec;
};

struct busy_files {
    pthread_mutex_t lock;
    pid_t pid;
    struct vnpu_sim_busy_record *rec[VNPU_SIM_MAX_DEVICES];
    struct vnpu_sim_task_ring *ring[VNPU_SIM_MAX_DEVICES]; /* VNPU_SIM_TASK_RING only */
    int ring_failed[VNPU_SIM_MAX_DEVICES];
};

static pthread_once_t host_once = PTHREAD_ONCE_INIT;
static struct sim_host host_state;
static int host_ok;
static __thread int thread_device = -1;
static struct own_usage own = {PTHREAD_MUTEX_INITIALIZER, 0, 0, -1, "", NULL};
static struct busy_files busy = {PTHREAD_MUTEX_INITIALIZER, 0, {NULL}, {NULL}, {0}};
static int task_ring_on = -1; /* VNPU_SIM_TASK_RING read once */

void sim_log(const char *fmt, ...) {
    const char *quiet = getenv("VNPU_SIM_QUIET");
    if (quiet != NULL && quiet[0] != '\0') return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "[cann-sim %d] %s\n", (int)getpid(), line);
}

uint64_t sim_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void sim_sleep_until(uint64_t deadline_ns) {
    struct timespec ts = {(time_t)(deadline_ns / 1000000000ULL), (long)(deadline_ns % 1000000000ULL)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

rtError_t sim_sync_until(uint64_t end_ns, int32_t timeout_ms) {
    uint64_t now = sim_now_ns();
    if (timeout_ms > 0 && end_ns > now + (uint64_t)timeout_ms * 1000000ULL) {
        sim_sleep_until(now + (uint64_t)timeout_ms * 1000000ULL);
        return ACL_ERROR_RT_STREAM_SYNC_TIMEOUT;
    }
    sim_sleep_until(end_ns);
    return RT_ERROR_NONE;
}

static void *map_shared(const char *path, size_t size) {
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        sim_log("cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    (void)fchmod(fd, 0666); /* other uids of the simulated host share it; fails harmlessly if not ours */
    struct stat st;
    if (fstat(fd, &st) != 0 || ((size_t)st.st_size < size && ftruncate(fd, (off_t)size) != 0)) {
        sim_log("cannot size %s to %zu bytes: %s", path, size, strerror(errno));
        close(fd);
        return NULL;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        sim_log("cannot map %s: %s", path, strerror(errno));
        return NULL;
    }
    return p;
}

static int make_dir(const char *path) {
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        sim_log("cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    (void)chmod(path, 0777);
    return 0;
}

/* CLOCK_MONOTONIC restarts at boot: timeline records written before the current boot are void. */
static uint64_t boot_tag(void) {
    char id[64] = "";
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, id, sizeof(id) - 1);
        id[n > 0 ? n : 0] = '\0';
        close(fd);
    }
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (const char *p = id; *p != '\0'; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    return h | 1; /* never 0, the value of a fresh file */
}

static void reset_stale_timeline(struct vnpu_sim_device_time *t) {
    uint64_t tag = boot_tag();
    for (int d = 0; d < VNPU_SIM_MAX_DEVICES; d++) {
        uint64_t seen = __atomic_load_n(&t[d].boot_tag, __ATOMIC_ACQUIRE);
        if (seen != tag &&
            __atomic_compare_exchange_n(&t[d].boot_tag, &seen, tag, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            __atomic_store_n(&t[d].busy_until_ns, 0, __ATOMIC_RELEASE);
    }
}

/* ASCEND_RT_VISIBLE_DEVICES: the process sees only the listed devices, renumbered 0..n-1 in list
 * order (as CANN does). Entries are device IDs of the host; parsing stops at the first entry that is
 * not a number below the device count or repeats one. Unset or empty: every device, unrenumbered. */
static int vis_n = -1;
static int vis[VNPU_SIM_MAX_DEVICES];

static void parse_visible(int ndev) {
    const char *v = getenv("ASCEND_RT_VISIBLE_DEVICES");
    if (v == NULL || *v == '\0') return;
    vis_n = 0;
    while (*v != '\0' && vis_n < VNPU_SIM_MAX_DEVICES) {
        char *end = NULL;
        long d = strtol(v, &end, 10);
        if (end == v || d < 0 || d >= ndev) break;
        int dup = 0;
        for (int i = 0; i < vis_n; i++) dup |= vis[i] == (int)d;
        if (dup) break;
        vis[vis_n++] = (int)d;
        v = end;
        while (*v == ' ') v++;
        if (*v != ',') break;
        v++;
    }
}

static void host_init(void) {
    struct sim_host *h = &host_state;
    int n = vnpu_sim_host_devices(h->dev, VNPU_SIM_MAX_DEVICES);
    if (n < 0) {
        const char *p = getenv("VNPU_SIM_PROFILE");
        sim_log("unknown simulated host profile VNPU_SIM_PROFILE=%s: no device", p ? p : "(unset)");
        return;
    }
    h->ndev = n > VNPU_SIM_MAX_DEVICES ? VNPU_SIM_MAX_DEVICES : n;
    int rc = vnpu_sim_host_root(h->root, sizeof(h->root));
    if (rc != 0) {
        sim_log("cannot create the simulated host root VNPU_SIM_ROOT: %s", strerror(-rc));
        return;
    }
    char path[600];
    snprintf(path, sizeof(path), "%s/hbm.bin", h->root);
    h->hbm_used = map_shared(path, VNPU_SIM_MAX_DEVICES * sizeof(uint64_t));
    snprintf(path, sizeof(path), "%s/device-time.bin", h->root);
    h->dtime = map_shared(path, VNPU_SIM_MAX_DEVICES * sizeof(struct vnpu_sim_device_time));
    if (h->dtime != NULL) reset_stale_timeline(h->dtime);
    /* without these directories the runtime still works, minus crash reclaim and ground truth */
    snprintf(path, sizeof(path), "%s/procs", h->root);
    make_dir(path);
    snprintf(path, sizeof(path), "%s/busy", h->root);
    make_dir(path);
    const char *tr = getenv("VNPU_SIM_TASK_RING");
    task_ring_on = tr != NULL && tr[0] != '\0' && strcmp(tr, "0") != 0;
    if (task_ring_on) {
        snprintf(path, sizeof(path), "%s/tasks", h->root);
        make_dir(path);
    }
    host_ok = h->hbm_used != NULL && h->dtime != NULL;
    parse_visible(h->ndev);
}

struct sim_host *sim_host(void) {
    pthread_once(&host_once, host_init);
    return host_ok ? &host_state : NULL;
}

int sim_valid_device(int32_t dev) {
    struct sim_host *h = sim_host();
    return h != NULL && dev >= 0 && dev < h->ndev;
}

int sim_phys_device(int32_t dev) {
    struct sim_host *h = sim_host();
    if (h == NULL || dev < 0) return -1;
    if (vis_n < 0) return dev < h->ndev ? dev : -1;
    return dev < vis_n ? vis[dev] : -1;
}

int sim_user_device(int phys) {
    if (vis_n < 0) return phys;
    for (int i = 0; i < vis_n; i++)
        if (vis[i] == phys) return i;
    return -1;
}

int sim_current_device(void) { return thread_device; }

void sim_set_current_device(int dev) { thread_device = dev; }

/* Per-process device references, as CANN counts them: every rtSetDevice takes one, rtDeviceReset
 * drops one and releases the device's resources of this process at zero. */
static int dev_refs[VNPU_SIM_MAX_DEVICES];

rtError_t rtSetDevice(int32_t userDev) {
    if (sim_host() == NULL) return ACL_ERROR_RT_NO_DEVICE;
    int32_t devId = sim_phys_device(userDev);
    if (devId < 0) return ACL_ERROR_RT_INVALID_DEVICEID;
    __atomic_add_fetch(&dev_refs[devId], 1, __ATOMIC_ACQ_REL);
    thread_device = devId;
    sim_ctx_on_set_device(devId);
    return RT_ERROR_NONE;
}

rtError_t rtGetDevice(int32_t *devId) {
    if (devId == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    if (thread_device < 0) return ACL_ERROR_RT_CONTEXT_NULL;
    *devId = sim_user_device(thread_device);
    return RT_ERROR_NONE;
}

rtError_t rtGetDeviceCount(int32_t *cnt) {
    if (cnt == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    struct sim_host *h = sim_host();
    if (h == NULL) return ACL_ERROR_RT_NO_DEVICE;
    *cnt = vis_n < 0 ? h->ndev : vis_n;
    return RT_ERROR_NONE;
}

rtError_t rtGetDevicePhyIdByIndex(uint32_t devIndex, uint32_t *phyId) {
    if (phyId == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    struct sim_host *h = sim_host();
    if (h == NULL) return ACL_ERROR_RT_NO_DEVICE;
    int phys = devIndex > (uint32_t)INT32_MAX ? -1 : sim_phys_device((int32_t)devIndex);
    if (phys < 0) return ACL_ERROR_RT_INVALID_DEVICEID;
    *phyId = (uint32_t)h->dev[phys].phy_id;
    return RT_ERROR_NONE;
}

rtError_t rtDeviceSynchronize(void) {
    if (thread_device < 0) return ACL_ERROR_RT_CONTEXT_NULL;
    sim_sleep_until(sim_streams_tail(thread_device));
    return RT_ERROR_NONE;
}

rtError_t rtDeviceSynchronizeWithTimeout(int32_t timeout) {
    if (thread_device < 0) return ACL_ERROR_RT_CONTEXT_NULL;
    if (timeout < -1) return ACL_ERROR_RT_PARAM_INVALID;
    return sim_sync_until(sim_streams_tail(thread_device), timeout);
}

static void release_device(int32_t devId) {
    __atomic_store_n(&dev_refs[devId], 0, __ATOMIC_RELEASE);
    sim_sleep_until(sim_streams_tail(devId));
    sim_streams_release_device(devId);
    sim_mem_release_device(devId);
    if (thread_device == devId) thread_device = -1;
}

/* Like a device context teardown once the last reference is gone: waits for the device, then drops
 * this process's streams and memory. A reset with references left only drops one. */
rtError_t rtDeviceReset(int32_t userDev) {
    int32_t devId = sim_phys_device(userDev);
    if (devId < 0) return ACL_ERROR_RT_INVALID_DEVICEID;
    int refs = __atomic_load_n(&dev_refs[devId], __ATOMIC_ACQUIRE);
    while (refs > 1 && !__atomic_compare_exchange_n(&dev_refs[devId], &refs, refs - 1, 0, __ATOMIC_ACQ_REL,
                                                    __ATOMIC_ACQUIRE)) {
    }
    if (refs > 1) return RT_ERROR_NONE;
    release_device(devId);
    return RT_ERROR_NONE;
}

rtError_t rtDeviceResetForce(int32_t userDev) {
    int32_t devId = sim_phys_device(userDev);
    if (devId < 0) return ACL_ERROR_RT_INVALID_DEVICEID;
    release_device(devId);
    return RT_ERROR_NONE;
}

/* ---- crash-safe usage ---- */

static void sub_saturating(uint64_t *counter, uint64_t bytes) {
    uint64_t cur = __atomic_load_n(counter, __ATOMIC_ACQUIRE);
    for (;;) {
        uint64_t next = cur >= bytes ? cur - bytes : 0;
        if (__atomic_compare_exchange_n(counter, &cur, next, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return;
    }
}

/* Moves a dead owner's bytes out of hbm.bin; the caller holds the record's write lock. */
static void drain_record(struct sim_host *h, struct vnpu_sim_proc_usage *rec) {
    if (rec->magic != USAGE_MAGIC || __atomic_load_n(&rec->reaped, __ATOMIC_ACQUIRE)) return;
    for (int d = 0; d < VNPU_SIM_MAX_DEVICES; d++) {
        uint64_t b = __atomic_exchange_n(&rec->used[d], 0, __ATOMIC_ACQ_REL);
        if (b != 0) sub_saturating(&h->hbm_used[d], b);
    }
    __atomic_store_n(&rec->reaped, 1, __ATOMIC_RELEASE);
}

static void reap_file(struct sim_host *h, const char *path) {
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return;
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    struct stat st;
    if (fcntl(fd, F_SETLK, &fl) == 0 && fstat(fd, &st) == 0 && st.st_nlink > 0 &&
        (size_t)st.st_size >= sizeof(struct vnpu_sim_proc_usage)) {
        struct vnpu_sim_proc_usage *rec =
            mmap(NULL, sizeof(*rec), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (rec != MAP_FAILED) {
            int complete = __atomic_load_n(&rec->magic, __ATOMIC_ACQUIRE) == USAGE_MAGIC;
            drain_record(h, rec);
            munmap(rec, sizeof(*rec));
            if (complete) unlink(path);
        }
    }
    close(fd); /* drops our probe lock; we never hold our own record through this fd */
}

void sim_usage_reap_dead(void) {
    struct sim_host *h = sim_host();
    if (h == NULL) return;
    char dir[600];
    snprintf(dir, sizeof(dir), "%s/procs", h->root);
    DIR *dp = opendir(dir);
    if (dp == NULL) return;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[900];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (strcmp(path, own.path) == 0 && own.pid == getpid()) continue;
        reap_file(h, path);
    }
    closedir(dp);
}

/* One byte on a page advised MADV_WIPEONFORK, 1 in the process that made own.rec: any child with its
 * own address space (fork, or a raw clone() that runs no fork handler) sees 0 without a getpid()
 * system call on every charge. Without MADV_WIPEONFORK (kernel < 4.14) it stays 0: getpid() decides. */
static unsigned char *own_mark;

static int own_is_inherited(void) {
    if (own_mark != NULL && __atomic_load_n(own_mark, __ATOMIC_RELAXED)) return 0;
    return own.pid != getpid();
}

static void own_mark_set(void) {
    if (own_mark == NULL) {
        void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return;
        if (madvise(p, 4096, MADV_WIPEONFORK) != 0) {
            munmap(p, 4096);
            return;
        }
        own_mark = p;
    }
    __atomic_store_n(own_mark, 1, __ATOMIC_RELAXED);
}

static struct vnpu_sim_proc_usage *own_record(struct sim_host *h) {
    pthread_mutex_lock(&own.lock);
    if (own.rec != NULL && own_is_inherited()) {
        /* a child made by a raw clone() (no fork handler ran): the record is the parent's; the
         * child's own device memory is its own, as with the driver. The inherited descriptor holds
         * no lock of ours (POSIX locks are per process): closing it leaves the parent's lock alone. */
        munmap(own.rec, sizeof(*own.rec));
        close(own.fd);
        own.rec = NULL;
        own.fd = -1;
    }
    if (own.rec == NULL && own.failed_pid != getpid()) {
        pid_t pid = getpid();
        snprintf(own.path, sizeof(own.path), "%s/procs/%d-%llu", h->root, (int)pid,
                 (unsigned long long)sim_now_ns());
        int fd = open(own.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
        /* Lock before sizing: a reaper probing the new file either finds it empty (and leaves it)
         * or finds it locked. F_SETLKW only waits for such a probe to finish. */
        if (fd >= 0 && fcntl(fd, F_SETLKW, &fl) == 0 && ftruncate(fd, sizeof(struct vnpu_sim_proc_usage)) == 0) {
            (void)fchmod(fd, 0666);
            struct vnpu_sim_proc_usage *p =
                mmap(NULL, sizeof(struct vnpu_sim_proc_usage), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (p != MAP_FAILED) {
                p->pid = pid;
                __atomic_store_n(&p->magic, USAGE_MAGIC, __ATOMIC_RELEASE);
                own.fd = fd;
                own.pid = pid;
                own_mark_set();
                __atomic_store_n(&own.rec, p, __ATOMIC_RELEASE);
            }
        }
        if (own.rec == NULL) {
            sim_log("cannot create usage record %s: %s; this process's memory is not reclaimed if it dies",
                    own.path, strerror(errno));
            own.failed_pid = pid;
            if (fd >= 0) {
                close(fd);
                unlink(own.path);
            }
            own.path[0] = '\0';
        }
    }
    struct vnpu_sim_proc_usage *rec = own.rec;
    pthread_mutex_unlock(&own.lock);
    return rec;
}

/* Without a usage record (e.g. procs/ not writable for this uid) memory is still charged to
 * hbm.bin, only not reclaimable should the process be killed; the failure is logged once. */
/* Set by the exit destructor (see sim_state_dtor). */
static int exited;

int sim_usage_charge(int dev, uint64_t bytes) {
    struct sim_host *h = sim_host();
    if (h == NULL) return ACL_ERROR_RT_NO_DEVICE;
    if (__atomic_load_n(&exited, __ATOMIC_ACQUIRE)) return ACL_ERROR_RT_MEMORY_ALLOCATION;
    struct vnpu_sim_proc_usage *rec = own_record(h);
    uint64_t cap = h->dev[dev].hbm_bytes;
    /* Own record first: a crash between the two steps can only make a reaper subtract too much,
     * which the saturating subtraction absorbs, never leave bytes nobody can reclaim. */
    if (rec != NULL) __atomic_fetch_add(&rec->used[dev], bytes, __ATOMIC_ACQ_REL);
    for (int attempt = 0; attempt < 2; attempt++) {
        uint64_t cur = __atomic_load_n(&h->hbm_used[dev], __ATOMIC_ACQUIRE);
        while (bytes <= cap && cur <= cap - bytes) {
            if (__atomic_compare_exchange_n(&h->hbm_used[dev], &cur, cur + bytes, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE))
                return RT_ERROR_NONE;
        }
        if (attempt == 0) sim_usage_reap_dead();
    }
    if (rec != NULL) sub_saturating(&rec->used[dev], bytes);
    return ACL_ERROR_RT_MEMORY_ALLOCATION;
}

void sim_usage_release(int dev, uint64_t bytes) {
    struct sim_host *h = sim_host();
    if (h == NULL || __atomic_load_n(&exited, __ATOMIC_ACQUIRE)) return;
    struct vnpu_sim_proc_usage *rec = __atomic_load_n(&own.rec, __ATOMIC_ACQUIRE);
    if (rec != NULL) sub_saturating(&rec->used[dev], bytes);
    sub_saturating(&h->hbm_used[dev], bytes);
}

uint64_t sim_usage_own(int dev) {
    return own.rec == NULL ? 0 : __atomic_load_n(&own.rec->used[dev], __ATOMIC_ACQUIRE);
}

/* ---- device timeline and ground truth ---- */

/* getpid() is a system call in current glibc; the launch path uses this copy, renewed in a fork child. */
static pid_t self_pid;

static struct vnpu_sim_busy_record *busy_record(struct sim_host *h, int dev) {
    pid_t pid = __atomic_load_n(&self_pid, __ATOMIC_RELAXED);
    if (pid == 0) pid = getpid();
    struct vnpu_sim_busy_record *fast = __atomic_load_n(&busy.rec[dev], __ATOMIC_ACQUIRE);
    if (fast != NULL && __atomic_load_n(&busy.pid, __ATOMIC_RELAXED) == pid) return fast;
    pthread_mutex_lock(&busy.lock);
    if (busy.pid != pid) { /* first use, or a forked child: records are per process */
        for (int d = 0; d < VNPU_SIM_MAX_DEVICES; d++) {
            if (busy.rec[d] != NULL) munmap(busy.rec[d], sizeof(*busy.rec[d]));
            __atomic_store_n(&busy.rec[d], NULL, __ATOMIC_RELAXED);
            if (busy.ring[d] != NULL) munmap(busy.ring[d], sizeof(*busy.ring[d]));
            __atomic_store_n(&busy.ring[d], NULL, __ATOMIC_RELAXED);
            busy.ring_failed[d] = 0;
        }
        __atomic_store_n(&busy.pid, pid, __ATOMIC_RELAXED);
    }
    if (busy.rec[dev] == NULL) {
        char path[700];
        snprintf(path, sizeof(path), "%s/busy/%d-%d", h->root, (int)pid, dev);
        struct vnpu_sim_busy_record *r = map_shared(path, sizeof(*r));
        if (r != NULL) {
            memset(r, 0, sizeof(*r)); /* a previous process with the same PID left its record */
            r->pid = pid;
            r->logic_id = dev;
            __atomic_store_n(&r->magic, VNPU_SIM_BUSY_MAGIC, __ATOMIC_RELEASE);
            __atomic_store_n(&busy.rec[dev], r, __ATOMIC_RELEASE);
        }
    }
    if (task_ring_on == 1 && busy.ring[dev] == NULL && !busy.ring_failed[dev]) {
        char path[700];
        snprintf(path, sizeof(path), "%s/tasks/%d-%d", h->root, (int)pid, dev);
        (void)unlink(path); /* a previous process with the same PID: start a fresh (sparse) file */
        struct vnpu_sim_task_ring *q = map_shared(path, sizeof(*q));
        if (q != NULL) {
            q->pid = pid;
            q->logic_id = dev;
            __atomic_store_n(&q->magic, VNPU_SIM_TASK_RING_MAGIC, __ATOMIC_RELEASE);
            __atomic_store_n(&busy.ring[dev], q, __ATOMIC_RELEASE);
        } else {
            busy.ring_failed[dev] = 1;
        }
    }
    struct vnpu_sim_busy_record *r = busy.rec[dev];
    pthread_mutex_unlock(&busy.lock);
    return r;
}

uint64_t sim_device_schedule(int dev, uint64_t ready_ns, uint64_t duration_ns) {
    struct sim_host *h = sim_host();
    struct vnpu_sim_device_time *t = &h->dtime[dev];
    uint64_t cur = __atomic_load_n(&t->busy_until_ns, __ATOMIC_ACQUIRE);
    uint64_t start;
    do {
        start = cur > ready_ns ? cur : ready_ns;
    } while (!__atomic_compare_exchange_n(&t->busy_until_ns, &cur, start + duration_ns, 0, __ATOMIC_ACQ_REL,
                                          __ATOMIC_ACQUIRE));
    uint64_t end = start + duration_ns;
    __atomic_fetch_add(&t->busy_ns, duration_ns, __ATOMIC_RELAXED);
    __atomic_fetch_add(&t->tasks, 1, __ATOMIC_RELAXED);
    struct vnpu_sim_busy_record *r = busy_record(h, dev);
    if (r != NULL) {
        uint64_t zero = 0;
        __atomic_compare_exchange_n(&r->first_start_ns, &zero, start, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
        __atomic_fetch_add(&r->busy_ns, duration_ns, __ATOMIC_RELAXED);
        __atomic_fetch_add(&r->tasks, 1, __ATOMIC_RELAXED);
        uint64_t last = __atomic_load_n(&r->last_end_ns, __ATOMIC_RELAXED);
        while (last < end && !__atomic_compare_exchange_n(&r->last_end_ns, &last, end, 0, __ATOMIC_RELAXED,
                                                          __ATOMIC_RELAXED)) {
        }
        struct vnpu_sim_task_ring *q = __atomic_load_n(&busy.ring[dev], __ATOMIC_ACQUIRE);
        if (q != NULL) {
            uint64_t i = __atomic_fetch_add(&q->next, 1, __ATOMIC_RELAXED);
            struct vnpu_sim_task_slot *sl = &q->slot[i % VNPU_SIM_TASK_RING_SLOTS];
            /* a seqlock without fences (ThreadSanitizer): release stores keep the odd seq first */
            __atomic_store_n(&sl->seq, 2 * i + 1, __ATOMIC_RELAXED);
            __atomic_store_n(&sl->start_ns, start, __ATOMIC_RELEASE);
            __atomic_store_n(&sl->end_ns, end, __ATOMIC_RELEASE);
            __atomic_store_n(&sl->seq, 2 * i + 2, __ATOMIC_RELEASE);
        }
    }
    return end;
}

/* ---- process lifecycle ---- */

static void forget_own_after_fork(void) {
    /* The child must not touch the parent's record (shared mapping) nor its lock-holding fd. */
    if (own.rec != NULL) munmap(own.rec, sizeof(*own.rec));
    if (own.fd >= 0) close(own.fd); /* a child holds no lock on it: closing drops nothing */
    own.rec = NULL;
    own.fd = -1;
    own.pid = 0;
    own.path[0] = '\0';
}

static void atfork_prepare(void) {
    pthread_mutex_lock(&own.lock);
    pthread_mutex_lock(&busy.lock);
}

static void atfork_parent(void) {
    pthread_mutex_unlock(&busy.lock);
    pthread_mutex_unlock(&own.lock);
}

static void atfork_child(void) {
    /* the environment may differ only through exec; the child keeps the parent's mask */
    self_pid = getpid();
    /* a forked child starts without device references, like without a device context */
    memset(dev_refs, 0, sizeof dev_refs);
    pthread_mutex_unlock(&busy.lock);
    pthread_mutex_unlock(&own.lock);
    forget_own_after_fork();
}

__attribute__((constructor)) static void sim_state_ctor(void) {
    self_pid = getpid();
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

/* A real driver frees a process's device memory when it exits; so do we, at normal exit. */
/* Threads may still run while the process exits: the record stays mapped, and `exited` keeps them
 * from touching hbm.bin once the process's bytes were given back. */

__attribute__((destructor)) static void sim_state_dtor(void) {
    if (own.rec == NULL || own.pid != getpid() || !host_ok) return;
    __atomic_store_n(&exited, 1, __ATOMIC_RELEASE);
    drain_record(&host_state, own.rec);
    unlink(own.path);
}
