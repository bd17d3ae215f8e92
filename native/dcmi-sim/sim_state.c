#include "sim_state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dcmi_interface_api.h"

/* Spec section 2: AI Core / AI CPU / memory per template and chip (a chip accepts only its own). */
static const struct sim_template TEMPLATES[] = {
    {"310P", 0, "vir01", 1, 1, 1, 8, 0},
    {"310P", 0, "vir02", 2, 2, 1, 4, 0},
    {"310P", 0, "vir02_1c", 2, 1, 1, 4, 0},
    {"310P", 0, "vir04", 4, 4, 1, 2, 0},
    {"310P", 0, "vir04_3c", 4, 3, 1, 2, 0},
    {"310P", 0, "vir04_3c_ndvpp", 4, 3, 1, 2, 0},
    {"310P", 0, "vir04_4c_dvpp", 4, 4, 1, 2, 0},
    {"910Pro", 0, "vir02", 2, 1, 2, 30, 0},
    {"910Pro", 0, "vir04", 4, 1, 4, 30, 0},
    {"910Pro", 0, "vir08", 8, 3, 8, 30, 0},
    {"910Pro", 0, "vir16", 16, 7, 16, 30, 0},
    {"910B3", 0, "vir05_1c_16g", 5, 1, 0, 1, 16384},
    {"910B3", 0, "vir10_3c_32g", 10, 3, 0, 1, 32768},
    {"910B4", 0, "vir05_1c_8g", 5, 1, 0, 1, 8192},
    {"910B4", 0, "vir10_3c_16g", 10, 3, 0, 1, 16384},
    {"910B4", 0, "vir10_3c_16g_nm", 10, 3, 0, 1, 16384},
    {"910B4", 0, "vir10_4c_16g_m", 10, 4, 0, 1, 16384},
    /* A3 (910C), one entry per die: training SKU "Ascend910A3-24" (24 AI Cores) and inference SKU
     * "Ascend910A3-20" (20 AI Cores, the templates HAMi ships for 910C). */
    {"Ascend910", 24, "vir06_1c_16g", 6, 1, 0, 1, 16384},
    {"Ascend910", 24, "vir12_3c_32g", 12, 3, 0, 1, 32768},
    {"Ascend910", 20, "vir05_1c_16g", 5, 1, 0, 1, 16384},
    {"Ascend910", 20, "vir10_3c_32g", 10, 3, 0, 1, 32768},
};

static uint64_t host_signature(const struct sim_host *host) {
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    const unsigned char *p = (const unsigned char *)host->devs;
    for (size_t i = 0; i < sizeof(host->devs[0]) * (size_t)host->n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

int sim_host_load(struct sim_host *host) {
    memset(host, 0, sizeof(*host));
    host->n = vnpu_sim_host_devices(host->devs, VNPU_SIM_MAX_DEVICES);
    if (host->n <= 0) return DCMI_ERR_INNER_ERR;
    if (host->n > VNPU_SIM_MAX_DEVICES) host->n = VNPU_SIM_MAX_DEVICES;
    if (vnpu_sim_host_root(host->root, sizeof(host->root)) != 0) return DCMI_ERR_FILE_OPERATE_FAIL;
    return DCMI_OK;
}

int sim_find(const struct sim_host *host, int card_id, int device_id) {
    for (int i = 0; i < host->n; i++) {
        if (host->devs[i].card_id == card_id && host->devs[i].device_id == device_id) return i;
    }
    return -1;
}

static int lock_bounded(int fd) {
    struct timespec pause = {0, 1000000}; /* 1 ms */
    for (int waited = 0; waited < SIM_LOCK_TIMEOUT_MS; waited++) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) return 0;
        if (errno != EWOULDBLOCK && errno != EINTR) return DCMI_ERR_FILE_OPERATE_FAIL;
        nanosleep(&pause, NULL);
    }
    return DCMI_ERR_TIME_OUT;
}

static int open_shared(const char *root, const char *name, int flags) {
    char path[600];
    snprintf(path, sizeof(path), "%s/%s", root, name);
    int fd = open(path, flags | O_CLOEXEC, 0666);
    if (fd >= 0 && (flags & O_CREAT) != 0) {
        struct stat st;
        /* every user of the simulated host may change it, like root on a real node */
        if (fstat(fd, &st) == 0 && (st.st_mode & 0777) != 0666 && st.st_uid == geteuid()) fchmod(fd, 0666);
    }
    return fd;
}

