/*
 * cann-sim-busy: prints the simulated host's ground truth (device-time.bin, busy/<pid>-<dev>,
 * hbm.bin) as machine-readable lines, for tests of the compute and memory limiters.
 *   device logic=D busy_ns= tasks= busy_until_ns= hbm_used=
 *   busy pid=P logic=D busy_ns= tasks= first_start_ns= last_end_ns=
 *   hbm pid=P logic=D used= alive=0|1     (device memory each process holds, procs/ records)
 * Options: --pid P and --device D restrict the "busy" lines; VNPU_SIM_ROOT selects the host.
 *   --now            prints CLOCK_MONOTONIC ns (the simulator's clock), nothing else
 *   --window T1 T2   (processes run with VNPU_SIM_TASK_RING=1) device time each process used inside
 *                    [T1, T2] (CLOCK_MONOTONIC ns), exact whatever it still had queued:
 *                    window pid=P logic=D busy_ns= tasks= t1= t2=
 *                    exit 1 when a process's ring no longer covers T1 ("window ... overflow")
 *   --tasks          (with --pid) the tasks still in the process's ring, oldest first:
 *                    task pid=P logic=D index= start_ns= end_ns=
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cann_sim/cann_sim.h"
#include "vnpu_sim_host.h"

static int read_exact(const char *path, void *buf, size_t len) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = pread(fd, buf, len, 0);
    close(fd);
    return n == (ssize_t)len ? 0 : -1;
}

/* What the walks of the host's record directories print: the --pid, --device and --window choices. */
struct filter {
    long want_pid, want_dev;
    uint64_t t1, t2;
    int tasks;
    int rc; /* 1 once a window could not be measured */
};

/* Calls fn(file, f) for every entry of root/sub not starting with '.'; -1 when it cannot be listed. */
static int for_each_record(const char *root, const char *sub, void (*fn)(const char *file, struct filter *f),
                           struct filter *f) {
    char dir[700];
    snprintf(dir, sizeof(dir), "%s/%s", root, sub);
    DIR *dp = opendir(dir);
    if (dp == NULL) return -1;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char file[1400];
        snprintf(file, sizeof(file), "%s/%s", dir, e->d_name);
        fn(file, f);
    }
    closedir(dp);
    return 0;
}

/* alive: the owner still holds its record lock (F_GETLK sees a conflicting lock). */
static void print_proc_usage(const char *file, struct filter *f) {
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct vnpu_sim_proc_usage u;
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    int ok = pread(fd, &u, sizeof(u), 0) == (ssize_t)sizeof(u) && u.magic == VNPU_SIM_PROC_USAGE_MAGIC && !u.reaped &&
             fcntl(fd, F_GETLK, &fl) == 0;
    close(fd);
    if (!ok || (f->want_pid >= 0 && u.pid != f->want_pid)) return;
    for (int d = 0; d < VNPU_SIM_MAX_DEVICES; d++) {
        if (u.used[d] == 0 || (f->want_dev >= 0 && d != f->want_dev)) continue;
        printf("hbm pid=%d logic=%d used=%" PRIu64 " alive=%d\n", u.pid, d, u.used[d], fl.l_type != F_UNLCK);
    }
}

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * Task i of a process's ring as its writer left it (seqlock: even sequence 2i+2 before and after):
 * 1 and its start and end, 0 while it is still being written, -1 once it was overwritten (the
 * ring wrapped).
 */
static int read_slot(const struct vnpu_sim_task_ring *q, uint64_t i, uint64_t *start, uint64_t *end) {
    const struct vnpu_sim_task_slot *sl = &q->slot[i % VNPU_SIM_TASK_RING_SLOTS];
    for (int tries = 0; tries < 1000; tries++) {
        uint64_t seq = __atomic_load_n(&sl->seq, __ATOMIC_ACQUIRE);
        uint64_t a = __atomic_load_n(&sl->start_ns, __ATOMIC_ACQUIRE);
        uint64_t b = __atomic_load_n(&sl->end_ns, __ATOMIC_ACQUIRE);
        if (seq == 2 * i + 2 && __atomic_load_n(&sl->seq, __ATOMIC_RELAXED) == seq) {
            *start = a;
            *end = b;
            return 1;
        }
        if (seq > 2 * i + 2) return -1;
    }
    return 0;
}

/* The index of the oldest task a ring still holds. */
static uint64_t ring_first(uint64_t next) {
    return next > VNPU_SIM_TASK_RING_SLOTS ? next - VNPU_SIM_TASK_RING_SLOTS : 0;
}

/* Device time of one process's ring inside [t1, t2]; -1 when the ring lost tasks that overlap it. */
static int ring_window(const struct vnpu_sim_task_ring *q, uint64_t t1, uint64_t t2, uint64_t *busy, uint64_t *tasks) {
    uint64_t next = __atomic_load_n(&q->next, __ATOMIC_ACQUIRE);
    uint64_t first = ring_first(next);
    uint64_t sum = 0, n = 0, oldest_start = UINT64_MAX;
    for (uint64_t i = first; i < next; i++) {
        uint64_t a = 0, b = 0;
        int got = read_slot(q, i, &a, &b);
        if (got < 0) return -1; /* overwritten while reading: the ring wrapped */
        if (got == 0) continue; /* still being written: a task scheduled just now, after t2 */
        if (a < oldest_start) oldest_start = a;
        uint64_t lo = a > t1 ? a : t1, hi = b < t2 ? b : t2;
        if (hi > lo) {
            sum += hi - lo;
            n++;
        }
    }
    if (first > 0 && oldest_start > t1) return -1;
    *busy = sum;
    *tasks = n;
    return 0;
}

