/*
 * Simulated libdcmi.so: the DCMI functions of include/dcmi_interface_api.h over a simulated host
 * (profile from vnpu_sim_host.h, shared state from sim_state.h). Arguments are validated like the
 * driver: unknown card/device -8007, NULL pointers -8001, features the chip lacks -8255.
 *
 * Knobs (see vnpu-sim-ctl): init failure, added latency, faults, card drop, late cards, vNPU
 * in-use flags live in the shared state; VNPU_SIM_DCMI_INIT_FAIL and VNPU_SIM_DCMI_LATENCY_MS in
 * the environment do the same for one process.
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dcmi_interface_api.h"
#include "sim_devnodes.h"
#include "sim_state.h"

#define MB (1024ULL * 1024ULL)

/* dcmi_init must come first, as with the driver; per process, like the driver's own handle. */
static int g_initialized;

struct call {
    struct sim_host host;
    struct sim_state snap; /* state copied under the lock at entry */
};

static int copy_state(struct sim_state *st, void *arg) {
    memcpy(arg, st, sizeof(*st));
    return DCMI_OK;
}

static void sleep_ms(unsigned ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static int env_int(const char *name, int fallback) {
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? atoi(v) : fallback;
}

/* Loads the host and a state snapshot, applies the latency knobs. */
static int begin(struct call *c) {
    if (!__atomic_load_n(&g_initialized, __ATOMIC_ACQUIRE)) return DCMI_ERR_INNER_ERR;
    int rc = sim_host_load(&c->host);
    if (rc != 0) return rc;
    rc = sim_with_state(&c->host, copy_state, &c->snap);
    if (rc != 0) return rc;
    unsigned latency = c->snap.latency_ms + (unsigned)env_int("VNPU_SIM_DCMI_LATENCY_MS", 0);
    if (latency > 0) sleep_ms(latency);
    return DCMI_OK;
}

#define BEGIN(c)                  \
    struct call c;                \
    do {                          \
        int rc_ = begin(&c);      \
        if (rc_ != 0) return rc_; \
    } while (0)

#define DEVICE(c, idx, card, dev)                           \
    int idx = sim_find(&(c).host, (card), (dev));           \
    if (idx < 0) return DCMI_ERR_INVALID_DEVICE_ID

#define NOT_NULL(p) \
    if ((p) == NULL) return DCMI_ERR_INVALID_PARAMETER

static const struct vnpu_sim_device_info *dev_at(const struct call *c, int idx) {
    return &c->host.devs[idx];
}

static int is_910_family(const struct vnpu_sim_device_info *d) {
    return strncmp(d->chip_name, "910", 3) == 0 || strncmp(d->chip_name, "Ascend910", 9) == 0;
}

static int is_310p(const struct vnpu_sim_device_info *d) {
    return strncmp(d->chip_name, "310P", 4) == 0;
}

static int chips_in_card(const struct call *c, int card_id) {
    int n = 0;
    for (int i = 0; i < c->host.n; i++) n += c->host.devs[i].card_id == card_id;
    return n;
}

static void put_str(unsigned char *dst, size_t len, const char *src) {
    memset(dst, 0, len);
    snprintf((char *)dst, len, "%s", src);
}

int dcmi_init(void) {
    struct sim_host host;
    int rc = sim_host_load(&host);
    if (rc != 0) return rc;
    struct sim_state snap;
    rc = sim_with_state(&host, copy_state, &snap);
    if (rc != 0) return rc;
    int fail = env_int("VNPU_SIM_DCMI_INIT_FAIL", 0);
    if (fail == 0) fail = snap.init_fail;
    if (fail != 0) return fail;
    sim_dev_nodes_create(&host); /* the driver's /dev nodes exist once it is loaded */
    __atomic_store_n(&g_initialized, 1, __ATOMIC_RELEASE);
    return DCMI_OK;
}

static int take_hidden_card_call(struct sim_state *st, void *arg) {
    int *hidden = arg;
    *hidden = st->hidden_card_calls > 0;
    if (*hidden) st->hidden_card_calls--;
    return DCMI_OK;
}

static int list_cards(int *card_num, int *card_list, int list_len) {
    BEGIN(c);
    NOT_NULL(card_num);
    NOT_NULL(card_list);
    if (list_len <= 0) return DCMI_ERR_INVALID_PARAMETER;
    int hidden = 0;
    int rc = sim_with_state(&c.host, take_hidden_card_call, &hidden);
    if (rc != 0) return rc;
    int n = 0;
    for (int i = 0; i < c.host.n && !hidden; i++) {
        if (i > 0 && c.host.devs[i].card_id == c.host.devs[i - 1].card_id) continue;
        if (n == list_len) break;
        card_list[n++] = c.host.devs[i].card_id;
    }
    *card_num = n;
    return DCMI_OK;
}

/* Older drivers only have the (now deprecated) dcmi_get_card_num_list name. */
#ifndef SIM_OLD_DRIVER
int dcmi_get_card_list(int *card_num, int *card_list, int list_len) {
    return list_cards(card_num, card_list, list_len);
}
#endif

int dcmi_get_card_num_list(int *card_num, int *card_list, int list_len) {
    return list_cards(card_num, card_list, list_len);
}

int dcmi_get_device_num_in_card(int card_id, int *device_num) {
    BEGIN(c);
    NOT_NULL(device_num);
    int n = chips_in_card(&c, card_id);
    if (n == 0) return DCMI_ERR_INVALID_DEVICE_ID;
    *device_num = n;
    return DCMI_OK;
}

int dcmi_get_device_id_in_card(int card_id, int *device_id_max, int *mcu_id, int *cpu_id) {
    BEGIN(c);
    NOT_NULL(device_id_max);
    NOT_NULL(mcu_id);
    NOT_NULL(cpu_id);
    int n = chips_in_card(&c, card_id);
    if (n == 0) return DCMI_ERR_INVALID_DEVICE_ID;
    *device_id_max = n;
    *mcu_id = n; /* the MCU follows the chips (A3 docs: index 2 on a two-die module) */
    *cpu_id = -1;
    return DCMI_OK;
}

int dcmi_get_device_logic_id(int *device_logic_id, int card_id, int device_id) {
    BEGIN(c);
    NOT_NULL(device_logic_id);
    DEVICE(c, idx, card_id, device_id);
    *device_logic_id = dev_at(&c, idx)->logic_id;
    return DCMI_OK;
}

int dcmi_get_card_id_device_id_from_logicid(int *card_id, int *device_id, unsigned int logic_id) {
    BEGIN(c);
    NOT_NULL(card_id);
    NOT_NULL(device_id);
    if (logic_id >= (unsigned)c.host.n) return DCMI_ERR_INVALID_DEVICE_ID;
    *card_id = c.host.devs[logic_id].card_id;
    *device_id = c.host.devs[logic_id].device_id;
    return DCMI_OK;
}

int dcmi_get_device_phyid_from_logicid(unsigned int logicid, unsigned int *phyid) {
    BEGIN(c);
    NOT_NULL(phyid);
    if (logicid >= (unsigned)c.host.n) return DCMI_ERR_INVALID_DEVICE_ID;
    *phyid = (unsigned)c.host.devs[logicid].phy_id;
    return DCMI_OK;
}

int dcmi_get_device_logicid_from_phyid(unsigned int phyid, unsigned int *logicid) {
    BEGIN(c);
    NOT_NULL(logicid);
    for (int i = 0; i < c.host.n; i++) {
        if ((unsigned)c.host.devs[i].phy_id == phyid) {
            *logicid = (unsigned)c.host.devs[i].logic_id;
            return DCMI_OK;
        }
    }
    return DCMI_ERR_INVALID_DEVICE_ID;
}

int dcmi_get_device_type(int card_id, int device_id, enum dcmi_unit_type *device_type) {
    BEGIN(c);
    NOT_NULL(device_type);
    DEVICE(c, idx, card_id, device_id);
    (void)idx;
    *device_type = NPU_TYPE;
    return DCMI_OK;
}

static void fill_chip_info(const struct vnpu_sim_device_info *d, struct dcmi_chip_info *info) {
    put_str(info->chip_type, sizeof(info->chip_type), d->chip_type);
    put_str(info->chip_name, sizeof(info->chip_name), d->chip_name);
    put_str(info->chip_ver, sizeof(info->chip_ver), "V1");
    info->aicore_cnt = d->ai_cores;
}

int dcmi_get_device_chip_info(int card_id, int device_id, struct dcmi_chip_info *chip_info) {
    BEGIN(c);
    NOT_NULL(chip_info);
    DEVICE(c, idx, card_id, device_id);
    fill_chip_info(dev_at(&c, idx), chip_info);
    return DCMI_OK;
}

#ifndef SIM_OLD_DRIVER
int dcmi_get_device_chip_info_v2(int card_id, int device_id, struct dcmi_chip_info_v2 *chip_info) {
    BEGIN(c);
    NOT_NULL(chip_info);
    DEVICE(c, idx, card_id, device_id);
    const struct vnpu_sim_device_info *d = dev_at(&c, idx);
    struct dcmi_chip_info v1;
    fill_chip_info(d, &v1);
    memcpy(chip_info->chip_type, v1.chip_type, sizeof(v1.chip_type));
    memcpy(chip_info->chip_name, v1.chip_name, sizeof(v1.chip_name));
    memcpy(chip_info->chip_ver, v1.chip_ver, sizeof(v1.chip_ver));
    chip_info->aicore_cnt = v1.aicore_cnt;
    char npu[MAX_CHIP_NAME_LEN];
    snprintf(npu, sizeof(npu), "%s%.20s", strncmp(d->chip_name, "Ascend", 6) == 0 ? "" : "Ascend", d->chip_name);
    put_str(chip_info->npu_name, sizeof(chip_info->npu_name), npu);
    return DCMI_OK;
}
#endif

static unsigned board_id_of(const struct vnpu_sim_device_info *d) {
    if (d->board_id != 0) return d->board_id; /* the profile's card */
    if (strncmp(d->chip_name, "Ascend910", 9) == 0) return 0xb0; /* A900 A3 super-pod bin */
    if (strncmp(d->chip_name, "910B", 4) == 0) return 0x64;
    if (strncmp(d->chip_name, "910", 3) == 0) return 0x20;
    return 0x11;
}

int dcmi_get_device_board_info(int card_id, int device_id, struct dcmi_board_info *board_info) {
    BEGIN(c);
    NOT_NULL(board_info);
    DEVICE(c, idx, card_id, device_id);
    board_info->board_id = board_id_of(dev_at(&c, idx));
    board_info->pcb_id = 1;
    board_info->bom_id = 1;
    board_info->slot_id = (unsigned)card_id;
    return DCMI_OK;
}

int dcmi_get_mainboard_id(int card_id, int device_id, unsigned int *mainboard_id) {
    BEGIN(c);
    NOT_NULL(mainboard_id);
    DEVICE(c, idx, card_id, device_id);
    if (strncmp(dev_at(&c, idx)->chip_name, "Ascend910", 9) != 0) return DCMI_ERR_NOT_SUPPORT;
    *mainboard_id = 0x18; /* A900 A3 super-pod */
    return DCMI_OK;
}

int dcmi_get_product_type(int card_id, int device_id, char *product_type_str, int buf_size) {
    BEGIN(c);
    NOT_NULL(product_type_str);
    if (buf_size <= 0) return DCMI_ERR_INVALID_PARAMETER;
    DEVICE(c, idx, card_id, device_id);
    const char *name = dev_at(&c, idx)->product_type;
    if (name[0] == '\0') return DCMI_ERR_NOT_SUPPORT; /* server products have none */
    if ((int)strlen(name) >= buf_size) return DCMI_ERR_INVALID_PARAMETER;
    snprintf(product_type_str, (size_t)buf_size, "%s", name);
    return DCMI_OK;
}

int dcmi_get_dcmi_version(char *dcmi_ver, int buf_size) {
    BEGIN(c);
    NOT_NULL(dcmi_ver);
    const char *version = "24.1.rc2";
    if (buf_size <= (int)strlen(version)) return DCMI_ERR_INVALID_PARAMETER;
    snprintf(dcmi_ver, (size_t)buf_size, "%s", version);
    return DCMI_OK;
}

int dcmi_get_device_die_v2(int card_id, int device_id, enum dcmi_die_type input_type, struct dcmi_die_id *die_id) {
    BEGIN(c);
    NOT_NULL(die_id);
    DEVICE(c, idx, card_id, device_id);
    const struct vnpu_sim_device_info *d = dev_at(&c, idx);
    if (input_type != VDIE && input_type != NDIE) return DCMI_ERR_NOT_SUPPORT;
    if (input_type == NDIE && !is_910_family(d)) return DCMI_ERR_NOT_SUPPORT;
    /* stable per chip model, phy ID and die type, distinct across the host */
    uint32_t h = 2166136261u;
    for (const char *p = d->chip_name; *p != '\0'; p++) h = (h ^ (unsigned char)*p) * 16777619u;
    for (int w = 0; w < DIE_ID_COUNT; w++) {
        h = (h ^ (uint32_t)(d->phy_id * 31 + (int)input_type * 7 + w)) * 16777619u;
        die_id->soc_die[w] = h;
    }
    die_id->soc_die[DIE_ID_COUNT - 1] = (h & 0xFFFFFF00u) | (uint32_t)d->phy_id;
    return DCMI_OK;
}

static unsigned pcie_device_id(const struct vnpu_sim_device_info *d) {
    if (strncmp(d->chip_name, "Ascend910", 9) == 0) return 0xd803;
    if (strncmp(d->chip_name, "910B", 4) == 0) return 0xd802;
    if (strncmp(d->chip_name, "910", 3) == 0) return 0xd801;
    return 0xd500;
}

static unsigned pcie_bus(const struct vnpu_sim_device_info *d) {
    return 0x01 + 0x10u * (unsigned)d->phy_id;
}

int dcmi_get_device_pcie_info_v2(int card_id, int device_id, struct dcmi_pcie_info_all *pcie_info) {
    BEGIN(c);
    NOT_NULL(pcie_info);
    DEVICE(c, idx, card_id, device_id);
    const struct vnpu_sim_device_info *d = dev_at(&c, idx);
    memset(pcie_info, 0, sizeof(*pcie_info));
    pcie_info->venderid = 0x19e5;
    pcie_info->subvenderid = 0x0200;
    pcie_info->deviceid = pcie_device_id(d);
    pcie_info->subdeviceid = 0x0100;
    pcie_info->domain = 0;
    pcie_info->bdf_busid = pcie_bus(d);
    pcie_info->bdf_deviceid = 0;
    pcie_info->bdf_funcid = 0;
    return DCMI_OK;
}

/* Two NUMA nodes of 24 CPUs: the first half of the chips hangs off node 0. */
static int numa_half(const struct call *c, int idx) {
    return c->host.devs[idx].logic_id >= (c->host.n + 1) / 2;
}

int dcmi_get_affinity_cpu_info_by_device_id(int card_id, int device_id, char *affinity_cpu, int *length) {
    BEGIN(c);
    NOT_NULL(affinity_cpu);
    NOT_NULL(length);
    DEVICE(c, idx, card_id, device_id);
    const char *cpus = numa_half(&c, idx) ? "24-47" : "0-23";
    snprintf(affinity_cpu, 32, "%s", cpus);
    *length = (int)strlen(cpus);
    return DCMI_OK;
}

int dcmi_get_topo_info_by_device_id(int card_id1, int device_id1, int card_id2, int device_id2, int *topo_type) {
    BEGIN(c);
    NOT_NULL(topo_type);
    DEVICE(c, a, card_id1, device_id1);
    DEVICE(c, b, card_id2, device_id2);
    if (a == b) {
        *topo_type = DCMI_TOPO_TYPE_SELF;
    } else if (is_910_family(dev_at(&c, a)) && strncmp(dev_at(&c, a)->chip_name, "910Pro", 6) != 0) {
        *topo_type = DCMI_TOPO_TYPE_HCCS; /* 910B / A3 servers: full HCCS mesh */
    } else if (card_id1 == card_id2) {
        *topo_type = DCMI_TOPO_TYPE_PIX;
    } else {
        *topo_type = numa_half(&c, a) == numa_half(&c, b) ? DCMI_TOPO_TYPE_PHB : DCMI_TOPO_TYPE_SYS;
    }
    return DCMI_OK;
}

int dcmi_get_device_health(int card_id, int device_id, unsigned int *health) {
    BEGIN(c);
    NOT_NULL(health);
    DEVICE(c, idx, card_id, device_id);
    const struct sim_chip *chip = &c.snap.chips[idx];
    if (chip->dropped) return DCMI_ERR_NOT_READY;
    *health = chip->health;
    return DCMI_OK;
}

#ifndef SIM_OLD_DRIVER
int dcmi_get_device_errorcode_v2(int card_id, int device_id, int *error_count, unsigned int *error_code_list,
                                 unsigned int list_len) {
    BEGIN(c);
    NOT_NULL(error_count);
    NOT_NULL(error_code_list);
    DEVICE(c, idx, card_id, device_id);
    const struct sim_chip *chip = &c.snap.chips[idx];
    if (chip->dropped) return DCMI_ERR_NOT_READY;
    unsigned n = chip->fault_count < list_len ? chip->fault_count : list_len;
    for (unsigned i = 0; i < n; i++) error_code_list[i] = chip->faults[i];
    *error_count = (int)n;
    return DCMI_OK;
}
#endif

int dcmi_get_device_errorcode(int card_id, int device_id, int *error_count, unsigned int *error_code,
                              int *error_width) {
    BEGIN(c);
    NOT_NULL(error_count);
    NOT_NULL(error_code);
    NOT_NULL(error_width);
    DEVICE(c, idx, card_id, device_id);
    const struct sim_chip *chip = &c.snap.chips[idx];
    if (chip->dropped) return DCMI_ERR_NOT_READY;
    *error_count = (int)chip->fault_count;
    *error_code = chip->fault_count > 0 ? chip->faults[0] : 0;
    *error_width = (int)sizeof(unsigned int);
    return DCMI_OK;
}

/*
 * Fault event subscription: a per-process thread polls the shared event ring every
 * SUB_POLL_MS and calls each matching handler once per new event, outside the state lock, like
 * the driver's own callback thread. Only the 910 family supports it (310/310P: -8255).
 */
#define SIM_MAX_SUBSCRIBERS 8
#define SUB_POLL_MS 20

struct subscriber {
    int card_id, device_id; /* -1, -1 = every chip */
    dcmi_fault_event_callback handler;
};

static pthread_mutex_t g_sub_lock = PTHREAD_MUTEX_INITIALIZER;
static struct subscriber g_subs[SIM_MAX_SUBSCRIBERS];
static int g_nsubs;
static int g_sub_thread;
static uint64_t g_seen_seq;
/* the host of the first subscription: the thread never re-reads the environment (setenv races) */
static struct sim_host g_sub_host;

struct new_events {
    uint64_t after;
    int n;
    struct sim_event ev[SIM_EVENT_RING];
};

static int take_events(struct sim_state *st, void *arg) {
    struct new_events *ne = arg;
    uint64_t first = ne->after + 1;
    if (st->event_seq >= SIM_EVENT_RING && first <= st->event_seq - SIM_EVENT_RING) {
        first = st->event_seq - SIM_EVENT_RING + 1; /* older ones were overwritten */
    }
    ne->n = 0;
    for (uint64_t seq = first; seq <= st->event_seq; seq++) ne->ev[ne->n++] = st->events[seq % SIM_EVENT_RING];
    ne->after = st->event_seq;
    return DCMI_OK;
}

static int read_event_seq(struct sim_state *st, void *arg) {
    *(uint64_t *)arg = st->event_seq;
    return DCMI_OK;
}

static void deliver(const struct sim_host *host, const struct sim_event *e) {
    if (e->logic_id >= (uint32_t)host->n) return;
    const struct vnpu_sim_device_info *d = &host->devs[e->logic_id];
    struct dcmi_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.type = DCMI_DMS_FAULT_EVENT;
    struct dcmi_dms_fault_event *f = &ev.event_t.dms_event;
    f->event_id = e->code;
    f->deviceid = (unsigned short)e->logic_id;
    f->severity = e->severity;
    f->assertion = e->assertion;
    f->event_serial_num = (int)e->seq;
    f->notify_serial_num = (int)e->seq;
    f->alarm_raised_time = e->raised_s;
    snprintf(f->event_name, sizeof(f->event_name), "simulated fault 0x%08X", e->code);
    struct subscriber subs[SIM_MAX_SUBSCRIBERS];
    pthread_mutex_lock(&g_sub_lock);
    int n = g_nsubs;
    memcpy(subs, g_subs, sizeof(subs));
    pthread_mutex_unlock(&g_sub_lock);
    for (int i = 0; i < n; i++) {
        if (subs[i].card_id != -1 && (subs[i].card_id != d->card_id || subs[i].device_id != d->device_id)) continue;
        subs[i].handler(&ev);
    }
}

static void *subscription_thread(void *arg) {
    (void)arg;
    struct new_events ne;
    for (;;) {
        sleep_ms(SUB_POLL_MS);
        pthread_mutex_lock(&g_sub_lock);
        ne.after = g_seen_seq;
        struct sim_host host = g_sub_host;
        pthread_mutex_unlock(&g_sub_lock);
        /* a host whose state directory was removed (a finished test) is not recreated */
        if (sim_with_existing_state(&host, take_events, &ne) != 0) continue;
        pthread_mutex_lock(&g_sub_lock);
        g_seen_seq = ne.after;
        pthread_mutex_unlock(&g_sub_lock);
        for (int i = 0; i < ne.n; i++) deliver(&host, &ne.ev[i]);
    }
    return NULL;
}

int dcmi_subscribe_fault_event(int card_id, int device_id, struct dcmi_event_filter filter,
                               dcmi_fault_event_callback handler) {
    BEGIN(c);
    (void)filter; /* the device plugin passes an all-zero filter: everything */
    NOT_NULL(handler);
    int idx = 0;
    if (!(card_id == -1 && device_id == -1)) {
        idx = sim_find(&c.host, card_id, device_id);
        if (idx < 0) return DCMI_ERR_INVALID_DEVICE_ID;
    }
    if (!is_910_family(dev_at(&c, idx))) return DCMI_ERR_NOT_SUPPORT;
    uint64_t seq = 0;
    int rc = sim_with_state(&c.host, read_event_seq, &seq);
    if (rc != 0) return rc;
    pthread_mutex_lock(&g_sub_lock);
    if (g_nsubs == SIM_MAX_SUBSCRIBERS) {
        pthread_mutex_unlock(&g_sub_lock);
        return DCMI_ERR_RESOURCE_OCCUPIED;
    }
    if (g_nsubs == 0 || strcmp(g_sub_host.root, c.host.root) != 0) {
        /* first subscription, or the process moved to another simulated host: follow it */
        g_sub_host = c.host;
        g_seen_seq = seq; /* deliver events from now on, not the history */
    }
    g_subs[g_nsubs++] = (struct subscriber){card_id, device_id, handler};
    if (!g_sub_thread) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &attr, subscription_thread, NULL) != 0) {
            g_nsubs--;
            pthread_mutex_unlock(&g_sub_lock);
            pthread_attr_destroy(&attr);
            return DCMI_ERR_INNER_ERR;
        }
        pthread_attr_destroy(&attr);
        g_sub_thread = 1;
    }
    pthread_mutex_unlock(&g_sub_lock);
    return DCMI_OK;
}