static int with_state(const struct sim_host *host, int (*fn)(struct sim_state *st, void *arg), void *arg, int create) {
    int lock_fd = open_shared(host->root, "dcmi.lock", O_RDWR | (create ? O_CREAT : 0));
    if (lock_fd < 0) return DCMI_ERR_FILE_OPERATE_FAIL;
    int rc = lock_bounded(lock_fd);
    if (rc != 0) {
        close(lock_fd);
        return rc;
    }
    int fd = open_shared(host->root, "dcmi-state.bin", O_RDWR | (create ? O_CREAT : 0));
    struct sim_state *st = MAP_FAILED;
    if (fd >= 0) {
        struct stat sb;
        if (fstat(fd, &sb) == 0 && (sb.st_size == (off_t)sizeof(*st) || ftruncate(fd, sizeof(*st)) == 0)) {
            st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        }
    }
    if (st == MAP_FAILED) {
        rc = DCMI_ERR_FILE_OPERATE_FAIL;
    } else {
        uint64_t sig = host_signature(host);
        if (st->magic != SIM_STATE_MAGIC || st->version != SIM_STATE_VERSION || st->host_signature != sig) {
            memset(st, 0, sizeof(*st));
            st->magic = SIM_STATE_MAGIC;
            st->version = SIM_STATE_VERSION;
            st->host_signature = sig;
        }
        rc = fn(st, arg);
        munmap(st, sizeof(*st));
    }
    if (fd >= 0) close(fd);
    flock(lock_fd, LOCK_UN);
    close(lock_fd);
    return rc;
}

int sim_with_state(const struct sim_host *host, int (*fn)(struct sim_state *st, void *arg), void *arg) {
    return with_state(host, fn, arg, 1);
}

int sim_with_existing_state(const struct sim_host *host, int (*fn)(struct sim_state *st, void *arg), void *arg) {
    return with_state(host, fn, arg, 0);
}

const struct sim_template *sim_template_find(const struct vnpu_sim_device_info *dev, const char *name) {
    for (size_t i = 0; i < sizeof(TEMPLATES) / sizeof(TEMPLATES[0]); i++) {
        const struct sim_template *t = &TEMPLATES[i];
        if (strncmp(dev->chip_name, t->chip_prefix, strlen(t->chip_prefix)) != 0 || strcmp(name, t->name) != 0) continue;
        if (t->chip_ai_cores == 0 || t->chip_ai_cores == dev->ai_cores) return t;
    }
    return NULL;
}

uint64_t sim_template_mem_mb(const struct sim_template *t, const struct vnpu_sim_device_info *dev) {
    if (t->mem_mb != 0) return t->mem_mb;
    return dev->hbm_bytes / (1024 * 1024) * t->mem_num / t->mem_den;
}

uint32_t sim_vdev_base(const struct vnpu_sim_device_info *dev) {
    return (uint32_t)dev->phy_id * 16 + 100;
}

uint32_t sim_vdev_range(const struct vnpu_sim_device_info *dev) {
    return strncmp(dev->chip_name, "310P", 4) == 0 ? 8 : 16;
}

void sim_free_resources(const struct vnpu_sim_device_info *dev, const struct sim_chip *chip, struct sim_free *out) {
    out->ai_cores = dev->ai_cores;
    out->ai_cpus = dev->ai_cpus;
    out->mem_mb = dev->hbm_bytes / (1024 * 1024);
    for (int i = 0; i < SIM_MAX_VDEV; i++) {
        const struct sim_vdev *v = &chip->vdevs[i];
        if (v->id == 0) continue;
        const struct sim_template *t = sim_template_find(dev, v->template_name);
        if (t == NULL) continue;
        uint64_t mem = sim_template_mem_mb(t, dev);
        out->ai_cores -= t->ai_cores < out->ai_cores ? t->ai_cores : out->ai_cores;
        out->ai_cpus -= t->ai_cpus < out->ai_cpus ? t->ai_cpus : out->ai_cpus;
        out->mem_mb -= mem < out->mem_mb ? mem : out->mem_mb;
    }
}

struct sim_vdev *sim_vdev_find(struct sim_chip *chip, uint32_t vdev_id) {
    if (vdev_id == 0) return NULL;
    for (int i = 0; i < SIM_MAX_VDEV; i++) {
        if (chip->vdevs[i].id == vdev_id) return &chip->vdevs[i];
    }
    return NULL;
}

