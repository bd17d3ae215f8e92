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

/* alive: the owner still holds its record lock (F_GETLK sees a conflicting lock). */
static void print_proc_usage(const char *root, long want_pid, long want_dev) {
    char dir[700];
    snprintf(dir, sizeof(dir), "%s/procs", root);
    DIR *dp = opendir(dir);
    if (dp == NULL) return;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char file[1400];
        snprintf(file, sizeof(file), "%s/%s", dir, e->d_name);
        int fd = open(file, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        struct vnpu_sim_proc_usage u;
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
        int ok = pread(fd, &u, sizeof(u), 0) == (ssize_t)sizeof(u) && u.magic == VNPU_SIM_PROC_USAGE_MAGIC &&
                 !u.reaped && fcntl(fd, F_GETLK, &fl) == 0;
        close(fd);
        if (!ok || (want_pid >= 0 && u.pid != want_pid)) continue;
        for (int d = 0; d < VNPU_SIM_MAX_DEVICES; d++) {
            if (u.used[d] == 0 || (want_dev >= 0 && d != want_dev)) continue;
            printf("hbm pid=%d logic=%d used=%" PRIu64 " alive=%d\n", u.pid, d, u.used[d], fl.l_type != F_UNLCK);
        }
    }
    closedir(dp);
}

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Device time of one process's ring inside [t1, t2]; -1 when the ring lost tasks that overlap it. */
static int ring_window(const struct vnpu_sim_task_ring *q, uint64_t t1, uint64_t t2, uint64_t *busy, uint64_t *tasks) {
    uint64_t next = __atomic_load_n(&q->next, __ATOMIC_ACQUIRE);
    uint64_t first = next > VNPU_SIM_TASK_RING_SLOTS ? next - VNPU_SIM_TASK_RING_SLOTS : 0;
    uint64_t sum = 0, n = 0, oldest_start = UINT64_MAX;
    for (uint64_t i = first; i < next; i++) {
        const struct vnpu_sim_task_slot *sl = &q->slot[i % VNPU_SIM_TASK_RING_SLOTS];
        uint64_t a = 0, b = 0, seq;
        int ok = 0;
        for (int tries = 0; tries < 1000 && !ok; tries++) {
            seq = __atomic_load_n(&sl->seq, __ATOMIC_ACQUIRE);
            a = __atomic_load_n(&sl->start_ns, __ATOMIC_ACQUIRE);
            b = __atomic_load_n(&sl->end_ns, __ATOMIC_ACQUIRE);
            ok = seq == 2 * i + 2 && __atomic_load_n(&sl->seq, __ATOMIC_RELAXED) == seq;
            if (!ok && seq > 2 * i + 2) return -1; /* overwritten while reading: the ring wrapped */
        }
        if (!ok) continue; /* still being written: a task scheduled just now, after t2 */
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
    uint64_t first = next > VNPU_SIM_TASK_RING_SLOTS ? next - VNPU_SIM_TASK_RING_SLOTS : 0;
    for (uint64_t i = first; i < next; i++) {
        const struct vnpu_sim_task_slot *sl = &q->slot[i % VNPU_SIM_TASK_RING_SLOTS];
        uint64_t seq = __atomic_load_n(&sl->seq, __ATOMIC_ACQUIRE);
        uint64_t a = __atomic_load_n(&sl->start_ns, __ATOMIC_ACQUIRE), b = __atomic_load_n(&sl->end_ns, __ATOMIC_ACQUIRE);
        if (seq != 2 * i + 2 || __atomic_load_n(&sl->seq, __ATOMIC_RELAXED) != seq) continue;
        printf("task pid=%d logic=%d index=%" PRIu64 " start_ns=%" PRIu64 " end_ns=%" PRIu64 "\n", q->pid, q->logic_id, i,
               a, b);
    }
}

static int print_windows(const char *root, uint64_t t1, uint64_t t2, long want_pid, long want_dev, int tasks) {
    char dir[700];
    snprintf(dir, sizeof(dir), "%s/tasks", root);
    DIR *dp = opendir(dir);
    if (dp == NULL) {
        fprintf(stderr, "cann-sim-busy: %s: no task rings (run the processes with VNPU_SIM_TASK_RING=1)\n", dir);
        return 1;
    }
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char file[1400];
        snprintf(file, sizeof(file), "%s/%s", dir, e->d_name);
        int fd = open(file, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        void *p = mmap(NULL, sizeof(struct vnpu_sim_task_ring), PROT_READ, MAP_SHARED, fd, 0);
        close(fd);
        if (p == MAP_FAILED) continue;
        const struct vnpu_sim_task_ring *q = p;
        if (q->magic == VNPU_SIM_TASK_RING_MAGIC && (want_pid < 0 || q->pid == want_pid)
            && (want_dev < 0 || q->logic_id == want_dev)) {
            uint64_t b = 0, n = 0;
            if (tasks) {
                print_tasks(q);
            } else if (ring_window(q, t1, t2, &b, &n) == 0) {
                printf("window pid=%d logic=%d busy_ns=%" PRIu64 " tasks=%" PRIu64 " t1=%" PRIu64 " t2=%" PRIu64 "\n",
                       q->pid, q->logic_id, b, n, t1, t2);
            } else {
                printf("window pid=%d logic=%d overflow: its ring no longer covers t1=%" PRIu64 "\n", q->pid,
                       q->logic_id, t1);
                rc = 1;
            }
        }
        munmap(p, sizeof(struct vnpu_sim_task_ring));
    }
    closedir(dp);
    return rc;
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
    if (window || tasks) return print_windows(root, t1, t2, want_pid, want_dev, tasks);
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
    print_proc_usage(root, want_pid, want_dev);
    snprintf(path, sizeof(path), "%s/busy", root);
    DIR *dp = opendir(path);
    if (dp == NULL) return 0;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char file[1400];
        struct vnpu_sim_busy_record r;
        snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
        if (read_exact(file, &r, sizeof(r)) != 0 || r.magic != VNPU_SIM_BUSY_MAGIC) continue;
        if ((want_pid >= 0 && r.pid != want_pid) || (want_dev >= 0 && r.logic_id != want_dev)) continue;
        printf("busy pid=%d logic=%d busy_ns=%" PRIu64 " tasks=%" PRIu64 " first_start_ns=%" PRIu64
               " last_end_ns=%" PRIu64 "\n",
               r.pid, r.logic_id, r.busy_ns, r.tasks, r.first_start_ns, r.last_end_ns);
    }
    closedir(dp);
    return 0;
}
