#include "compute_registry.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ADMIN_WAIT_NS 1000000000LL /* joining waits at most 1 s for the admin lock */

const char *vnpu_reg_strerror(enum vnpu_reg_status st)
{
    switch (st) {
    case VNPU_REG_OK: return "ok";
    case VNPU_REG_MISSING: return "registry file does not exist";
    case VNPU_REG_IO: return "registry file cannot be opened or mapped";
    case VNPU_REG_BAD_MAGIC: return "registry file has a wrong magic";
    case VNPU_REG_BAD_MAJOR: return "registry file has an unknown major version";
    case VNPU_REG_TOO_SMALL: return "registry file is smaller than its layout needs";
    case VNPU_REG_NOT_READY: return "registry file is not initialised";
    case VNPU_REG_BAD_GEOMETRY: return "registry file has an unexpected entry count or size";
    case VNPU_REG_BUSY: return "registry admin lock stayed taken for more than 1 s";
    case VNPU_REG_FULL: return "registry has no free entry";
    }
    return "unknown registry error";
}

static uint8_t *hdr8(unsigned char *b, unsigned off) { return (uint8_t *)(b + off); }
#define H16(b, off) (*(uint16_t *)hdr8((b), (off)))
#define H32(b, off) (*(uint32_t *)hdr8((b), (off)))
#define H64(b, off) (*(uint64_t *)hdr8((b), (off)))

static int lock_byte(int fd, int cmd, short type, uint64_t off)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = (off_t)off;
    fl.l_len = 1;
    return fcntl(fd, cmd, &fl);
}

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Takes an exclusive record lock, retrying every 1 ms up to bound_ns. 0 or -1. */
static int lock_bounded(int fd, uint64_t off, int64_t bound_ns)
{
    int64_t deadline = mono_ns() + bound_ns;
    for (;;) {
        if (lock_byte(fd, F_SETLK, F_WRLCK, off) == 0)
            return 0;
        if (errno != EACCES && errno != EAGAIN && errno != EINTR)
            return -1;
        if (mono_ns() >= deadline)
            return -1;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

enum vnpu_reg_status vnpu_reg_open(const char *path, struct vnpu_reg *r, int *err)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->entry = -1;
    *err = 0;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        *err = errno;
        return errno == ENOENT ? VNPU_REG_MISSING : VNPU_REG_IO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *err = errno;
        close(fd);
        return VNPU_REG_IO;
    }
    if (st.st_size < (off_t)VNPU_REG_HDR_BYTES) {
        close(fd);
        return st.st_size == 0 ? VNPU_REG_NOT_READY : VNPU_REG_TOO_SMALL;
    }
    /* validate the header through a read before mapping the whole file */
    unsigned char h[VNPU_REG_HDR_BYTES];
    if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h) {
        *err = errno;
        close(fd);
        return VNPU_REG_IO;
    }
    enum vnpu_reg_status bad = VNPU_REG_OK;
    if (H64(h, VNPU_RH_MAGIC) != VNPU_REG_MAGIC)
        bad = VNPU_REG_BAD_MAGIC;
    else if (H16(h, VNPU_RH_MAJOR) != VNPU_REG_MAJOR)
        bad = VNPU_REG_BAD_MAJOR;
    else if (H64(h, VNPU_RH_FILE_BYTES) < VNPU_REG_FILE_BYTES || st.st_size < (off_t)VNPU_REG_FILE_BYTES)
        bad = VNPU_REG_TOO_SMALL;
    else if (H32(h, VNPU_RH_ENTRY_COUNT) != VNPU_REG_ENTRY_COUNT
             || H32(h, VNPU_RH_ENTRY_BYTES) != VNPU_REG_ENTRY_BYTES
             || H32(h, VNPU_RH_HEADER_BYTES) != VNPU_REG_HDR_BYTES)
        bad = VNPU_REG_BAD_GEOMETRY;
    if (bad != VNPU_REG_OK) {
        close(fd);
        return bad;
    }
    void *m = mmap(NULL, VNPU_REG_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        *err = errno;
        close(fd);
        return VNPU_REG_IO;
    }
    unsigned char *b = m;
    if (__atomic_load_n((uint32_t *)(b + VNPU_RH_INIT_STATE), __ATOMIC_ACQUIRE) != VNPU_REG_INIT_READY) {
        munmap(m, VNPU_REG_FILE_BYTES);
        close(fd);
        return VNPU_REG_NOT_READY;
    }
    r->fd = fd;
    r->base = b;
    uint32_t win = H32(b, VNPU_RH_ACTIVE_WINDOW_MS), burst = H32(b, VNPU_RH_BURST_US),
             pw = H32(b, VNPU_RH_PRIO_WAIT_MS);
    /* out-of-range tunables fall back to defaults: a bad value must not make waits unbounded */
    r->active_window_ns = (int64_t)(win >= 10 && win <= 10000 ? win : VNPU_REG_DEFAULT_ACTIVE_WINDOW_MS) * 1000000LL;
    r->burst_ns = (int64_t)(burst >= 1000 && burst <= 1000000 ? burst : VNPU_REG_DEFAULT_BURST_US) * 1000LL;
    r->prio_wait_ns = (int64_t)(pw <= 10000 ? pw : VNPU_REG_DEFAULT_PRIO_WAIT_MS) * 1000000LL;
    return VNPU_REG_OK;
}

