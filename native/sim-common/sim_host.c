/*
 * Built-in profiles of the simulated Ascend host (see include/vnpu_sim_host.h).
 *
 * Facts per chip follow the DCMI spec (sections 1.1, 2 and 7): AI Core / AI CPU counts from the
 * template tables, memory capacities as npu-smi reports them. Card IDs are deliberately not
 * 0..N-1 (real hosts show e.g. 0 and 64) so that callers cannot confuse card ID, logic ID and
 * phy ID.
 */
#include "vnpu_sim_host.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIB (1024ULL * 1024ULL)

struct chip_facts {
    const char *chip_name;
    uint64_t hbm_mib;
    uint32_t ai_cores;
    uint32_t ai_cpus;
};

struct profile {
    const char *name;
    const struct chip_facts *chip;
    int devices;                          /* chips on the host */
    int chips_per_card;
    int card_ids[VNPU_SIM_MAX_DEVICES];   /* one per card, in logic-ID order */
    int phy_ids[VNPU_SIM_MAX_DEVICES];    /* one per chip, in logic-ID order */
    /* dcmi_get_product_type per card, in card order; NULL = the product default of product_of() */
    const char *products[VNPU_SIM_MAX_DEVICES];
    uint32_t board_id; /* dcmi_board_info.board_id of every chip, 0 = the simulator's default by chip name */
};

static const struct chip_facts CHIP_910B3 = {"910B3", 65536, 20, 7};
static const struct chip_facts CHIP_910B4 = {"910B4", 32768, 20, 7};
static const struct chip_facts CHIP_910A = {"910ProB", 32768, 30, 14};
static const struct chip_facts CHIP_310P3 = {"310P3", 21527, 8, 7};
/* A3 (910C) dies: both SKUs report chip name "Ascend910"; the AI Core count tells them apart. */
static const struct chip_facts CHIP_A3 = {"Ascend910", 65536, 24, 6};       /* training, Ascend910A3-24 */
static const struct chip_facts CHIP_A3_INFER = {"Ascend910", 65536, 20, 7}; /* inference, Ascend910A3-20 */