int dcmi_get_device_network_health(int card_id, int device_id, enum dcmi_rdfx_detect_result *result) {
    BEGIN(c);
    NOT_NULL(result);
    DEVICE(c, idx, card_id, device_id);
    if (!is_910_family(dev_at(&c, idx))) return DCMI_ERR_NOT_SUPPORT;
    const struct sim_chip *chip = &c.snap.chips[idx];
    if (chip->net_block_ms > 0) sleep_ms(chip->net_block_ms); /* the driver may block after a card drop */
    if (chip->dropped) return DCMI_ERR_NOT_READY;
    if (sim_boot_status(&c.snap, chip) != DCMI_SYSTEM_START_FINISH) {
        *result = DCMI_RDFX_DETECT_INIT; /* the RoCE port comes up after the chip */
    } else {
        *result = chip->link_down ? DCMI_RDFX_DETECT_UNREACH : DCMI_RDFX_DETECT_OK;
    }
    return DCMI_OK;
}

/*
 * The RoCE port's address: the profile's IPv4 (910 family), or what `vnpu-sim-ctl ip` set. A chip
 * without an address of the asked family (310P has no RoCE port at all) answers -8255, mask
 * 255.255.255.0 for IPv4 and a /64 for IPv6. Only RoCE port 0 exists here; the VNIC port is not
 * simulated (-8255).
 */
