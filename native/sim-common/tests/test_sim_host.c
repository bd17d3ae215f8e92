/* Checks every built-in profile of the simulated host and the state-root contract. */
#include "vnpu_sim_host.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int failures;

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        if (!(cond)) {                                                    \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                 \
            fputc('\n', stderr);                                          \
            failures++;                                                   \
        }                                                                 \
    } while (0)

struct expect {
    const char *profile;
    int devices;
    const char *chip_name;
    uint64_t hbm_mib;
    uint32_t ai_cores, ai_cpus;
    int last_card_id, last_device_id, first_phy_id;
};

static const struct expect EXPECTED[] = {
    {"910B3x8", 8, "910B3", 65536, 20, 7, 11, 0, 0},
    {"910B4x8", 8, "910B4", 32768, 20, 7, 11, 0, 0},
    {"910Ax8", 8, "910ProB", 32768, 30, 14, 7, 0, 4},
    {"910A x8", 8, "910ProB", 32768, 30, 14, 7, 0, 4},
    {"310P3x4", 4, "310P3", 21527, 8, 7, 7, 0, 0},
    {"300IDuox2", 4, "310P3", 21527, 8, 7, 64, 1, 0},
    {"300I-Duo x2", 4, "310P3", 21527, 8, 7, 64, 1, 0},
    {"A3x8", 16, "Ascend910", 65536, 24, 6, 7, 1, 0},
    {"A3Inferx8", 16, "Ascend910", 65536, 20, 7, 7, 1, 0},
    {"310PMixedx4", 4, "310P3", 21527, 8, 7, 7, 0, 0},
    {"300IA2x4", 4, "910B4", 32768, 20, 7, 8, 0, 0},
};

static void check_profile(const struct expect *e) {
    struct vnpu_sim_device_info devs[VNPU_SIM_MAX_DEVICES];
    setenv("VNPU_SIM_PROFILE", e->profile, 1);
    int n = vnpu_sim_host_devices(devs, VNPU_SIM_MAX_DEVICES);
    CHECK(n == e->devices, "%s: %d devices", e->profile, n);
    if (n != e->devices) return;
    int seen_phy[64] = {0};
    for (int i = 0; i < n; i++) {
        CHECK(devs[i].logic_id == i, "%s: logic %d at %d", e->profile, devs[i].logic_id, i);
        CHECK(strcmp(devs[i].chip_type, "Ascend") == 0, "%s: type %s", e->profile, devs[i].chip_type);
        CHECK(strcmp(devs[i].chip_name, e->chip_name) == 0, "%s: name %s", e->profile, devs[i].chip_name);
        CHECK(devs[i].hbm_bytes == e->hbm_mib * 1024 * 1024, "%s: hbm %llu", e->profile,
              (unsigned long long)devs[i].hbm_bytes);
        CHECK(devs[i].ai_cores == e->ai_cores && devs[i].ai_cpus == e->ai_cpus, "%s: cores %u/%u",
              e->profile, devs[i].ai_cores, devs[i].ai_cpus);
        CHECK(devs[i].phy_id >= 0 && devs[i].phy_id < 64 && !seen_phy[devs[i].phy_id],
              "%s: phy %d", e->profile, devs[i].phy_id);
        if (devs[i].phy_id >= 0 && devs[i].phy_id < 64) seen_phy[devs[i].phy_id] = 1;
        if (i > 0) {
            int same_card = devs[i].card_id == devs[i - 1].card_id;
            CHECK(same_card ? devs[i].device_id == devs[i - 1].device_id + 1
                            : devs[i].card_id > devs[i - 1].card_id && devs[i].device_id == 0,
                  "%s: card/device order at %d", e->profile, i);
        }
    }
    CHECK(devs[0].phy_id == e->first_phy_id, "%s: first phy %d", e->profile, devs[0].phy_id);
    CHECK(devs[n - 1].card_id == e->last_card_id, "%s: last card %d", e->profile, devs[n - 1].card_id);
    CHECK(devs[n - 1].device_id == e->last_device_id, "%s: last device %d", e->profile,
          devs[n - 1].device_id);
    /* max smaller than the host: only max entries written, full count returned */
    struct vnpu_sim_device_info two[3];
    memset(two, 0x5a, sizeof(two));
    CHECK(vnpu_sim_host_devices(two, 2) == e->devices, "%s: count with max=2", e->profile);
    CHECK(((unsigned char *)&two[2])[0] == 0x5a, "%s: wrote past max", e->profile);
}

