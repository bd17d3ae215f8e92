/*
 * Quota region: see region.h and docs/region-layout.md for the protocol and its proof.
 */
#include "cpu_relax.h"
#include "region.h"
#include "safe_open.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define P64(r, off) ((uint64_t *)((r)->base + (off)))
#define P32(r, off) ((uint32_t *)((r)->base + (off)))

/* Serialises reaping between threads of one process: record locks do not exclude our own threads. */
static pthread_mutex_t reap_mu = PTHREAD_MUTEX_INITIALIZER;

void vnpu_region_atfork_prepare(void) { pthread_mutex_lock(&reap_mu); }
void vnpu_region_atfork_parent(void) { pthread_mutex_unlock(&reap_mu); }
void vnpu_region_atfork_child(void) { pthread_mutex_unlock(&reap_mu); }
void vnpu_region_clone_child(void) {
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    reap_mu = fresh;
}

uint64_t vnpu_load64(const struct vnpu_region *r, uint64_t off) {
    return __atomic_load_n((const uint64_t *)(r->base + off), __ATOMIC_SEQ_CST);
}

uint32_t vnpu_load32(const struct vnpu_region *r, uint64_t off) {
    return __atomic_load_n((const uint32_t *)(r->base + off), __ATOMIC_SEQ_CST);
}

const char *vnpu_open_status_name(enum vnpu_open_status s) {
    switch (s) {
    case VNPU_OPEN_OK: return "ok";
    case VNPU_OPEN_MISSING: return "missing";
    case VNPU_OPEN_ACCESS: return "access denied";
    case VNPU_OPEN_BAD_MAGIC: return "bad magic";
    case VNPU_OPEN_BAD_MAJOR: return "unknown major version";
    case VNPU_OPEN_BAD_GEOMETRY: return "bad geometry";
    case VNPU_OPEN_NOT_READY: return "not initialised";
    case VNPU_OPEN_LOCK_TIMEOUT: return "init lock timeout";
    case VNPU_OPEN_IO: return "i/o error";
    case VNPU_OPEN_NO_SPACE: return "no space";
    }
    return "?";
}

/* ---------- record locks ---------- */

static int lock_op(struct vnpu_region *r, uint64_t off, short type) {
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = (off_t)off;
    fl.l_len = 1;
    if (r->use_ofd) {
        if (fcntl(r->fd, F_OFD_SETLK, &fl) == 0) return 0;
        if (errno != EINVAL) return -1;
        r->use_ofd = 0; /* kernel without OFD locks: classic POSIX locks work too (one fd per process) */
    }
    return fcntl(r->fd, F_SETLK, &fl);
}

static int try_lock(struct vnpu_region *r, uint64_t off) { return lock_op(r, off, F_WRLCK) == 0; }
static void unlock(struct vnpu_region *r, uint64_t off) { (void)lock_op(r, off, F_UNLCK); }

static int lock_bounded(struct vnpu_region *r, uint64_t off, int ms) {
    for (int waited = 0;; waited++) {
        if (try_lock(r, off)) return 1;
        if (errno != EAGAIN && errno != EACCES) return 0;
        if (waited >= ms) return 0;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

/* ---------- helpers ---------- */

static uint64_t realtime_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t vnpu_self_starttime(void) {
    char buf[1024];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* comm may contain spaces and parentheses */
    if (!p) return 0;
    /* after ") " comes field 3 (state); start time is field 22 */
    int field = 2;
    for (char *q = p + 1; *q; q++) {
        if (*q == ' ') {
            field++;
            if (field == 22) return (uint64_t)strtoull(q + 1, NULL, 10);
        }
    }
    return 0;
}

static uint64_t random_epoch(void) {
    uint64_t v = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &v, sizeof v) != (ssize_t)sizeof v) v = 0;
        close(fd);
    }
    v ^= realtime_ns() ^ ((uint64_t)getpid() << 32);
    return v ? v : 1;
}

/* ---------- open / validate / initialise ---------- */

#define ERR(...) (snprintf(err, errlen, __VA_ARGS__))