int dcmi_get_device_ip(int card_id, int device_id, enum dcmi_port_type input_type, int port_id,
                       struct dcmi_ip_addr *ip, struct dcmi_ip_addr *mask) {
    BEGIN(c);
    NOT_NULL(ip);
    NOT_NULL(mask);
    DEVICE(c, idx, card_id, device_id);
    if (input_type != DCMI_ROCE_PORT && input_type != DCMI_VNIC_PORT) return DCMI_ERR_INVALID_PARAMETER;
    if (port_id < 0) return DCMI_ERR_INVALID_PARAMETER;
    if (input_type == DCMI_VNIC_PORT || port_id != 0) return DCMI_ERR_NOT_SUPPORT;
    enum dcmi_ip_addr_type want = ip->ip_type == DCMI_IPADDR_TYPE_V6 ? DCMI_IPADDR_TYPE_V6 : DCMI_IPADDR_TYPE_V4;
    const struct vnpu_sim_device_info *d = dev_at(&c, idx);
    const struct sim_chip *chip = &c.snap.chips[idx];
    if (chip->dropped) return DCMI_ERR_NOT_READY;
    unsigned char addr[16] = {0};
    enum dcmi_ip_addr_type have;
    if (chip->ip_override == SIM_IP_NONE) return DCMI_ERR_NOT_SUPPORT;
    if (chip->ip_override == SIM_IP_SET) {
        have = chip->ip_type == DCMI_IPADDR_TYPE_V6 ? DCMI_IPADDR_TYPE_V6 : DCMI_IPADDR_TYPE_V4;
        memcpy(addr, chip->ip, sizeof(addr));
    } else {
        static const uint8_t none[4] = {0};
        if (memcmp(d->roce_ip4, none, 4) == 0) return DCMI_ERR_NOT_SUPPORT;
        have = DCMI_IPADDR_TYPE_V4;
        memcpy(addr, d->roce_ip4, 4);
    }
    if (have != want) return DCMI_ERR_NOT_SUPPORT;
    memset(ip, 0, sizeof(*ip));
    memset(mask, 0, sizeof(*mask));
    if (have == DCMI_IPADDR_TYPE_V4) {
        memcpy(ip->u_addr.ip4, addr, 4);
        memset(mask->u_addr.ip4, 0xff, 3);
    } else {
        memcpy(ip->u_addr.ip6, addr, 16);
        memset(mask->u_addr.ip6, 0xff, 8);
    }
    ip->ip_type = have;
    mask->ip_type = have;
    return DCMI_OK;
}