int main(void) {
    for (size_t i = 0; i < sizeof(EXPECTED) / sizeof(EXPECTED[0]); i++) check_profile(&EXPECTED[i]);

    struct vnpu_sim_device_info d;
    setenv("VNPU_SIM_PROFILE", "no-such-profile", 1);
    CHECK(vnpu_sim_host_devices(&d, 1) == -EINVAL, "unknown profile accepted");
    unsetenv("VNPU_SIM_PROFILE");
    CHECK(vnpu_sim_host_devices(&d, 1) == 8 && strcmp(d.chip_name, "910B3") == 0, "default profile");

    /* product types and RoCE addresses */
    struct vnpu_sim_device_info devs[VNPU_SIM_MAX_DEVICES];
    setenv("VNPU_SIM_PROFILE", "310PMixedx4", 1);
    CHECK(vnpu_sim_host_devices(devs, VNPU_SIM_MAX_DEVICES) == 4, "mixed count");
    static const char *const MIXED[] = {"Atlas 300V Pro", "Atlas 300V", "Atlas 300I Pro", "Atlas 300V Pro"};
    for (int i = 0; i < 4; i++) {
        CHECK(strcmp(devs[i].product_type, MIXED[i]) == 0, "mixed product %d: %s", i, devs[i].product_type);
        CHECK(devs[i].roce_ip4[0] == 0 && devs[i].roce_ip4[3] == 0, "310P has no RoCE address");
    }
    setenv("VNPU_SIM_PROFILE", "300IDuox2", 1);
    CHECK(vnpu_sim_host_devices(devs, VNPU_SIM_MAX_DEVICES) == 4 && strcmp(devs[3].product_type, "Atlas 300I Duo") == 0,
          "duo product %s", devs[3].product_type);
    setenv("VNPU_SIM_PROFILE", "910Ax8", 1);
    CHECK(vnpu_sim_host_devices(devs, VNPU_SIM_MAX_DEVICES) == 8 && devs[0].product_type[0] == '\0', "server product");
    CHECK(devs[0].roce_ip4[0] == 192 && devs[0].roce_ip4[1] == 168 && devs[0].roce_ip4[2] == 100 &&
              devs[0].roce_ip4[3] == 105,
          "910A logic 0 (phy 4) RoCE %u.%u.%u.%u", devs[0].roce_ip4[0], devs[0].roce_ip4[1], devs[0].roce_ip4[2],
          devs[0].roce_ip4[3]);
    CHECK(devs[0].board_id == 0, "910A board by chip name");
    setenv("VNPU_SIM_PROFILE", "300IA2x4", 1);
    CHECK(vnpu_sim_host_devices(devs, VNPU_SIM_MAX_DEVICES) == 4 && devs[3].board_id == 0x28, "300I A2 board");
    unsetenv("VNPU_SIM_PROFILE");

    const char *tmp = getenv("VNPU_TEST_TMP");
    char want[512], root[512];
    snprintf(want, sizeof(want), "%s/a/b/root", tmp != NULL ? tmp : "/tmp");
    setenv("VNPU_SIM_ROOT", want, 1);
    CHECK(vnpu_sim_host_root(root, sizeof(root)) == 0, "root create");
    CHECK(strcmp(root, want) == 0, "root %s", root);
    struct stat st;
    CHECK(stat(root, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0777, "root mode");
    CHECK(vnpu_sim_host_root(root, sizeof(root)) == 0, "root exists already");
    CHECK(vnpu_sim_host_root(root, 4) == -ENAMETOOLONG, "short buffer");

    if (failures == 0) printf("sim_host: all checks passed\n");
    return failures == 0 ? 0 : 1;
}