static const struct profile PROFILES[] = {
    {"910B3x8", &CHIP_910B3, 8, 1, {0, 1, 2, 3, 8, 9, 10, 11}, {0, 1, 2, 3, 4, 5, 6, 7}, {NULL}, 0},
    {"910B4x8", &CHIP_910B4, 8, 1, {0, 1, 2, 3, 8, 9, 10, 11}, {0, 1, 2, 3, 4, 5, 6, 7}, {NULL}, 0},
    /* 910A hosts number phy IDs per PCIe switch: logic order differs from phy order. */
    {"910Ax8", &CHIP_910A, 8, 1, {0, 1, 2, 3, 4, 5, 6, 7}, {4, 5, 6, 7, 0, 1, 2, 3}, {NULL}, 0},
    {"310P3x4", &CHIP_310P3, 4, 1, {1, 3, 5, 7}, {0, 1, 2, 3}, {NULL}, 0},
    /* Mixed insertion: three single-chip 310P card models in one server (MindCluster
     * -use310PMixedInsert); only dcmi_get_product_type tells them apart. */
    {"310PMixedx4", &CHIP_310P3, 4, 1, {1, 3, 5, 7}, {0, 1, 2, 3},
     {"Atlas 300V Pro", "Atlas 300V", "Atlas 300I Pro", "Atlas 300V Pro"}, 0},
    /* Atlas 300I A2 inference cards (910B4, 32 GB; board ID 0x28): MindCluster labels the node
     * accelerator-type=card-910b-infer. */
    {"300IA2x4", &CHIP_910B4, 4, 1, {2, 4, 6, 8}, {0, 1, 2, 3}, {NULL}, 0x28},
    {"300IDuox2", &CHIP_310P3, 4, 2, {0, 64}, {0, 1, 2, 3}, {NULL}, 0},
    {"A3x8", &CHIP_A3, 16, 2, {0, 1, 2, 3, 4, 5, 6, 7},
     {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {NULL}, 0},
    {"A3Inferx8", &CHIP_A3_INFER, 16, 2, {0, 1, 2, 3, 4, 5, 6, 7},
     {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {NULL}, 0},
};

/* "910A x8", "300I-Duo x2" and "a3x8" name the same profiles as "910Ax8", "300IDuox2", "A3x8". */
static int same_name(const char *want, const char *have) {
    for (;;) {
        while (*want == ' ' || *want == '-' || *want == '_') want++;
        while (*have == ' ' || *have == '-' || *have == '_') have++;
        if (*want == '\0' || *have == '\0') return *want == *have;
        if (tolower((unsigned char)*want) != tolower((unsigned char)*have)) return 0;
        want++;
        have++;
    }
}

/*
 * What dcmi_get_product_type says when the profile does not name the card: 310P cards are
 * "Atlas 300I Duo" (two chips) or "Atlas 300I Pro"; server products (910 family) report none.
 */
static const char *product_of(const struct profile *p, int card_index) {
    if (p->products[card_index] != NULL) return p->products[card_index];
    if (strncmp(p->chip->chip_name, "310P", 4) != 0) return "";
    return p->chips_per_card == 2 ? "Atlas 300I Duo" : "Atlas 300I Pro";
}

/* 910-family chips have a parameter-plane (RoCE) port; hccn.conf-style 192.168.100.(101+phy). */
static void roce_ip_of(const struct profile *p, int phy_id, uint8_t ip[4]) {
    memset(ip, 0, 4);
    const char *name = p->chip->chip_name;
    if (strncmp(name, "910", 3) != 0 && strncmp(name, "Ascend910", 9) != 0) return;
    ip[0] = 192;
    ip[1] = 168;
    ip[2] = 100;
    ip[3] = (uint8_t)(101 + phy_id);
}

static const char *profile_name(void) {
    const char *env = getenv("VNPU_SIM_PROFILE");
    return env != NULL && env[0] != '\0' ? env : "910B3x8";
}

int vnpu_sim_host_devices(struct vnpu_sim_device_info *out, int max) {
    if (out == NULL && max != 0) return -EINVAL;
    const char *want = profile_name();
    const struct profile *p = NULL;
    for (size_t i = 0; i < sizeof(PROFILES) / sizeof(PROFILES[0]); i++) {
        if (same_name(want, PROFILES[i].name)) {
            p = &PROFILES[i];
            break;
        }
    }
    if (p == NULL) return -EINVAL;
    for (int i = 0; i < p->devices && i < max; i++) {
        struct vnpu_sim_device_info *d = &out[i];
        memset(d, 0, sizeof(*d));
        d->logic_id = i;
        d->phy_id = p->phy_ids[i];
        d->card_id = p->card_ids[i / p->chips_per_card];
        d->device_id = i % p->chips_per_card;
        snprintf(d->chip_type, sizeof(d->chip_type), "%s", "Ascend");
        snprintf(d->chip_name, sizeof(d->chip_name), "%s", p->chip->chip_name);
        d->hbm_bytes = p->chip->hbm_mib * MIB;
        d->ai_cores = p->chip->ai_cores;
        d->ai_cpus = p->chip->ai_cpus;
        snprintf(d->product_type, sizeof(d->product_type), "%s", product_of(p, i / p->chips_per_card));
        roce_ip_of(p, d->phy_id, d->roce_ip4);
        d->board_id = p->board_id;
    }
    return p->devices;
}

static int mkdir_p(char *path) {
    for (char *s = path + 1; *s != '\0'; s++) {
        if (*s != '/') continue;
        *s = '\0';
        int rc = mkdir(path, 0777);
        *s = '/';
        if (rc != 0 && errno != EEXIST) return -errno;
    }
    if (mkdir(path, 0777) == 0) {
        /* shared by every uid that runs a simulated process, as the header promises */
        if (chmod(path, 0777) != 0) return -errno;
        return 0;
    }
    if (errno != EEXIST) return -errno;
    struct stat st;
    if (stat(path, &st) != 0) return -errno;
    return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int vnpu_sim_host_root(char *buf, unsigned long len) {
    if (buf == NULL || len == 0) return -EINVAL;
    const char *env = getenv("VNPU_SIM_ROOT");
    int n;
    if (env != NULL && env[0] != '\0') {
        n = snprintf(buf, len, "%s", env);
    } else {
        n = snprintf(buf, len, "/tmp/vnpu-sim-%lu", (unsigned long)getuid());
    }
    if (n < 0 || (unsigned long)n >= len) return -ENAMETOOLONG;
    while (n > 1 && buf[n - 1] == '/') buf[--n] = '\0';
    return mkdir_p(buf);
}