int dcmi_get_device_boot_status(int card_id, int device_id, enum dcmi_boot_status *boot_status) {
    BEGIN(c);
    NOT_NULL(boot_status);
    DEVICE(c, idx, card_id, device_id);
    *boot_status = (enum dcmi_boot_status)sim_boot_status(&c.snap, &c.snap.chips[idx]);
    return DCMI_OK;
}

/* Atlas 300I Duo: the two chips of a card reset together (the device plugin passes device 0). */
static int whole_card_reset(const struct call *c, int idx) {
    return is_310p(dev_at(c, idx)) && chips_in_card(c, dev_at(c, idx)->card_id) == 2;
}

struct reset_args {
    const struct sim_host *host;
    int idx;
    int whole_card;
};

static int do_reset(struct sim_state *st, void *arg) {
    struct reset_args *a = arg;
    int card = a->host->devs[a->idx].card_id;
    for (int i = 0; i < a->host->n; i++) {
        int hit = a->whole_card ? a->host->devs[i].card_id == card : i == a->idx;
        if (hit && st->chips[i].proc_count > 0) return DCMI_ERR_RESOURCE_OCCUPIED;
    }
    struct sim_chip *target = &st->chips[a->idx];
    if (target->reset_fail > 0) {
        target->reset_fail--;
        return DCMI_ERR_RESET_FAIL;
    }
    uint64_t now = sim_now_ms();
    for (int i = 0; i < a->host->n; i++) {
        int hit = a->whole_card ? a->host->devs[i].card_id == card : i == a->idx;
        if (!hit) continue;
        struct sim_chip *chip = &st->chips[i];
        sim_faults_clear(st, i); /* a reset clears the chip's faults, each with a recovery event */
        chip->health = 0;
        chip->dropped = 0;
        chip->link_down = 0;
        chip->reset_at_ms = now;
        chip->resets++;
    }
    return DCMI_OK;
}

