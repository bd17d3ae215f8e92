#include "registry_agent.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "vnpu_registry.h"

static int lock_byte(int fd, short type, uint64_t off)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = (off_t)off;
    fl.l_len = 1;
    for (int i = 0; i < 5000; i++) {
        if (fcntl(fd, F_SETLK, &fl) == 0)
            return 0;
        if (errno != EACCES && errno != EAGAIN)
            return -1;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    errno = EBUSY;
    return -1;
}

static int put(int fd, uint64_t off, const void *v, size_t n)
{
    return pwrite(fd, v, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}
#define PUT(fd, off, T, val) ({ T v_ = (val); put((fd), (off), &v_, sizeof v_); })

static int get(int fd, uint64_t off, void *v, size_t n)
{
    return pread(fd, v, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

static int header_ok(int fd)
{
    uint64_t magic = 0, fb = 0;
    uint16_t major = 0;
    uint32_t cnt = 0, eb = 0, hb = 0, st = 0;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || sb.st_size < (off_t)VNPU_REG_FILE_BYTES)
        return 0;
    get(fd, VNPU_RH_MAGIC, &magic, 8);
    get(fd, VNPU_RH_MAJOR, &major, 2);
    get(fd, VNPU_RH_FILE_BYTES, &fb, 8);
    get(fd, VNPU_RH_ENTRY_COUNT, &cnt, 4);
    get(fd, VNPU_RH_ENTRY_BYTES, &eb, 4);
    get(fd, VNPU_RH_HEADER_BYTES, &hb, 4);
    get(fd, VNPU_RH_INIT_STATE, &st, 4);
    return magic == VNPU_REG_MAGIC && major == VNPU_REG_MAJOR && fb >= VNPU_REG_FILE_BYTES && cnt == VNPU_REG_ENTRY_COUNT
           && eb == VNPU_REG_ENTRY_BYTES && hb == VNPU_REG_HDR_BYTES && st == VNPU_REG_INIT_READY;
}

int vnpu_agent_create(const char *path, int32_t phys_id)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return -errno;
    (void)fchmod(fd, 0644); /* only the agent writes it (docs/compute-registry.md) */
    if (lock_byte(fd, F_WRLCK, VNPU_REG_LOCK_INIT) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    int rc = 0;
    if (!header_ok(fd)) {
        static const unsigned char zero[VNPU_REG_FILE_BYTES];
        /* readers check magic and init_state: clearing the whole file first hides it from them */
        if (put(fd, 0, zero, sizeof zero) != 0) {
            rc = -errno;
            goto out;
        }
        uint64_t epoch = 0;
        while (epoch == 0)
            if (getrandom(&epoch, sizeof epoch, 0) != (ssize_t)sizeof epoch)
                epoch = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        if (PUT(fd, VNPU_RH_INIT_STATE, uint32_t, VNPU_REG_INIT_INITIALISING) || PUT(fd, VNPU_RH_MAJOR, uint16_t, VNPU_REG_MAJOR)
            || PUT(fd, VNPU_RH_MINOR, uint16_t, VNPU_REG_MINOR) || PUT(fd, VNPU_RH_HEADER_BYTES, uint32_t, VNPU_REG_HDR_BYTES)
            || PUT(fd, VNPU_RH_FILE_BYTES, uint64_t, VNPU_REG_FILE_BYTES)
            || PUT(fd, VNPU_RH_ENTRY_COUNT, uint32_t, VNPU_REG_ENTRY_COUNT)
            || PUT(fd, VNPU_RH_ENTRY_BYTES, uint32_t, VNPU_REG_ENTRY_BYTES) || PUT(fd, VNPU_RH_PHYS_ID, int32_t, phys_id)
            || PUT(fd, VNPU_RH_EPOCH, uint64_t, epoch)
            || PUT(fd, VNPU_RH_CREATED_NS, uint64_t, (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec)
            || PUT(fd, VNPU_RH_ACTIVE_WINDOW_MS, uint32_t, VNPU_REG_DEFAULT_ACTIVE_WINDOW_MS)
            || PUT(fd, VNPU_RH_BURST_US, uint32_t, VNPU_REG_DEFAULT_BURST_US)
            || PUT(fd, VNPU_RH_PRIO_WAIT_MS, uint32_t, VNPU_REG_DEFAULT_PRIO_WAIT_MS)
            || PUT(fd, VNPU_RH_CREATOR, uint32_t, VNPU_REG_CREATOR_TOOL) || PUT(fd, VNPU_RH_MAGIC, uint64_t, VNPU_REG_MAGIC)
            || PUT(fd, VNPU_RH_INIT_STATE, uint32_t, VNPU_REG_INIT_READY))
            rc = -errno;
    }
out:
    lock_byte(fd, F_UNLCK, VNPU_REG_LOCK_INIT);
    close(fd);
    return rc;
}

static uint64_t entry_off(int i) { return VNPU_REG_ENTRIES_OFF + (uint64_t)i * VNPU_REG_ENTRY_BYTES; }

static void link_path(char *buf, size_t len, const char *path, int32_t phys, uint64_t key)
{
    const char *slash = strrchr(path, '/');
    int dl = slash ? (int)(slash - path) : 1;
    snprintf(buf, len, "%.*s/" VNPU_REG_ACTIVITY_FMT, dl, slash ? path : ".", (int)phys, (unsigned long long)key);
}

static int seq_bump(int fd)
{
    uint32_t s = 0;
    if (get(fd, VNPU_RH_WRITE_SEQ, &s, 4) != 0)
        return -1;
    s++;
    return put(fd, VNPU_RH_WRITE_SEQ, &s, 4);
}

int vnpu_agent_register(const char *path, const struct vnpu_agent_member *m)
{
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -errno;
    if (lock_byte(fd, F_WRLCK, VNPU_REG_LOCK_ADMIN) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    int found = -1, free_at = -1;
    for (int i = 0; i < (int)VNPU_REG_ENTRY_COUNT; i++) {
        uint32_t st = 0;
        uint64_t key = 0;
        get(fd, entry_off(i) + VNPU_RE_STATE, &st, 4);
        get(fd, entry_off(i) + VNPU_RE_KEY, &key, 8);
        if (st == VNPU_REG_ENTRY_ACTIVE && key == m->key && found < 0)
            found = i;
        if (st == VNPU_REG_ENTRY_FREE && free_at < 0)
            free_at = i;
    }
    int i = found >= 0 ? found : free_at;
    int rc = i;
    int32_t phys = -1;
    get(fd, VNPU_RH_PHYS_ID, &phys, 4);
    if (i < 0) {
        rc = -ENOSPC;
    } else {
        uint64_t o = entry_off(i);
        uint32_t gen = 0;
        get(fd, o + VNPU_RE_GENERATION, &gen, 4);
        char name[VNPU_REG_NAME_BYTES];
        memset(name, 0, sizeof name);
        snprintf(name, sizeof name, "%s", m->name ? m->name : "");
        if (seq_bump(fd) || PUT(fd, o + VNPU_RE_KEY, uint64_t, m->key) || PUT(fd, o + VNPU_RE_WEIGHT, uint32_t, m->weight)
            || PUT(fd, o + VNPU_RE_CAP_PCT, uint32_t, m->cap_pct) || PUT(fd, o + VNPU_RE_PRIORITY_CLASS, int32_t, m->prio)
            || PUT(fd, o + VNPU_RE_GENERATION, uint32_t, gen + 1) || put(fd, o + VNPU_RE_NAME, name, sizeof name)
            || PUT(fd, o + VNPU_RE_DEVICE_INDEX, uint32_t, m->dev_index)
            || PUT(fd, o + VNPU_RE_STATE, uint32_t, VNPU_REG_ENTRY_ACTIVE) || seq_bump(fd))
            rc = -errno;
        if (rc >= 0 && m->region) {
            char lp[600];
            link_path(lp, sizeof lp, path, phys, m->key);
            unlink(lp);
            if (link(m->region, lp) != 0)
                rc = -errno;
        }
    }
    lock_byte(fd, F_UNLCK, VNPU_REG_LOCK_ADMIN);
    close(fd);
    return rc;
}

int vnpu_agent_unregister(const char *path, uint64_t key)
{
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -errno;
    if (lock_byte(fd, F_WRLCK, VNPU_REG_LOCK_ADMIN) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    int rc = 0;
    int32_t phys = -1;
    get(fd, VNPU_RH_PHYS_ID, &phys, 4);
    for (int i = 0; i < (int)VNPU_REG_ENTRY_COUNT; i++) {
        uint32_t st = 0;
        uint64_t k = 0;
        get(fd, entry_off(i) + VNPU_RE_STATE, &st, 4);
        get(fd, entry_off(i) + VNPU_RE_KEY, &k, 8);
        if (st != VNPU_REG_ENTRY_ACTIVE || k != key)
            continue;
        seq_bump(fd);
        PUT(fd, entry_off(i) + VNPU_RE_STATE, uint32_t, VNPU_REG_ENTRY_FREE);
        seq_bump(fd);
        rc = 1;
    }
    char lp[600];
    link_path(lp, sizeof lp, path, phys, key);
    unlink(lp);
    lock_byte(fd, F_UNLCK, VNPU_REG_LOCK_ADMIN);
    close(fd);
    return rc;
}