/* Checks a header that claims to be ready (or is about to be used); never reads past file_size. */
static enum vnpu_open_status validate(const unsigned char *h, uint64_t file_size, const char *path,
                                      char *err, size_t errlen) {
    uint64_t magic, file_bytes;
    uint16_t major;
    uint32_t hdr, slots, slot_bytes, devs, dstride, sstride;
    memcpy(&magic, h + VNPU_H_MAGIC, 8);
    memcpy(&major, h + VNPU_H_MAJOR, 2);
    memcpy(&hdr, h + VNPU_H_HEADER_BYTES, 4);
    memcpy(&file_bytes, h + VNPU_H_FILE_BYTES, 8);
    memcpy(&devs, h + VNPU_H_DEVICE_COUNT, 4);
    memcpy(&slots, h + VNPU_H_SLOT_COUNT, 4);
    memcpy(&slot_bytes, h + VNPU_H_SLOT_BYTES, 4);
    memcpy(&dstride, h + VNPU_H_DEVCFG_STRIDE, 4);
    memcpy(&sstride, h + VNPU_H_DEVSTATE_STRIDE, 4);
    if (magic != VNPU_REGION_MAGIC) {
        ERR("quota region %s: field magic = 0x%016" PRIx64 ", expected 0x%016llx", path, magic, VNPU_REGION_MAGIC);
        return VNPU_OPEN_BAD_MAGIC;
    }
    if (major != VNPU_REGION_MAJOR) {
        ERR("quota region %s: field version_major = %u, this limiter reads only %u", path, major, VNPU_REGION_MAJOR);
        return VNPU_OPEN_BAD_MAJOR;
    }
#define GEO(cond, name, val, want)                                                                         \
    if (!(cond)) {                                                                                         \
        ERR("quota region %s: field %s = %" PRIu64 ", expected %s", path, name, (uint64_t)(val), want);          \
        return VNPU_OPEN_BAD_GEOMETRY;                                                                     \
    }
    GEO(hdr == VNPU_HDR_BYTES, "header_bytes", hdr, "4096");
    GEO(file_bytes >= VNPU_REGION_FILE_BYTES, "file_bytes", file_bytes, ">= 139264");
    GEO(file_size >= file_bytes, "file size (stat)", file_size, ">= file_bytes");
    GEO(slots == VNPU_REGION_SLOT_COUNT, "slot_count", slots, "256");
    GEO(slot_bytes == VNPU_SLOT_BYTES, "slot_bytes", slot_bytes, "512");
    GEO(dstride == VNPU_DEVCFG_BYTES, "device_config_stride", dstride, "128");
    GEO(sstride == VNPU_DEVSTATE_BYTES, "device_state_stride", sstride, "256");
    GEO(devs >= 1 && devs <= VNPU_REGION_MAX_DEVICES, "device_count", devs, "1..16");
#undef GEO
    return VNPU_OPEN_OK;
}

static void initialise(struct vnpu_region *r, const struct vnpu_init_config *c) {
    unsigned char *b = r->base;
    memset(b, 0, VNPU_REGION_FILE_BYTES);
    __atomic_store_n(P32(r, VNPU_H_INIT_STATE), VNPU_INIT_INITIALISING, __ATOMIC_RELEASE);
    uint16_t major = VNPU_REGION_MAJOR, minor = VNPU_REGION_MINOR;
    memcpy(b + VNPU_H_MAJOR, &major, 2);
    memcpy(b + VNPU_H_MINOR, &minor, 2);
    *P32(r, VNPU_H_HEADER_BYTES) = VNPU_HDR_BYTES;
    *P64(r, VNPU_H_FILE_BYTES) = VNPU_REGION_FILE_BYTES;
    *P32(r, VNPU_H_DEVICE_COUNT) = c->device_count;
    *P32(r, VNPU_H_SLOT_COUNT) = VNPU_REGION_SLOT_COUNT;
    *P32(r, VNPU_H_SLOT_BYTES) = VNPU_SLOT_BYTES;
    *P64(r, VNPU_H_EPOCH) = random_epoch();
    *P64(r, VNPU_H_CREATED_NS) = realtime_ns();
    *P32(r, VNPU_H_POLICY_FLAGS) = c->policy_flags;
    *P32(r, VNPU_H_DEVCFG_STRIDE) = VNPU_DEVCFG_BYTES;
    *P32(r, VNPU_H_DEVSTATE_STRIDE) = VNPU_DEVSTATE_BYTES;
    *P32(r, VNPU_H_CREATOR) = VNPU_CREATOR_LIMITER;
    for (uint32_t d = 0; d < VNPU_REGION_MAX_DEVICES; d++) {
        uint64_t o = vnpu_devcfg_off(d);
        *P64(r, o + VNPU_DC_MEM_LIMIT) = d < c->device_count ? c->mem_limit[d] : 0;
        *P32(r, o + VNPU_DC_COMPUTE_WEIGHT) = c->compute_weight;
        *P32(r, o + VNPU_DC_COMPUTE_CAP_PCT) = c->compute_cap_pct;
        *(int32_t *)(b + o + VNPU_DC_PRIORITY_CLASS) = c->priority_class;
        *(int32_t *)(b + o + VNPU_DC_PHYS_ID) = -1;
    }
    __atomic_store_n(P64(r, VNPU_H_MAGIC), VNPU_REGION_MAGIC, __ATOMIC_RELEASE);
    __atomic_store_n(P32(r, VNPU_H_INIT_STATE), VNPU_INIT_READY, __ATOMIC_SEQ_CST);
}