int dcmi_set_device_reset(int card_id, int device_id, enum dcmi_reset_channel channel_type) {
    BEGIN(c);
    DEVICE(c, idx, card_id, device_id);
    if (channel_type != INBAND_CHANNEL && channel_type != OUTBAND_CHANNEL) return DCMI_ERR_INVALID_PARAMETER;
    if (channel_type == OUTBAND_CHANNEL && strncmp(dev_at(&c, idx)->chip_name, "Ascend910", 9) != 0) {
        return DCMI_ERR_NOT_SUPPORT; /* out-of-band reset: A3 only */
    }
    struct reset_args a = {&c.host, idx, whole_card_reset(&c, idx)};
    return sim_with_state(&c.host, do_reset, &a);
}

static uint64_t used_mb(const struct call *c, int idx) {
    uint64_t bytes = sim_hbm_used_bytes(&c->host, c->host.devs[idx].logic_id);
    return (bytes + MB - 1) / MB;
}

static uint64_t total_mb(const struct vnpu_sim_device_info *d) {
    return d->hbm_bytes / MB;
}

int dcmi_get_device_hbm_info(int card_id, int device_id, struct dcmi_hbm_info *hbm_info) {
    BEGIN(c);
    NOT_NULL(hbm_info);
    DEVICE(c, idx, card_id, device_id);
    const struct vnpu_sim_device_info *d = dev_at(&c, idx);
    if (!is_910_family(d)) return DCMI_ERR_NOT_SUPPORT; /* 310P has DDR, not HBM */
    memset(hbm_info, 0, sizeof(*hbm_info));
    hbm_info->memory_size = total_mb(d);
    hbm_info->freq = 1600;
    uint64_t used = used_mb(&c, idx);
    hbm_info->memory_usage = used < hbm_info->memory_size ? used : hbm_info->memory_size;
    hbm_info->temp = 42;
    hbm_info->bandwith_util_rate = 0;
    return DCMI_OK;
}