int vnpu_reg_create(const char *path, int32_t phys_id)
{
    mode_t old = umask(0);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    umask(old);
    if (fd < 0)
        return -errno;
    if (lock_bounded(fd, VNPU_REG_LOCK_INIT, 5000000000LL) != 0) {
        int e = errno ? errno : EBUSY;
        close(fd);
        return -e;
    }
    int rc = 0;
    if (ftruncate(fd, VNPU_REG_FILE_BYTES) != 0) {
        rc = -errno;
        goto out;
    }
    unsigned char *b = mmap(NULL, VNPU_REG_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (b == MAP_FAILED) {
        rc = -errno;
        goto out;
    }
    int ready = H64(b, VNPU_RH_MAGIC) == VNPU_REG_MAGIC && H16(b, VNPU_RH_MAJOR) == VNPU_REG_MAJOR
                && H64(b, VNPU_RH_FILE_BYTES) >= VNPU_REG_FILE_BYTES
                && H32(b, VNPU_RH_ENTRY_COUNT) == VNPU_REG_ENTRY_COUNT
                && H32(b, VNPU_RH_ENTRY_BYTES) == VNPU_REG_ENTRY_BYTES
                && H32(b, VNPU_RH_HEADER_BYTES) == VNPU_REG_HDR_BYTES
                && __atomic_load_n((uint32_t *)(b + VNPU_RH_INIT_STATE), __ATOMIC_ACQUIRE) == VNPU_REG_INIT_READY;
    if (!ready) {
        /* readers check init_state and magic: clear both before the rest */
        __atomic_store_n((uint32_t *)(b + VNPU_RH_INIT_STATE), VNPU_REG_INIT_INITIALISING, __ATOMIC_RELEASE);
        __atomic_store_n((uint64_t *)(b + VNPU_RH_MAGIC), 0ULL, __ATOMIC_RELEASE);
        memset(b + 8, 0, VNPU_REG_FILE_BYTES - 8);
        __atomic_store_n((uint32_t *)(b + VNPU_RH_INIT_STATE), VNPU_REG_INIT_INITIALISING, __ATOMIC_RELEASE);
        H16(b, VNPU_RH_MAJOR) = VNPU_REG_MAJOR;
        H16(b, VNPU_RH_MINOR) = VNPU_REG_MINOR;
        H32(b, VNPU_RH_HEADER_BYTES) = VNPU_REG_HDR_BYTES;
        H64(b, VNPU_RH_FILE_BYTES) = VNPU_REG_FILE_BYTES;
        H32(b, VNPU_RH_ENTRY_COUNT) = VNPU_REG_ENTRY_COUNT;
        H32(b, VNPU_RH_ENTRY_BYTES) = VNPU_REG_ENTRY_BYTES;
        *(int32_t *)(b + VNPU_RH_PHYS_ID) = phys_id;
        uint64_t epoch = 0;
        while (epoch == 0)
            if (getrandom(&epoch, sizeof epoch, 0) != (ssize_t)sizeof epoch)
                epoch = (uint64_t)mono_ns() ^ ((uint64_t)getpid() << 32);
        H64(b, VNPU_RH_EPOCH) = epoch;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        H64(b, VNPU_RH_CREATED_NS) = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
        H32(b, VNPU_RH_ACTIVE_WINDOW_MS) = VNPU_REG_DEFAULT_ACTIVE_WINDOW_MS;
        H32(b, VNPU_RH_BURST_US) = VNPU_REG_DEFAULT_BURST_US;
        H32(b, VNPU_RH_PRIO_WAIT_MS) = VNPU_REG_DEFAULT_PRIO_WAIT_MS;
        H32(b, VNPU_RH_CREATOR) = VNPU_REG_CREATOR_LIMITER;
        __atomic_store_n((uint64_t *)(b + VNPU_RH_MAGIC), VNPU_REG_MAGIC, __ATOMIC_RELEASE);
        __atomic_store_n((uint32_t *)(b + VNPU_RH_INIT_STATE), VNPU_REG_INIT_READY, __ATOMIC_RELEASE);
    }
    munmap(b, VNPU_REG_FILE_BYTES);
out:
    lock_byte(fd, F_SETLK, F_UNLCK, VNPU_REG_LOCK_INIT);
    close(fd);
    return rc;
}

int vnpu_reg_entry_live(const struct vnpu_reg *r, int i)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = (off_t)VNPU_REG_LOCK_ENTRY(i);
    fl.l_len = 1;
    if (fcntl(r->fd, F_GETLK, &fl) != 0)
        return 1; /* cannot tell: count it, which only ever makes us yield */
    return fl.l_type != F_UNLCK;
}