static int open_fd(const char *path, int create, int *created) {
    *created = 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        /* regular file, no symlink, never blocking, fd >= 3 (safe_open.h) */
        int fd = vnpu_open_regular(path, O_RDWR, 0);
        if (fd >= 0 || errno != ENOENT || !create) return fd;
        fd = vnpu_open_regular(path, O_RDWR | O_CREAT | O_EXCL, 0666);
        if (fd >= 0) {
            /* umask would narrow 0666; other users of the container (non-root) must open it too */
            (void)fchmod(fd, 0666);
            *created = 1;
            return fd;
        }
        if (errno != EEXIST) return -1;
    }
    errno = ENOENT;
    return -1;
}

static int map_file(struct vnpu_region *r) {
    void *p = mmap(NULL, VNPU_REGION_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
    if (p == MAP_FAILED) return -1;
    r->base = p;
    return 0;
}

/*
 * Gives every byte of the region a block, so that no store through the mapping can ever fault. A
 * page without a block is allocated on the first store through a MAP_SHARED mapping; on a full file
 * system (one a neighbour can fill) that store raises SIGBUS in whichever process makes it.
 * fallocate mode 0 never changes the file's data and only grows its size, so it is safe on a region
 * others have mapped and use. Where the file system cannot fallocate, fresh (never READY, init lock
 * held) says the bytes may be written with zeros instead; otherwise the region is used as it is.
 * Returns 0, or -1 with errno (ENOSPC/EDQUOT: no room).
 */
static int allocate_blocks(int fd, int fresh) {
    struct stat sb;
    if (fstat(fd, &sb) != 0) return -1;
    if (sb.st_size >= (off_t)VNPU_REGION_FILE_BYTES && (uint64_t)sb.st_blocks * 512u >= VNPU_REGION_FILE_BYTES)
        return 0; /* already allocated: the common case costs one fstat */
    int rc;
    do {
        rc = fallocate(fd, 0, 0, (off_t)VNPU_REGION_FILE_BYTES);
    } while (rc != 0 && errno == EINTR);
    if (rc == 0) return 0;
    if (errno != EOPNOTSUPP && errno != ENOSYS) return -1;
    if (!fresh) return 0; /* nothing safe left to do on a live region */
    static const unsigned char zeros[4096];
    for (off_t off = 0; off < (off_t)VNPU_REGION_FILE_BYTES;) {
        ssize_t w = pwrite(fd, zeros, sizeof zeros, off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        off += w;
    }
    return 0;
}

static enum vnpu_open_status no_space_or_io(int e) {
    return e == ENOSPC || e == EDQUOT ? VNPU_OPEN_NO_SPACE : e == EACCES || e == EPERM ? VNPU_OPEN_ACCESS : VNPU_OPEN_IO;
}

enum vnpu_open_status vnpu_region_open(struct vnpu_region *r, const char *path,
                                       const struct vnpu_init_config *init, char *err, size_t errlen) {
    r->fd = -1;
    r->base = NULL;
    r->slot = -1;
    r->use_ofd = 1;
    r->own_used = NULL;
    r->own_pending = NULL;
    int created;
    r->fd = open_fd(path, init != NULL, &created);
    if (r->fd < 0) {
        int e = errno;
        ERR("quota region %s: open: %s", path, strerror(e));
        return e == ENOENT ? VNPU_OPEN_MISSING : (e == EACCES || e == EPERM || e == EROFS) ? VNPU_OPEN_ACCESS
                                                                                         : VNPU_OPEN_IO;
    }
    enum vnpu_open_status st = VNPU_OPEN_OK;
    int locked = 0;
    for (int pass = 0; pass < 2; pass++) {
        struct stat sb;
        if (fstat(r->fd, &sb) != 0) {
            ERR("quota region %s: fstat: %s", path, strerror(errno));
            st = VNPU_OPEN_IO;
            goto fail;
        }
        unsigned char hdr[VNPU_HDR_BYTES];
        memset(hdr, 0, sizeof hdr);
        ssize_t n = sb.st_size > 0 ? pread(r->fd, hdr, sizeof hdr, 0) : 0;
        if (n < 0) {
            ERR("quota region %s: read: %s", path, strerror(errno));
            st = VNPU_OPEN_IO;
            goto fail;
        }
        uint64_t magic;
        uint32_t state;
        memcpy(&magic, hdr + VNPU_H_MAGIC, 8);
        memcpy(&state, hdr + VNPU_H_INIT_STATE, 4);
        if (magic != 0 && magic != VNPU_REGION_MAGIC) {
            st = validate(hdr, (uint64_t)sb.st_size, path, err, errlen); /* reports the magic */
            goto fail;
        }
        if (state == VNPU_INIT_READY && magic == VNPU_REGION_MAGIC) {
            st = validate(hdr, (uint64_t)sb.st_size, path, err, errlen);
            if (st != VNPU_OPEN_OK) goto fail;
            /* a region made sparse (an older node agent, a copy) is completed before it is mapped */
            if (allocate_blocks(r->fd, 0) != 0) {
                int e = errno;
                ERR("quota region %s: allocate %llu bytes: %s", path, (unsigned long long)VNPU_REGION_FILE_BYTES,
                    strerror(e));
                st = no_space_or_io(e);
                goto fail;
            }
            if (map_file(r) != 0) {
                ERR("quota region %s: mmap: %s", path, strerror(errno));
                st = errno == EACCES ? VNPU_OPEN_ACCESS : VNPU_OPEN_IO;
                goto fail;
            }
            if (locked) unlock(r, VNPU_LOCK_INIT);
            return VNPU_OPEN_OK;
        }
        /* empty, or an initialiser is at work (or died at work): wait for it under the init lock */
        if (pass == 1) break;
        if (!lock_bounded(r, VNPU_LOCK_INIT, VNPU_INIT_WAIT_MS)) {
            ERR("quota region %s: init lock busy for more than %d ms", path, VNPU_INIT_WAIT_MS);
            st = VNPU_OPEN_LOCK_TIMEOUT;
            goto fail;
        }
        locked = 1;
    }
    /* holding the init lock and the file is still not ready: whoever initialised it died */
    (void)created;
    if (!init) {
        ERR("quota region %s: field init_state is not READY and no quota configuration is present", path);
        st = VNPU_OPEN_NOT_READY;
        goto fail;
    }
    /* re-initialising clears every slot: never while a process still owns one (it would keep running
     * on a region whose charges were wiped), whatever the header says */
    for (uint32_t i = 0; i < VNPU_REGION_SLOT_COUNT; i++) {
        if (!try_lock(r, VNPU_LOCK_SLOT(i))) {
            ERR("quota region %s: field init_state is not READY while process slot %u has a live owner; "
                "not re-initialised", path, i);
            st = VNPU_OPEN_NOT_READY;
            goto fail;
        }
        unlock(r, VNPU_LOCK_SLOT(i));
    }
    /* grow if needed, never shrink: another process may have the file mapped (SIGBUS beyond EOF);
     * every byte gets its block now, never a sparse region (allocate_blocks) */
    if (allocate_blocks(r->fd, 1) != 0) {
        int e = errno;
        ERR("quota region %s: allocate %llu bytes: %s", path, (unsigned long long)VNPU_REGION_FILE_BYTES, strerror(e));
        st = no_space_or_io(e);
        goto fail;
    }
    if (map_file(r) != 0) {
        ERR("quota region %s: initialise: %s", path, strerror(errno));
        st = errno == EACCES || errno == EPERM ? VNPU_OPEN_ACCESS : VNPU_OPEN_IO;
        goto fail;
    }
    initialise(r, init);
    unlock(r, VNPU_LOCK_INIT);
    return VNPU_OPEN_OK;
fail:
    if (r->base) munmap(r->base, VNPU_REGION_FILE_BYTES);
    r->base = NULL;
    close(r->fd); /* drops any record lock of ours, including the init lock */
    r->fd = -1;
    return st;
}

void vnpu_region_close(struct vnpu_region *r) {
    if (r->base) munmap(r->base, VNPU_REGION_FILE_BYTES);
    if (r->fd >= 0) close(r->fd);
    r->base = NULL;
    r->fd = -1;
    r->slot = -1;
    r->own_used = NULL;
    r->own_pending = NULL;
}

/* ---------- slots ---------- */

static void raise_hwm(struct vnpu_region *r, uint32_t v) {
    uint32_t cur = __atomic_load_n(P32(r, VNPU_H_SLOT_HWM), __ATOMIC_SEQ_CST);
    while (cur < v &&
           !__atomic_compare_exchange_n(P32(r, VNPU_H_SLOT_HWM), &cur, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
}

static int try_claim(struct vnpu_region *r, uint32_t i) {
    uint64_t o = vnpu_slot_off(i);
    if (__atomic_load_n(P32(r, o + VNPU_S_STATE), __ATOMIC_ACQUIRE) != VNPU_SLOT_FREE) return 0;
    /* lock before publishing: a reaper that can take this lock knows the owner is gone */
    if (!try_lock(r, VNPU_LOCK_SLOT(i))) return 0;
    uint32_t expect = VNPU_SLOT_FREE;
    if (!__atomic_compare_exchange_n(P32(r, o + VNPU_S_STATE), &expect, VNPU_SLOT_CLAIMING, 0, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST)) {
        unlock(r, VNPU_LOCK_SLOT(i));
        return 0;
    }
    __atomic_store_n((int32_t *)(r->base + o + VNPU_S_PID), (int32_t)getpid(), __ATOMIC_RELAXED);
    __atomic_store_n(P64(r, o + VNPU_S_STARTTIME), vnpu_self_starttime(), __ATOMIC_RELAXED);
    __atomic_store_n((int32_t *)(r->base + o + VNPU_S_HOST_PID), 0, __ATOMIC_RELAXED);
    __atomic_store_n(P32(r, o + VNPU_S_FLAGS), 0, __ATOMIC_RELAXED);
    __atomic_store_n(P64(r, o + VNPU_S_CLAIMED_NS), realtime_ns(), __ATOMIC_RELAXED);
    for (uint32_t d = 0; d < VNPU_REGION_MAX_DEVICES; d++) {
        __atomic_store_n(P64(r, o + VNPU_S_USED_BYTES + 8 * d), 0, __ATOMIC_RELAXED);
        __atomic_store_n(P64(r, o + VNPU_S_PENDING_BYTES + 8 * d), 0, __ATOMIC_RELAXED);
    }
    __atomic_store_n(P64(r, o + VNPU_S_LAUNCHES), 0, __ATOMIC_RELAXED);
    __atomic_store_n(P64(r, o + VNPU_S_BUSY_NS), 0, __ATOMIC_RELAXED);
    __atomic_fetch_add(P64(r, o + VNPU_S_GENERATION), 1, __ATOMIC_SEQ_CST);
    raise_hwm(r, i + 1); /* before any byte is charged to this slot: admission scans up to the hwm */
    __atomic_store_n(P32(r, o + VNPU_S_STATE), VNPU_SLOT_ACTIVE, __ATOMIC_SEQ_CST);
    r->slot = (int)i;
    r->own_used = P64(r, o + VNPU_S_USED_BYTES);
    r->own_pending = P64(r, o + VNPU_S_PENDING_BYTES);
    return 1;
}

/*
 * The lowest free slot below the high-water mark first; when none is free there, the slots of dead
 * owners are reaped and tried before the mark grows. Every admission scans every slot below the mark,
 * and nothing lowers it: a container whose processes come and go without a memory-info query (which
 * also reaps) would otherwise push it to 256 and make each allocation scan 256 slots. Reaping costs one
 * try-lock per occupied slot below the mark, once per process start, and only when no slot there is free.
 */
int vnpu_region_claim_slot(struct vnpu_region *r) {
    for (int round = 0; round < 2; round++) {
        uint32_t hwm = __atomic_load_n(P32(r, VNPU_H_SLOT_HWM), __ATOMIC_SEQ_CST);
        if (hwm > VNPU_REGION_SLOT_COUNT) hwm = VNPU_REGION_SLOT_COUNT;
        for (uint32_t i = 0; i < hwm; i++)
            if (try_claim(r, i)) return (int)i;
        if (round == 0 && hwm > 0 && vnpu_region_reap(r) > 0) continue;
        for (uint32_t i = hwm; i < VNPU_REGION_SLOT_COUNT; i++)
            if (try_claim(r, i)) return (int)i;
        if (vnpu_region_reap(r) == 0) break;
    }
    return -1;
}

/* dev < 0: every slot; else only the slots holding bytes (committed or pending) on dev */
static int reap_slots(struct vnpu_region *r, int dev) {
    int reaped = 0;
    pthread_mutex_lock(&reap_mu);
    uint32_t hwm = __atomic_load_n(P32(r, VNPU_H_SLOT_HWM), __ATOMIC_SEQ_CST);
    if (hwm > VNPU_REGION_SLOT_COUNT) hwm = VNPU_REGION_SLOT_COUNT;
    for (uint32_t i = 0; i < hwm; i++) {
        if ((int)i == r->slot) continue; /* our own lock never conflicts with us */
        uint64_t o = vnpu_slot_off(i);
        uint32_t st = __atomic_load_n(P32(r, o + VNPU_S_STATE), __ATOMIC_SEQ_CST);
        if (st == VNPU_SLOT_FREE) continue;
        if (dev >= 0 && vnpu_load64(r, o + VNPU_S_USED_BYTES + 8ull * (uint32_t)dev) == 0 &&
            vnpu_load64(r, o + VNPU_S_PENDING_BYTES + 8ull * (uint32_t)dev) == 0)
            continue; /* whether its owner lives or not, it stands in nobody's way on dev */
        /* the owner holds this lock from before CLAIMING until its death: taking it proves death,
         * whatever PID namespace the owner lived in and whoever reuses its PID */
        if (!try_lock(r, VNPU_LOCK_SLOT(i))) continue;
        st = __atomic_load_n(P32(r, o + VNPU_S_STATE), __ATOMIC_SEQ_CST);
        if (st != VNPU_SLOT_FREE &&
            __atomic_compare_exchange_n(P32(r, o + VNPU_S_STATE), &st, VNPU_SLOT_REAPING, 0, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST)) {
            for (uint32_t d = 0; d < VNPU_REGION_MAX_DEVICES; d++) {
                /* a pending charge of a dead admitter was never committed: it only disappears */
                __atomic_store_n(P64(r, o + VNPU_S_PENDING_BYTES + 8 * d), 0, __ATOMIC_SEQ_CST);
                uint64_t b = __atomic_exchange_n(P64(r, o + VNPU_S_USED_BYTES + 8 * d), 0, __ATOMIC_SEQ_CST);
                if (b) __atomic_fetch_add(P64(r, vnpu_devstate_off(d) + VNPU_DS_REAPED_BYTES), b, __ATOMIC_RELAXED);
            }
            __atomic_store_n(P32(r, o + VNPU_S_STATE), VNPU_SLOT_FREE, __ATOMIC_SEQ_CST);
            reaped++;
        }
        unlock(r, VNPU_LOCK_SLOT(i));
    }
    pthread_mutex_unlock(&reap_mu);
    return reaped;
}

int vnpu_region_reap(struct vnpu_region *r) { return reap_slots(r, -1); }

/* ---------- accounting ---------- */

uint32_t vnpu_region_device_count(const struct vnpu_region *r) {
    uint32_t n = vnpu_load32(r, VNPU_H_DEVICE_COUNT);
    return n > VNPU_REGION_MAX_DEVICES ? VNPU_REGION_MAX_DEVICES : n;
}

uint32_t vnpu_region_policy(const struct vnpu_region *r) { return vnpu_load32(r, VNPU_H_POLICY_FLAGS); }

uint64_t vnpu_region_limit(const struct vnpu_region *r, uint32_t dev) {
    if (dev >= vnpu_region_device_count(r)) return 0;
    return vnpu_load64(r, vnpu_devcfg_off(dev) + VNPU_DC_MEM_LIMIT);
}

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

uint64_t vnpu_region_used(const struct vnpu_region *r, uint32_t dev) {
    uint32_t hwm = vnpu_load32(r, VNPU_H_SLOT_HWM);
    if (hwm > VNPU_REGION_SLOT_COUNT) hwm = VNPU_REGION_SLOT_COUNT;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < hwm; i++) sum = sat_add(sum, vnpu_load64(r, vnpu_slot_off(i) + VNPU_S_USED_BYTES + 8ull * dev));
    return sum;
}

int vnpu_region_used_snapshot(const struct vnpu_region *r, uint32_t dev, uint64_t *out) {
    const uint64_t seq_off = vnpu_devstate_off(dev) + VNPU_DS_COMMIT_SEQ;
    for (int attempt = 0; attempt < VNPU_SNAPSHOT_ATTEMPTS; attempt++) {
        uint64_t s1 = vnpu_load64(r, seq_off);
        uint64_t sum = vnpu_region_used(r, dev);
        if (vnpu_load64(r, seq_off) == s1) {
            *out = sum;
            return 1;
        }
    }
    *out = vnpu_region_used(r, dev);
    return 0;
}

/* committed (*used) and pending bytes over all slots: an admitter must fit their sum under the limit */
/* inlined into the admission: its out-parameters would otherwise go through memory */
static inline __attribute__((always_inline)) void claimed_sums(const struct vnpu_region *r, uint32_t dev,
                                                               uint64_t *used, uint64_t *pending) {
    uint32_t hwm = vnpu_load32(r, VNPU_H_SLOT_HWM);
    if (hwm > VNPU_REGION_SLOT_COUNT) hwm = VNPU_REGION_SLOT_COUNT;
    uint64_t u = 0, p = 0;
    /* the mapping's address once: each sequentially consistent load is a compiler barrier, so
     * r->base would otherwise be reloaded from memory twice per slot */
    const unsigned char *slot = r->base + VNPU_SLOTS_OFF + 8ull * dev;
    for (uint32_t i = 0; i < hwm; i++, slot += VNPU_SLOT_BYTES) {
        p = sat_add(p, __atomic_load_n((const uint64_t *)(slot + VNPU_S_PENDING_BYTES), __ATOMIC_SEQ_CST));
        u = sat_add(u, __atomic_load_n((const uint64_t *)(slot + VNPU_S_USED_BYTES), __ATOMIC_SEQ_CST));
    }
    *used = u;
    *pending = p;
}

struct vnpu_admit_stats vnpu_admit_stats;

void vnpu_region_count(struct vnpu_region *r, uint32_t dev, uint32_t ds_field, uint64_t n) {
    __atomic_fetch_add(P64(r, vnpu_devstate_off(dev) + ds_field), n, __ATOMIC_RELAXED);
}

/*
 * After an admission whose check summed `verified` (committed + pending, its own charge included):
 * what is in use now is at most that sum, so only a sum above the peak can raise it, and the usual
 * admission (peak already as high) reads one word and scans nothing. Otherwise the slot scan bounds
 * it too: the check's sum may hold pending bytes that were then refused, and a scan is not atomic (a
 * release read late plus the admission it allowed read early can add up past the limit for no
 * instant at all), so the peak is the smaller of the two.
 */
static __attribute__((noinline, cold)) void raise_peak_slow(struct vnpu_region *r, uint32_t dev, uint64_t verified) {
    uint64_t *p = P64(r, vnpu_devstate_off(dev) + VNPU_DS_PEAK_BYTES);
    uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
    uint64_t now_used = vnpu_region_used(r, dev);
    uint64_t v = now_used < verified ? now_used : verified;
    while (cur < v && !__atomic_compare_exchange_n(p, &cur, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

static inline void raise_peak(unsigned char *base, struct vnpu_region *r, uint32_t dev, uint64_t verified) {
    if (__atomic_load_n((uint64_t *)(base + vnpu_devstate_off(dev) + VNPU_DS_PEAK_BYTES), __ATOMIC_RELAXED) >= verified)
        return;
    raise_peak_slow(r, dev, verified);
}

/*
 * When a refusal is decided (issue 29):
 *   - the request does not fit beside what is committed: refused at once, unless owners that died
 *     hold bytes on the device; those are reaped first (one try-lock per such slot, no sleeping) and
 *     the admission tried again. Such a refusal never waits.
 *   - it fits beside what is committed, and only other admitters' pending charges stand in the way:
 *     refusing now would be a false refusal (the bytes fit once the neighbour commits or backs out),
 *     so the admission is tried again at once up to ADMIT_CONTENDED_TRIES times, then (a pending
 *     charge of a dead admitter is reaped) it waits for the pending holders to resolve: it yields
 *     ADMIT_CONTENDED_YIELDS times, then sleeps ADMIT_CONTENDED_SLEEP_NS at a time, re-checking after
 *     each wait, for at most VNPU_ADMIT_CONTENDED_WAIT_NS in all. A neighbour preempted mid-admission
 *     runs again within that bound unless the machine is overloaded or the neighbour is stopped.
 *     While waiting it holds no pending charge of its own, so it never blocks the holder it waits for.
 *   - failure policy when the bound passes and pending bytes are still in the way: refused (fail
 *     closed: 207001 to the caller, never an over-commit), counted in
 *     vnpu_admit_stats.contended_timeout. If meanwhile the pending bytes were committed and the
 *     request no longer fits, it is an ordinary over-limit refusal.
 */
#define ADMIT_CONTENDED_TRIES 256
#define ADMIT_CONTENDED_YIELDS 16
#define ADMIT_CONTENDED_SLEEP_NS 20000L     /* 20 us */

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Steps 1-3 of an enforced admission (docs/region-layout.md "Admission"), once: publish the pending
 * charge, sum every slot's committed and pending bytes, commit if the sum fits the limit. Returns 1
 * when committed; 0 when the sum was over the limit, with the pending charge undone and *used set
 * to the committed part of the sum (what the refusal policy decides on). Inlined into the first
 * try and into the retry loop: the protocol is written once.
 */
static inline __attribute__((always_inline)) int admit_once(struct vnpu_region *r, uint32_t dev, uint64_t bytes,
                                                            uint64_t limit, uint64_t *used) {
    /* the mapping's address once: every sequentially consistent operation is a compiler barrier,
     * so r->base and the own slot's words would otherwise be reloaded after each */
    unsigned char *base = r->base;
    uint64_t *own = r->own_used + dev;
    uint64_t *pending = r->own_pending + dev;
    /* publish, then verify: with sequentially consistent add and loads, of any set of admitters
     * that all succeed, the last to publish saw every other's charge (pending or already
     * committed) in its sum, so committed bytes never exceed the limit (docs/region-layout.md) */
    __atomic_fetch_add(pending, bytes, __ATOMIC_SEQ_CST);
    uint64_t u, p;
    claimed_sums(r, dev, &u, &p);
    uint64_t sum = sat_add(u, p);
    if (__builtin_expect(sum <= limit, 1)) {
        /* commit before un-pending: the charge is counted twice for an instant, never zero times.
         * commit_seq is also the admissions count (minor 4): no counter of its own */
        __atomic_fetch_add((uint64_t *)(base + vnpu_devstate_off(dev) + VNPU_DS_COMMIT_SEQ), 1, __ATOMIC_SEQ_CST);
        __atomic_fetch_add(own, bytes, __ATOMIC_SEQ_CST);
        __atomic_fetch_sub(pending, bytes, __ATOMIC_SEQ_CST);
        raise_peak(base, r, dev, sum);
        return 1;
    }
    __atomic_fetch_sub(pending, bytes, __ATOMIC_SEQ_CST);
    *used = u;
    return 0;
}

/* The bounded wait for other admitters' pending charges: 1 after one yield or sleep, 0 once
 * VNPU_ADMIT_CONTENDED_WAIT_NS have passed since the first. */
static int wait_for_pending(uint32_t *waits, uint64_t *wait_start) {
    uint64_t now = mono_ns();
    if (*waits == 0) {
        *wait_start = now;
        __atomic_fetch_add(&vnpu_admit_stats.waited, 1, __ATOMIC_RELAXED);
    }
    if (now - *wait_start >= VNPU_ADMIT_CONTENDED_WAIT_NS) return 0;
    if ((*waits)++ < ADMIT_CONTENDED_YIELDS) {
        sched_yield();
    } else {
        struct timespec ts = {0, ADMIT_CONTENDED_SLEEP_NS};
        nanosleep(&ts, NULL);
    }
    return 1;
}

/* After a first try that did not fit (committed part `used`): the refusal policy above, then the
 * next try, until one commits or the request is refused. Out of line: the usual admission fits at
 * once. */
static __attribute__((noinline, cold)) int admit_contended(struct vnpu_region *r, uint32_t dev, uint64_t bytes,
                                                           uint64_t used) {
    int reaped = 0;
    uint32_t waits = 0;
    uint64_t wait_start = 0;
    for (int tries = 0;; tries++) {
        uint64_t limit = vnpu_region_limit(r, dev); /* the agent may have changed it meanwhile */
        int fits_committed = sat_add(used, bytes) <= limit;
        if (fits_committed && tries < ADMIT_CONTENDED_TRIES) {
            vnpu_cpu_relax();
        } else if (!reaped && (reaped = 1, reap_slots(r, (int)dev) > 0)) {
            /* what stood in the way belonged to owners that died (never to us: our slot is live) */
            __atomic_fetch_add(&vnpu_admit_stats.reaped, 1, __ATOMIC_RELAXED);
            tries = 0;
        } else if (!fits_committed || !wait_for_pending(&waits, &wait_start)) {
            /* over the limit beside the committed bytes, or pending charges of live admitters still in
             * the way when the wait's bound passed: refused (fail closed) */
            __atomic_fetch_add(fits_committed ? &vnpu_admit_stats.contended_timeout : &vnpu_admit_stats.over_limit, 1,
                               __ATOMIC_RELAXED);
            vnpu_region_count(r, dev, VNPU_DS_OOM_REJECTIONS, 1);
            return 1;
        }
        if (admit_once(r, dev, bytes, limit, &used)) {
            if (waits) __atomic_fetch_add(&vnpu_admit_stats.waited_admitted, 1, __ATOMIC_RELAXED);
            return 0;
        }
    }
}

/* Unlimited, but counted exactly: a charge that would wrap the counter is refused (a limit set
 * later must see the true usage, and a release must never be clamped). */
static int admit_unlimited(struct vnpu_region *r, uint32_t dev, uint64_t bytes) {
    unsigned char *base = r->base;
    uint64_t *own = r->own_used + dev;
    uint64_t cur = __atomic_load_n(own, __ATOMIC_SEQ_CST);
    do {
        if (cur + bytes < cur) {
            vnpu_region_count(r, dev, VNPU_DS_OOM_REJECTIONS, 1);
            return 1;
        }
    } while (!__atomic_compare_exchange_n(own, &cur, cur + bytes, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    /* commit_seq counts every admission (minor 4: the admissions field is no longer written) */
    __atomic_fetch_add((uint64_t *)(base + vnpu_devstate_off(dev) + VNPU_DS_COMMIT_SEQ), 1, __ATOMIC_SEQ_CST);
    return 0;
}

int vnpu_region_admit_described(struct vnpu_region *r, uint32_t dev, uint64_t bytes) {
    uint64_t limit = vnpu_load64(r, vnpu_devcfg_off(dev) + VNPU_DC_MEM_LIMIT);
    if (!(vnpu_region_policy(r) & VNPU_POLICY_MEM_ENFORCE) || limit == 0) return admit_unlimited(r, dev, bytes);
    if (bytes > limit) {
        vnpu_region_count(r, dev, VNPU_DS_OOM_REJECTIONS, 1);
        return 1;
    }
    uint64_t used;
    if (__builtin_expect(admit_once(r, dev, bytes, limit, &used), 1)) return 0;
    return admit_contended(r, dev, bytes, used);
}

int vnpu_region_admit(struct vnpu_region *r, uint32_t dev, uint64_t bytes) {
    /* a device the region does not describe has no limit (vnpu_region_limit): counted, unlimited */
    if (dev >= vnpu_region_device_count(r)) return admit_unlimited(r, dev, bytes);
    return vnpu_region_admit_described(r, dev, bytes);
}

void vnpu_region_release(struct vnpu_region *r, uint32_t dev, uint64_t bytes) {
    uint64_t *own = r->own_used + dev;
    uint64_t cur = __atomic_load_n(own, __ATOMIC_SEQ_CST);
    uint64_t next;
    do {
        next = cur >= bytes ? cur - bytes : 0;
    } while (!__atomic_compare_exchange_n(own, &cur, next, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
}