static int ddr_info(struct call *c, int idx, uint64_t *size, uint64_t *used) {
    const struct vnpu_sim_device_info *d = dev_at(c, idx);
    if (!is_310p(d)) return DCMI_ERR_NOT_SUPPORT; /* HBM products: use dcmi_get_device_hbm_info */
    *size = total_mb(d);
    *used = used_mb(c, idx);
    if (*used > *size) *used = *size;
    return DCMI_OK;
}

int dcmi_get_device_memory_info_v3(int card_id, int device_id, struct dcmi_get_memory_info_stru *memory_info) {
    BEGIN(c);
    NOT_NULL(memory_info);
    DEVICE(c, idx, card_id, device_id);
    uint64_t size, used;
    int rc = ddr_info(&c, idx, &size, &used);
    if (rc != 0) return rc;
    memset(memory_info, 0, sizeof(*memory_info));
    memory_info->memory_size = size;
    memory_info->memory_available = size - used;
    memory_info->freq = 3200;
    memory_info->hugepagesize = 2048;
    memory_info->utiliza = (unsigned)(used * 100 / size);
    return DCMI_OK;
}

int dcmi_get_memory_info(int card_id, int device_id, struct dcmi_memory_info_stru *memory_info) {
    BEGIN(c);
    NOT_NULL(memory_info);
    DEVICE(c, idx, card_id, device_id);
    uint64_t size, used;
    int rc = ddr_info(&c, idx, &size, &used);
    if (rc != 0) return rc;
    memory_info->memory_size = size;
    memory_info->freq = 3200;
    memory_info->utiliza = (unsigned)(used * 100 / size);
    return DCMI_OK;
}

int dcmi_get_device_utilization_rate(int card_id, int device_id, int input_type, unsigned int *utilization_rate) {
    BEGIN(c);
    NOT_NULL(utilization_rate);
    DEVICE(c, idx, card_id, device_id);
    const struct vnpu_sim_device_info *d = dev_at(&c, idx);
    uint64_t total = total_mb(d), used = used_mb(&c, idx);
    if (used > total) used = total;
    switch (input_type) {
    case DCMI_UTIL_AICORE:
    case DCMI_UTIL_NPU:
        *utilization_rate = c.snap.chips[idx].aicore_util;
        return DCMI_OK;
    case DCMI_UTIL_AICPU:
    case DCMI_UTIL_CTRLCPU:
        *utilization_rate = 0;
        return DCMI_OK;
    case DCMI_UTIL_MEMORY:
        if (!is_310p(d)) return DCMI_ERR_NOT_SUPPORT;
        *utilization_rate = (unsigned)(used * 100 / total);
        return DCMI_OK;
    case DCMI_UTIL_HBM:
        if (!is_910_family(d)) return DCMI_ERR_NOT_SUPPORT;
        *utilization_rate = (unsigned)(used * 100 / total);
        return DCMI_OK;
    default:
        return DCMI_ERR_NOT_SUPPORT;
    }
}

int dcmi_get_device_multi_utilization_rate(int card_id, int device_id, struct dcmi_multi_utilization_info *info) {
    BEGIN(c);
    NOT_NULL(info);
    DEVICE(c, idx, card_id, device_id);
    memset(info, 0, sizeof(*info));
    info->aic_util = c.snap.chips[idx].aicore_util;
    info->aicore_util = c.snap.chips[idx].aicore_util;
    info->npu_util = c.snap.chips[idx].aicore_util;
    return DCMI_OK;
}

int dcmi_get_device_temperature(int card_id, int device_id, int *temperature) {
    BEGIN(c);
    NOT_NULL(temperature);
    DEVICE(c, idx, card_id, device_id);
    *temperature = 43 + c.snap.chips[idx].aicore_util / 5;
    return DCMI_OK;
}

int dcmi_get_device_power_info(int card_id, int device_id, int *power) {
    BEGIN(c);
    NOT_NULL(power);
    DEVICE(c, idx, card_id, device_id);
    /* 0.1 W: idle plus a load share */
    int idle = is_310p(dev_at(&c, idx)) ? 180 : 900;
    *power = idle + (int)c.snap.chips[idx].aicore_util * (is_310p(dev_at(&c, idx)) ? 5 : 25);
    return DCMI_OK;
}

int dcmi_get_device_voltage(int card_id, int device_id, unsigned int *voltage) {
    BEGIN(c);
    NOT_NULL(voltage);
    DEVICE(c, idx, card_id, device_id);
    (void)idx;
    *voltage = 85; /* 0.85 V */
    return DCMI_OK;
}

int dcmi_get_device_frequency(int card_id, int device_id, enum dcmi_freq_type input_type, unsigned int *frequency) {
    BEGIN(c);
    NOT_NULL(frequency);
    DEVICE(c, idx, card_id, device_id);
    int p310 = is_310p(dev_at(&c, idx));
    switch (input_type) {
    case DCMI_FREQ_DDR:
        if (!p310) return DCMI_ERR_NOT_SUPPORT;
        *frequency = 3200;
        return DCMI_OK;
    case DCMI_FREQ_CTRLCPU:
        *frequency = p310 ? 1900 : 3000;
        return DCMI_OK;
    case DCMI_FREQ_HBM:
        if (p310) return DCMI_ERR_NOT_SUPPORT;
        *frequency = 1600;
        return DCMI_OK;
    case DCMI_FREQ_AICORE_CURRENT:
    case DCMI_FREQ_AICORE_MAX:
        *frequency = p310 ? 1080 : 1800;
        return DCMI_OK;
    case DCMI_FREQ_VECTORCORE_CURRENT:
        if (!p310) return DCMI_ERR_NOT_SUPPORT;
        *frequency = 1080;
        return DCMI_OK;
    default:
        return DCMI_ERR_NOT_SUPPORT;
    }
}