static uint32_t *e32(const struct vnpu_reg *r, int i, unsigned off) { return vnpu_reg_field(r, i, off); }
static uint64_t *e64(const struct vnpu_reg *r, int i, unsigned off) { return vnpu_reg_field(r, i, off); }

static void fill_member(struct vnpu_reg *r, int i, const struct vnpu_reg_member *m)
{
    __atomic_store_n(e32(r, i, VNPU_RE_WEIGHT), m->weight == 0 ? 1u : m->weight, __ATOMIC_RELAXED);
    __atomic_store_n(e32(r, i, VNPU_RE_CAP_PCT), m->cap_pct > 100 ? 100u : m->cap_pct, __ATOMIC_RELAXED);
    __atomic_store_n((int32_t *)vnpu_reg_field(r, i, VNPU_RE_PRIORITY_CLASS), m->prio, __ATOMIC_RELAXED);
    memcpy(vnpu_reg_field(r, i, VNPU_RE_NAME), m->name, VNPU_REG_NAME_BYTES);
}

enum vnpu_reg_status vnpu_reg_join(struct vnpu_reg *r, const struct vnpu_reg_member *m)
{
    if (lock_bounded(r->fd, VNPU_REG_LOCK_ADMIN, ADMIN_WAIT_NS) != 0)
        return VNPU_REG_BUSY;
    enum vnpu_reg_status st = VNPU_REG_FULL;
    int found = -1;
    for (int i = 0; i < (int)VNPU_REG_ENTRY_COUNT && found < 0; i++)
        if (__atomic_load_n(e32(r, i, VNPU_RE_STATE), __ATOMIC_ACQUIRE) == VNPU_REG_ENTRY_ACTIVE
            && __atomic_load_n(e64(r, i, VNPU_RE_KEY), __ATOMIC_RELAXED) == m->key)
            found = i;
    if (found < 0) {
        /* a free entry, else an unpinned one nobody holds (its container is gone) */
        for (int pass = 0; pass < 2 && found < 0; pass++)
            for (int i = 0; i < (int)VNPU_REG_ENTRY_COUNT && found < 0; i++) {
                uint32_t s = __atomic_load_n(e32(r, i, VNPU_RE_STATE), __ATOMIC_ACQUIRE);
                if (pass == 0 && s == VNPU_REG_ENTRY_FREE)
                    found = i;
                else if (pass == 1 && s != VNPU_REG_ENTRY_FREE
                         && !(__atomic_load_n(e32(r, i, VNPU_RE_FLAGS), __ATOMIC_RELAXED) & VNPU_REG_ENTRYF_PINNED)
                         && !vnpu_reg_entry_live(r, i))
                    found = i;
            }
        if (found >= 0) {
            int i = found;
            __atomic_store_n(e32(r, i, VNPU_RE_STATE), VNPU_REG_ENTRY_CLAIMING, __ATOMIC_RELEASE);
            /* fresh entry: no debt, no statistics from a previous owner */
            memset(vnpu_reg_field(r, i, 64), 0, VNPU_REG_ENTRY_BYTES - 64);
            __atomic_store_n(e32(r, i, VNPU_RE_FLAGS), 0u, __ATOMIC_RELAXED);
            __atomic_store_n(e64(r, i, VNPU_RE_KEY), m->key, __ATOMIC_RELAXED);
            __atomic_add_fetch(e32(r, i, VNPU_RE_GENERATION), 1u, __ATOMIC_RELAXED);
        }
    }
    if (found >= 0) {
        /* shared lock: every process of the container holds one; waits out a probing Java reader */
        int locked = -1;
        for (int tries = 0; tries < 100 && locked != 0; tries++) {
            locked = lock_byte(r->fd, F_SETLK, F_RDLCK, VNPU_REG_LOCK_ENTRY(found));
            if (locked != 0) {
                struct timespec ts = {0, 1000000};
                nanosleep(&ts, NULL);
            }
        }
        if (locked != 0) {
            st = VNPU_REG_BUSY;
        } else {
            fill_member(r, found, m);
            __atomic_store_n(e32(r, found, VNPU_RE_STATE), VNPU_REG_ENTRY_ACTIVE, __ATOMIC_RELEASE);
            r->entry = found;
            st = VNPU_REG_OK;
        }
    }
    lock_byte(r->fd, F_SETLK, F_UNLCK, VNPU_REG_LOCK_ADMIN);
    return st;
}