static void print_tasks(const struct vnpu_sim_task_ring *q) {
    uint64_t next = __atomic_load_n(&q->next, __ATOMIC_ACQUIRE);
    for (uint64_t i = ring_first(next); i < next; i++) {
        uint64_t a, b;
        if (read_slot(q, i, &a, &b) != 1) continue;
        printf("task pid=%d logic=%d index=%" PRIu64 " start_ns=%" PRIu64 " end_ns=%" PRIu64 "\n", q->pid, q->logic_id, i,
               a, b);
    }
}

static void print_window(const char *file, struct filter *f) {
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    void *p = mmap(NULL, sizeof(struct vnpu_sim_task_ring), PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return;
    const struct vnpu_sim_task_ring *q = p;
    if (q->magic == VNPU_SIM_TASK_RING_MAGIC && (f->want_pid < 0 || q->pid == f->want_pid) &&
        (f->want_dev < 0 || q->logic_id == f->want_dev)) {
        uint64_t b = 0, n = 0;
        if (f->tasks) {
            print_tasks(q);
        } else if (ring_window(q, f->t1, f->t2, &b, &n) == 0) {
            printf("window pid=%d logic=%d busy_ns=%" PRIu64 " tasks=%" PRIu64 " t1=%" PRIu64 " t2=%" PRIu64 "\n", q->pid,
                   q->logic_id, b, n, f->t1, f->t2);
        } else {
            printf("window pid=%d logic=%d overflow: its ring no longer covers t1=%" PRIu64 "\n", q->pid, q->logic_id,
                   f->t1);
            f->rc = 1;
        }
    }
    munmap(p, sizeof(struct vnpu_sim_task_ring));
}

static void print_busy(const char *file, struct filter *f) {
    struct vnpu_sim_busy_record r;
    if (read_exact(file, &r, sizeof(r)) != 0 || r.magic != VNPU_SIM_BUSY_MAGIC) return;
    if ((f->want_pid >= 0 && r.pid != f->want_pid) || (f->want_dev >= 0 && r.logic_id != f->want_dev)) return;
    printf("busy pid=%d logic=%d busy_ns=%" PRIu64 " tasks=%" PRIu64 " first_start_ns=%" PRIu64 " last_end_ns=%" PRIu64
           "\n",
           r.pid, r.logic_id, r.busy_ns, r.tasks, r.first_start_ns, r.last_end_ns);
}

int main(int argc, char **argv) {
    long want_pid = -1, want_dev = -1;
    int window = 0, tasks = 0;
    uint64_t t1 = 0, t2 = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--now") == 0) {
            printf("%" PRIu64 "\n", mono_ns());
            return 0;
        } else if (strcmp(argv[i], "--tasks") == 0) {
            tasks = 1;
        } else if (strcmp(argv[i], "--window") == 0 && i + 2 < argc) {
            window = 1;
            t1 = strtoull(argv[++i], NULL, 10);
            t2 = strtoull(argv[++i], NULL, 10);
            if (t2 <= t1) {
                fprintf(stderr, "cann-sim-busy: --window %" PRIu64 " %" PRIu64 ": T2 must be after T1\n", t1, t2);
                return 2;
            }
        } else if (strcmp(argv[i], "--pid") == 0 && i + 1 < argc) want_pid = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) want_dev = strtol(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "cann-sim-busy: unknown argument '%s'\nusage: cann-sim-busy [--pid P] [--device D] [--now | --window T1 T2 | --tasks]\n",
                    argv[i]);
            return 2;
        }
    }
    char root[512];
    int rc = vnpu_sim_host_root(root, sizeof(root));
    if (rc != 0) {
        fprintf(stderr, "cann-sim-busy: no simulated host root (VNPU_SIM_ROOT): error %d\n", rc);
        return 1;
    }
    struct filter f = {.want_pid = want_pid, .want_dev = want_dev, .t1 = t1, .t2 = t2, .tasks = tasks, .rc = 0};
    if (window || tasks) {
        if (for_each_record(root, "tasks", print_window, &f) != 0) {
            fprintf(stderr, "cann-sim-busy: %s/tasks: no task rings (run the processes with VNPU_SIM_TASK_RING=1)\n",
                    root);
            return 1;
        }
        return f.rc;
    }
    char path[1024];
    struct vnpu_sim_device_time dt[VNPU_SIM_MAX_DEVICES];
    uint64_t hbm[VNPU_SIM_MAX_DEVICES];
    snprintf(path, sizeof(path), "%s/device-time.bin", root);
    int have_dt = read_exact(path, dt, sizeof(dt)) == 0;
    snprintf(path, sizeof(path), "%s/hbm.bin", root);
    int have_hbm = read_exact(path, hbm, sizeof(hbm)) == 0;
    struct vnpu_sim_device_info devs[VNPU_SIM_MAX_DEVICES];
    int n = vnpu_sim_host_devices(devs, VNPU_SIM_MAX_DEVICES);
    for (int d = 0; d < n; d++) {
        if (want_dev >= 0 && d != want_dev) continue;
        printf("device logic=%d busy_ns=%" PRIu64 " tasks=%" PRIu64 " busy_until_ns=%" PRIu64 " hbm_used=%" PRIu64
               " hbm_total=%" PRIu64 "\n",
               d, have_dt ? dt[d].busy_ns : 0, have_dt ? dt[d].tasks : 0, have_dt ? dt[d].busy_until_ns : 0,
               have_hbm ? hbm[d] : 0, devs[d].hbm_bytes);
    }
    for_each_record(root, "procs", print_proc_usage, &f);
    for_each_record(root, "busy", print_busy, &f);
    return 0;
}