int dcmi_get_device_ecc_info(int card_id, int device_id, enum dcmi_device_type input_type,
                             struct dcmi_ecc_info *device_ecc_info) {
    BEGIN(c);
    NOT_NULL(device_ecc_info);
    DEVICE(c, idx, card_id, device_id);
    int p310 = is_310p(dev_at(&c, idx));
    if (input_type != (p310 ? DCMI_DEVICE_TYPE_DDR : DCMI_DEVICE_TYPE_HBM)) return DCMI_ERR_NOT_SUPPORT;
    memset(device_ecc_info, 0, sizeof(*device_ecc_info));
    device_ecc_info->enable_flag = 1;
    return DCMI_OK;
}

#ifndef SIM_OLD_DRIVER
/* Host processes registered on the chip (vnpu-sim-ctl proc); the caller's array holds 32 entries. */
int dcmi_get_device_resource_info(int card_id, int device_id, struct dcmi_proc_mem_info *proc_info, int *proc_num) {
    BEGIN(c);
    NOT_NULL(proc_info);
    NOT_NULL(proc_num);
    DEVICE(c, idx, card_id, device_id);
    const struct sim_chip *chip = &c.snap.chips[idx];
    uint32_t n = chip->proc_count < SIM_MAX_PROCS ? chip->proc_count : SIM_MAX_PROCS;
    for (uint32_t i = 0; i < n; i++) {
        proc_info[i].proc_id = chip->procs[i].pid;
        proc_info[i].proc_mem_usage = (unsigned long)chip->procs[i].mem_bytes;
    }
    *proc_num = (int)n;
    return DCMI_OK;
}
#endif

int dcmi_get_npu_work_mode(int card_id, unsigned char *work_mode) {
    BEGIN(c);
    NOT_NULL(work_mode);
    DEVICE(c, idx, card_id, 0);
    if (strncmp(dev_at(&c, idx)->chip_name, "910Pro", 6) != 0) return DCMI_ERR_NOT_SUPPORT;
    *work_mode = 0; /* AMP */
    return DCMI_OK;
}

/* ---- vNPU management ---- */

struct create_args {
    const struct sim_host *host;
    int idx;
    const char *template_name;
    uint32_t want;
    uint32_t vdev_id, vfg_id;
};

static int do_create(struct sim_state *st, void *arg) {
    struct create_args *a = arg;
    return sim_vdev_create(&a->host->devs[a->idx], &st->chips[a->idx], a->template_name, a->want, &a->vdev_id,
                           &a->vfg_id);
}

static void vdev_node(const struct sim_host *host, uint32_t vdev_id, int create) {
    char name[32];
    snprintf(name, sizeof(name), "vdavinci%u", vdev_id);
    if (create) {
        sim_dev_node_create(host, name);
    } else {
        sim_dev_node_remove(host, name);
    }
}

int dcmi_create_vdevice(int card_id, int device_id, struct dcmi_create_vdev_res_stru *vdev,
                        struct dcmi_create_vdev_out *out) {
    BEGIN(c);
    NOT_NULL(vdev);
    NOT_NULL(out);
    DEVICE(c, idx, card_id, device_id);
    char name[TEMPLATE_NAME_LEN + 1];
    memcpy(name, vdev->template_name, TEMPLATE_NAME_LEN);
    name[TEMPLATE_NAME_LEN] = '\0';
    struct create_args a = {&c.host, idx, name, vdev->vdev_id, 0, 0};
    int rc = sim_with_state(&c.host, do_create, &a);
    if (rc != 0) return rc;
    vdev_node(&c.host, a.vdev_id, 1);
    memset(out, 0, sizeof(*out));
    out->vdev_id = a.vdev_id;
    out->vfg_id = a.vfg_id;
    out->pcie_bus = pcie_bus(dev_at(&c, idx));
    return DCMI_OK;
}

struct destroy_args {
    int idx;
    uint32_t vdev_id;
};

static int do_destroy(struct sim_state *st, void *arg) {
    struct destroy_args *a = arg;
    return sim_vdev_destroy(&st->chips[a->idx], a->vdev_id);
}

int dcmi_set_destroy_vdevice(int card_id, int device_id, unsigned int vdevid) {
    BEGIN(c);
    DEVICE(c, idx, card_id, device_id);
    struct destroy_args a = {idx, vdevid};
    int rc = sim_with_state(&c.host, do_destroy, &a);
    if (rc == 0) vdev_node(&c.host, vdevid, 0);
    return rc;
}

static void fill_computing_total(struct call *c, int idx, struct dcmi_computing_resource *r) {
    const struct vnpu_sim_device_info *d = dev_at(c, idx);
    r->aic = (float)d->ai_cores;
    r->aiv = (float)d->ai_cores * 2;
    r->memory_size = total_mb(d);
    r->device_aicpu = (unsigned short)d->ai_cpus;
}

static int query_vdev(struct call *c, int idx, struct dcmi_vdev_query_stru *q, int activity) {
    struct sim_chip *chip = &c->snap.chips[idx];
    struct sim_vdev *v = sim_vdev_find(chip, q->vdev_id);
    if (v == NULL) return DCMI_ERR_INVALID_DEVICE_ID;
    const struct vnpu_sim_device_info *d = dev_at(c, idx);
    const struct sim_template *t = sim_template_find(d, v->template_name);
    if (t == NULL) return DCMI_ERR_INNER_ERR;
    uint32_t id = q->vdev_id;
    memset(q, 0, sizeof(*q));
    q->vdev_id = id;
    struct dcmi_vdev_query_info *info = &q->query_info;
    /* the query name field is 16 bytes; every template name fits (longest: 15) */
    memcpy(info->name, v->template_name, sizeof(info->name) - 1);
    info->status = 0;
    info->is_container_used = v->in_use;
    info->vfid = v->vfg_id + 1;
    info->vfg_id = v->vfg_id;
    info->container_id = v->container_id;
    info->base.vfg_id = v->vfg_id;
    info->computing.aic = (float)t->ai_cores;
    info->computing.aiv = (float)t->ai_cores * 2;
    info->computing.memory_size = sim_template_mem_mb(t, d);
    info->computing.device_aicpu = (unsigned short)t->ai_cpus;
    if (activity) {
        info->computing.vdev_aicore_utilization = v->aicore_util;
        info->computing.vdev_memory_total = info->computing.memory_size;
        info->computing.vdev_memory_free = info->computing.memory_size;
    }
    return DCMI_OK;
}