int vnpu_reg_scan(const struct vnpu_reg *r, int64_t now, struct vnpu_share_input *in)
{
    for (int i = 0; i < (int)VNPU_REG_ENTRY_COUNT; i++) {
        struct vnpu_share_input *e = &in[i];
        e->weight = __atomic_load_n(e32(r, i, VNPU_RE_WEIGHT), __ATOMIC_RELAXED);
        e->cap_pct = __atomic_load_n(e32(r, i, VNPU_RE_CAP_PCT), __ATOMIC_RELAXED);
        e->prio = __atomic_load_n((int32_t *)vnpu_reg_field(r, i, VNPU_RE_PRIORITY_CLASS), __ATOMIC_RELAXED);
        e->busy = 0;
        if (i == r->entry) {
            e->busy = 1;
            continue;
        }
        if (__atomic_load_n(e32(r, i, VNPU_RE_STATE), __ATOMIC_ACQUIRE) != VNPU_REG_ENTRY_ACTIVE)
            continue;
        int64_t last = (int64_t)__atomic_load_n(e64(r, i, VNPU_RE_LAST_LAUNCH_NS), __ATOMIC_RELAXED);
        if (last == 0 || now - last > r->active_window_ns)
            continue;
        e->busy = vnpu_reg_entry_live(r, i); /* a killed container stops counting at once */
    }
    return (int)VNPU_REG_ENTRY_COUNT;
}

void vnpu_reg_close(struct vnpu_reg *r)
{
    if (r->base)
        munmap(r->base, VNPU_REG_FILE_BYTES);
    if (r->fd >= 0)
        close(r->fd);
    r->base = NULL;
    r->fd = -1;
    r->entry = -1;
}