int sim_vdev_create(const struct vnpu_sim_device_info *dev, struct sim_chip *chip, const char *template_name,
                    uint32_t want, uint32_t *vdev_id, uint32_t *vfg_id) {
    const struct sim_template *t = sim_template_find(dev, template_name);
    if (t == NULL) return DCMI_ERR_INVALID_PARAMETER;
    struct sim_free free_res;
    sim_free_resources(dev, chip, &free_res);
    if (t->ai_cores > free_res.ai_cores || t->ai_cpus > free_res.ai_cpus ||
        sim_template_mem_mb(t, dev) > free_res.mem_mb) {
        return DCMI_ERR_RESOURCE_OCCUPIED;
    }
    uint32_t base = sim_vdev_base(dev), range = sim_vdev_range(dev);
    uint32_t id = 0;
    if (want != DCMI_VDEV_ID_AUTO) {
        if (want < base || want >= base + range) return DCMI_ERR_INVALID_PARAMETER;
        if (sim_vdev_find(chip, want) != NULL) return DCMI_ERR_RESOURCE_OCCUPIED;
        id = want;
    } else {
        for (uint32_t c = base; c < base + range && id == 0; c++) {
            if (sim_vdev_find(chip, c) == NULL) id = c;
        }
        if (id == 0) return DCMI_ERR_RESOURCE_OCCUPIED;
    }
    /* vfg (virtual function group) IDs: lowest unused, like vNPU IDs */
    uint32_t vfg = 0;
    for (int again = 1; again;) {
        again = 0;
        for (int i = 0; i < SIM_MAX_VDEV; i++) {
            if (chip->vdevs[i].id != 0 && chip->vdevs[i].vfg_id == vfg) {
                vfg++;
                again = 1;
            }
        }
    }
    for (int i = 0; i < SIM_MAX_VDEV; i++) {
        struct sim_vdev *v = &chip->vdevs[i];
        if (v->id != 0) continue;
        memset(v, 0, sizeof(*v));
        v->id = id;
        v->vfg_id = vfg;
        snprintf(v->template_name, sizeof(v->template_name), "%s", t->name);
        *vdev_id = id;
        *vfg_id = vfg;
        return DCMI_OK;
    }
    return DCMI_ERR_RESOURCE_OCCUPIED;
}

int sim_vdev_destroy(struct sim_chip *chip, uint32_t vdev_id) {
    struct sim_vdev *v = sim_vdev_find(chip, vdev_id);
    if (v == NULL) return DCMI_ERR_INVALID_DEVICE_ID;
    if (v->in_use) return DCMI_ERR_RESOURCE_OCCUPIED;
    memset(v, 0, sizeof(*v));
    return DCMI_OK;
}

uint64_t sim_hbm_used_bytes(const struct sim_host *host, int logic_id) {
    if (logic_id < 0 || logic_id >= VNPU_SIM_MAX_DEVICES) return 0;
    int fd = open_shared(host->root, "hbm.bin", O_RDONLY);
    if (fd < 0) return 0;
    uint64_t used = 0;
    struct stat sb;
    size_t len = VNPU_SIM_MAX_DEVICES * sizeof(uint64_t);
    if (fstat(fd, &sb) == 0 && sb.st_size >= (off_t)len) {
        uint64_t *counters = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
        if (counters != MAP_FAILED) {
            used = __atomic_load_n(&counters[logic_id], __ATOMIC_ACQUIRE);
            munmap(counters, len);
        }
    }
    close(fd);
    return used;
}

void sim_event_push(struct sim_state *st, int logic_id, uint32_t code, uint8_t severity, uint8_t assertion) {
    uint64_t seq = ++st->event_seq;
    struct sim_event *e = &st->events[seq % SIM_EVENT_RING];
    memset(e, 0, sizeof(*e));
    e->seq = seq;
    e->code = code;
    e->logic_id = (uint32_t)logic_id;
    e->severity = severity;
    e->assertion = assertion;
    e->raised_s = sim_now_ms() / 1000;
}

int sim_fault_add(struct sim_state *st, int logic_id, uint32_t code, uint8_t severity) {
    struct sim_chip *chip = &st->chips[logic_id];
    for (uint32_t i = 0; i < chip->fault_count; i++) {
        if (chip->faults[i] == code) return DCMI_OK;
    }
    if (chip->fault_count == SIM_MAX_FAULTS) return DCMI_ERR_RESOURCE_OCCUPIED;
    chip->faults[chip->fault_count++] = code;
    sim_event_push(st, logic_id, code, severity, 1);
    return DCMI_OK;
}

void sim_fault_remove(struct sim_state *st, int logic_id, uint32_t code) {
    struct sim_chip *chip = &st->chips[logic_id];
    for (uint32_t i = 0; i < chip->fault_count; i++) {
        if (chip->faults[i] != code) continue;
        memmove(&chip->faults[i], &chip->faults[i + 1], (chip->fault_count - i - 1) * sizeof(chip->faults[0]));
        chip->faults[--chip->fault_count] = 0;
        sim_event_push(st, logic_id, code, 0, 0);
        return;
    }
}

void sim_faults_clear(struct sim_state *st, int logic_id) {
    struct sim_chip *chip = &st->chips[logic_id];
    while (chip->fault_count > 0) sim_fault_remove(st, logic_id, chip->faults[0]);
}

uint64_t sim_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

unsigned sim_boot_status(const struct sim_state *st, const struct sim_chip *chip) {
    if (chip->reset_at_ms == 0) return DCMI_SYSTEM_START_FINISH;
    if (chip->reset_hang) return DCMI_BOOT_STATUS_BIOS;
    uint64_t boot = st->boot_ms != 0 ? st->boot_ms : SIM_DEFAULT_BOOT_MS;
    uint64_t now = sim_now_ms();
    uint64_t elapsed = now > chip->reset_at_ms ? now - chip->reset_at_ms : 0;
    if (elapsed >= boot) return DCMI_SYSTEM_START_FINISH;
    return (unsigned)(elapsed * 4 / boot); /* UNINIT, BIOS, OS, FINISH */
}