/*
 * Super-pod membership: A3 only (the driver answers -8255 elsewhere). Unless vnpu-sim-ctl spod set
 * it, an A3 host is server 0 of super-pod 1; sdid encodes super-pod, server and phy ID as the
 * driver's super device ID does (here simply server << 16 | phy).
 */
static int spod_info(const struct call *c, int idx, unsigned int sub_cmd, void *buf, unsigned int *size) {
    if (sub_cmd != DCMI_CHIP_INF_SUB_CMD_SPOD_INFO) return DCMI_ERR_NOT_SUPPORT;
    if (strncmp(dev_at(c, idx)->chip_name, "Ascend910", 9) != 0) return DCMI_ERR_NOT_SUPPORT;
    if (*size < sizeof(struct dcmi_spod_info)) return DCMI_ERR_INVALID_PARAMETER;
    struct dcmi_spod_info *info = buf;
    memset(info, 0, sizeof(*info));
    info->super_pod_id = c->snap.spod_set ? c->snap.super_pod_id : 1u;
    info->server_id = c->snap.spod_set ? c->snap.server_id : 0u;
    info->sdid = (info->server_id & 0xFFFFu) << 16 | (uint32_t)dev_at(c, idx)->phy_id;
    info->scale_type = 0;
    info->super_pod_type = 1;
    *size = sizeof(*info);
    return DCMI_OK;
}

int dcmi_get_device_info(int card_id, int device_id, enum dcmi_main_cmd main_cmd, unsigned int sub_cmd, void *buf,
                         unsigned int *size) {
    BEGIN(c);
    NOT_NULL(buf);
    NOT_NULL(size);
    DEVICE(c, idx, card_id, device_id);
    if (main_cmd == DCMI_MAIN_CMD_CHIP_INF) return spod_info(&c, idx, sub_cmd, buf, size);
    if (main_cmd != DCMI_MAIN_CMD_VDEV_MNG) return DCMI_ERR_NOT_SUPPORT;
    switch (sub_cmd) {
    case DCMI_VMNG_SUB_CMD_GET_VDEV_RESOURCE:
    case DCMI_VMNG_SUB_CMD_GET_VDEV_ACTIVITY: {
        if (*size < sizeof(struct dcmi_vdev_query_stru)) return DCMI_ERR_INVALID_PARAMETER;
        int rc = query_vdev(&c, idx, buf, sub_cmd == DCMI_VMNG_SUB_CMD_GET_VDEV_ACTIVITY);
        if (rc == 0) *size = sizeof(struct dcmi_vdev_query_stru);
        return rc;
    }
    case DCMI_VMNG_SUB_CMD_GET_TOTAL_RESOURCE: {
        if (*size < sizeof(struct dcmi_soc_total_resource)) return DCMI_ERR_INVALID_PARAMETER;
        struct dcmi_soc_total_resource *t = buf;
        memset(t, 0, sizeof(*t));
        const struct sim_chip *chip = &c.snap.chips[idx];
        /* vNPU IDs ascending, like the driver's table */
        for (uint32_t id = sim_vdev_base(dev_at(&c, idx)); id < sim_vdev_base(dev_at(&c, idx)) + 16; id++) {
            for (int i = 0; i < SIM_MAX_VDEV; i++) {
                if (chip->vdevs[i].id == id) {
                    t->vdev_id[t->vdev_num++] = id;
                    t->vfg_bitmap |= 1u << (chip->vdevs[i].vfg_id & 31);
                    t->vfg_num++;
                }
            }
        }
        fill_computing_total(&c, idx, &t->computing);
        *size = sizeof(*t);
        return DCMI_OK;
    }
    case DCMI_VMNG_SUB_CMD_GET_FREE_RESOURCE: {
        if (*size < sizeof(struct dcmi_soc_free_resource)) return DCMI_ERR_INVALID_PARAMETER;
        struct dcmi_soc_free_resource *f = buf;
        memset(f, 0, sizeof(*f));
        struct sim_free fr;
        sim_free_resources(dev_at(&c, idx), &c.snap.chips[idx], &fr);
        f->computing.aic = (float)fr.ai_cores;
        f->computing.aiv = (float)fr.ai_cores * 2;
        f->computing.memory_size = fr.mem_mb;
        f->computing.device_aicpu = (unsigned short)fr.ai_cpus;
        *size = sizeof(*f);
        return DCMI_OK;
    }
    default:
        return DCMI_ERR_NOT_SUPPORT;
    }
}

static int is_a3(const struct call *c) {
    return c->host.n > 0 && strncmp(c->host.devs[0].chip_name, "Ascend910", 9) == 0;
}

int dcmi_get_multi_die_policy(enum dcmi_multi_die_policy *policy) {
    BEGIN(c);
    NOT_NULL(policy);
    if (!is_a3(&c)) return DCMI_ERR_NOT_SUPPORT;
    *policy = (enum dcmi_multi_die_policy)c.snap.multi_die_policy;
    return DCMI_OK;
}

static int set_policy(struct sim_state *st, void *arg) {
    st->multi_die_policy = *(uint32_t *)arg;
    return DCMI_OK;
}

int dcmi_set_multi_die_policy(enum dcmi_multi_die_policy policy) {
    BEGIN(c);
    if (!is_a3(&c)) return DCMI_ERR_NOT_SUPPORT;
    if (policy != DCMI_MULTI_DIE_UNION && policy != DCMI_MULTI_DIE_INDEP) return DCMI_ERR_INVALID_PARAMETER;
    uint32_t p = (uint32_t)policy;
    return sim_with_state(&c.host, set_policy, &p);
}
