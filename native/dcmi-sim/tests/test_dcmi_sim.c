/* Native tests of the simulated libdcmi.so through its public API (linked like a real client). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "dcmi_interface_api.h"

static int failures;
static char g_build[512];
static char g_root[600];

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);  \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
            failures++;                                                      \
        }                                                                    \
    } while (0)

static int ctl(const char *args) {
    char cmd[1200];
    snprintf(cmd, sizeof(cmd), "'%s/vnpu-sim-ctl' %s >/dev/null", g_build, args);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void use_profile(const char *profile, const char *root_name) {
    setenv("VNPU_SIM_PROFILE", profile, 1);
    snprintf(g_root, sizeof(g_root), "%s/%s", getenv("VNPU_TEST_TMP"), root_name);
    setenv("VNPU_SIM_ROOT", g_root, 1);
    CHECK(dcmi_init() == 0, "init %s", profile);
}

struct expect {
    const char *profile;
    int cards, chips_per_card;
    const char *chip;
    unsigned aic;
    int hbm; /* 1 when dcmi_get_device_hbm_info works */
};

static void discovery(const struct expect *e) {
    use_profile(e->profile, e->profile);
    int cards[64], n = -1;
    CHECK(dcmi_get_card_list(&n, cards, 64) == 0 && n == e->cards, "%s card count %d", e->profile, n);
    int logic_seen = 0;
    for (int i = 0; i < n; i++) {
        int dn = 0;
        CHECK(dcmi_get_device_num_in_card(cards[i], &dn) == 0 && dn == e->chips_per_card, "%s chips in card %d: %d",
              e->profile, cards[i], dn);
        for (int d = 0; d < dn; d++) {
            int logic = -1, card2 = -1, dev2 = -1;
            unsigned phy = 0, logic2 = 99;
            CHECK(dcmi_get_device_logic_id(&logic, cards[i], d) == 0 && logic == logic_seen, "%s logic %d",
                  e->profile, logic);
            logic_seen++;
            CHECK(dcmi_get_card_id_device_id_from_logicid(&card2, &dev2, (unsigned)logic) == 0 && card2 == cards[i] &&
                      dev2 == d,
                  "%s card/dev of logic %d", e->profile, logic);
            CHECK(dcmi_get_device_phyid_from_logicid((unsigned)logic, &phy) == 0, "phy");
            CHECK(dcmi_get_device_logicid_from_phyid(phy, &logic2) == 0 && (int)logic2 == logic, "%s phy %u->%u",
                  e->profile, phy, logic2);
            struct dcmi_chip_info_v2 ci;
            CHECK(dcmi_get_device_chip_info_v2(cards[i], d, &ci) == 0 && strcmp((char *)ci.chip_name, e->chip) == 0 &&
                      ci.aicore_cnt == e->aic && strcmp((char *)ci.chip_type, "Ascend") == 0,
                  "%s chip info %s", e->profile, ci.chip_name);
            struct dcmi_hbm_info hbm;
            int rc = dcmi_get_device_hbm_info(cards[i], d, &hbm);
            CHECK(e->hbm ? rc == 0 && hbm.memory_size > 0 : rc == DCMI_ERR_NOT_SUPPORT, "%s hbm rc %d", e->profile,
                  rc);
            struct dcmi_die_id die;
            CHECK(dcmi_get_device_die_v2(cards[i], d, VDIE, &die) == 0, "die");
            unsigned health = 9;
            CHECK(dcmi_get_device_health(cards[i], d, &health) == 0 && health == 0, "%s health %u", e->profile,
                  health);
        }
    }
    int bad = 0;
    CHECK(dcmi_get_device_num_in_card(63, &bad) == DCMI_ERR_INVALID_DEVICE_ID, "unknown card");
    CHECK(dcmi_get_device_health(cards[0], 3, NULL) == DCMI_ERR_INVALID_PARAMETER ||
              dcmi_get_device_health(cards[0], 3, NULL) == DCMI_ERR_INVALID_DEVICE_ID,
          "bad args");
}

static int create(int card, int dev, const char *tmpl, unsigned *id) {
    struct dcmi_create_vdev_res_stru in;
    struct dcmi_create_vdev_out out;
    memset(&in, 0, sizeof(in));
    in.vdev_id = DCMI_VDEV_ID_AUTO;
    in.vfg_id = DCMI_VDEV_ID_AUTO;
    snprintf(in.template_name, sizeof(in.template_name), "%s", tmpl);
    int rc = dcmi_create_vdevice(card, dev, &in, &out);
    if (rc == 0) *id = out.vdev_id;
    return rc;
}

/* The two A3 SKUs share the chip name "Ascend910"; each die accepts only its own SKU's templates. */
static void a3_templates(void) {
    unsigned id = 0;
    use_profile("A3Inferx8", "a3-infer");
    CHECK(create(0, 1, "vir05_1c_16g", &id) == 0 && id == 116, "A3 inference vir05_1c_16g: id %u", id);
    CHECK(create(0, 1, "vir10_3c_32g", &id) == 0 && id == 117, "A3 inference vir10_3c_32g: id %u", id);
    CHECK(create(0, 1, "vir06_1c_16g", &id) == DCMI_ERR_INVALID_PARAMETER, "A3 inference took a training template");
    use_profile("A3x8", "a3-train");
    CHECK(create(0, 1, "vir05_1c_16g", &id) == DCMI_ERR_INVALID_PARAMETER, "A3 training took an inference template");
    CHECK(create(0, 1, "vir12_3c_32g", &id) == 0 && id == 116, "A3 training vir12_3c_32g: id %u", id);
}

static void vnpu_lifecycle(void) {
    use_profile("910B3x8", "vnpu");
    /* logic 4 = card 8 (non-contiguous), phy 4: vNPU IDs from 4*16+100 = 164 */
    unsigned ids[5] = {0};
    for (int i = 0; i < 4; i++) CHECK(create(8, 0, "vir05_1c_16g", &ids[i]) == 0 && ids[i] == 164u + i, "id %u", ids[i]);
    CHECK(create(8, 0, "vir05_1c_16g", &ids[4]) == DCMI_ERR_RESOURCE_OCCUPIED, "exhausted chip accepted a vNPU");
    CHECK(create(8, 0, "vir03_1c_8g", &ids[4]) == DCMI_ERR_INVALID_PARAMETER, "foreign template accepted");

    struct dcmi_soc_free_resource fr;
    unsigned size = sizeof(fr);
    CHECK(dcmi_get_device_info(8, 0, DCMI_MAIN_CMD_VDEV_MNG, DCMI_VMNG_SUB_CMD_GET_FREE_RESOURCE, &fr, &size) == 0 &&
              fr.computing.aic == 0.0f && fr.computing.memory_size == 0,
          "free after 4 vNPUs: %f", fr.computing.aic);

    /* destroy frees; ID reuse is lowest-first */
    CHECK(dcmi_set_destroy_vdevice(8, 0, 165) == 0, "destroy 165");
    CHECK(dcmi_set_destroy_vdevice(8, 0, 164) == 0, "destroy 164");
    size = sizeof(fr);
    CHECK(dcmi_get_device_info(8, 0, DCMI_MAIN_CMD_VDEV_MNG, DCMI_VMNG_SUB_CMD_GET_FREE_RESOURCE, &fr, &size) == 0 &&
              fr.computing.aic == 10.0f && fr.computing.memory_size == 32768 && fr.computing.device_aicpu == 5,
          "free after destroy: %f %llu", fr.computing.aic, (unsigned long long)fr.computing.memory_size);
    unsigned id = 0;
    CHECK(create(8, 0, "vir05_1c_16g", &id) == 0 && id == 164, "reuse lowest: %u", id);

    /* in use: -8020 */
    CHECK(ctl("use 4 166 1") == 0, "ctl use");
    CHECK(dcmi_set_destroy_vdevice(8, 0, 166) == DCMI_ERR_RESOURCE_OCCUPIED, "destroyed an in-use vNPU");
    struct dcmi_vdev_query_stru q;
    memset(&q, 0, sizeof(q));
    q.vdev_id = 166;
    size = sizeof(q);
    CHECK(dcmi_get_device_info(8, 0, DCMI_MAIN_CMD_VDEV_MNG, DCMI_VMNG_SUB_CMD_GET_VDEV_RESOURCE, &q, &size) == 0 &&
              strcmp(q.query_info.name, "vir05_1c_16g") == 0 && q.query_info.is_container_used == 1 &&
              q.query_info.computing.aic == 5.0f && q.query_info.computing.memory_size == 16384,
          "query 166: %s used=%u", q.query_info.name, q.query_info.is_container_used);
    CHECK(ctl("use 4 166 0") == 0, "ctl unuse");
    CHECK(dcmi_set_destroy_vdevice(8, 0, 166) == 0, "destroy after release");
    CHECK(dcmi_set_destroy_vdevice(8, 0, 166) == DCMI_ERR_INVALID_DEVICE_ID, "double destroy");
    char node[700];
    snprintf(node, sizeof(node), "%s/dev/vdavinci164", g_root);
    CHECK(access(node, F_OK) == 0, "device node %s", node);
    snprintf(node, sizeof(node), "%s/dev/vdavinci166", g_root);
    CHECK(access(node, F_OK) != 0, "device node %s left after destroy", node);

    struct dcmi_soc_total_resource tot;
    size = sizeof(tot);
    CHECK(dcmi_get_device_info(8, 0, DCMI_MAIN_CMD_VDEV_MNG, DCMI_VMNG_SUB_CMD_GET_TOTAL_RESOURCE, &tot, &size) == 0 &&
              tot.vdev_num == 2 && tot.vdev_id[0] == 164 && tot.vdev_id[1] == 167 && tot.computing.aic == 20.0f,
          "total: num=%u", tot.vdev_num);
    size = 8;
    CHECK(dcmi_get_device_info(8, 0, DCMI_MAIN_CMD_VDEV_MNG, DCMI_VMNG_SUB_CMD_GET_TOTAL_RESOURCE, &tot, &size) ==
              DCMI_ERR_INVALID_PARAMETER,
          "short buffer accepted");
}

/* Each node is what a runtime accepts: a character device with /dev/null's numbers (as root). */
static void check_node(const char *name) {
    char path[700];
    snprintf(path, sizeof(path), "%s/dev/%s", g_root, name);
    struct stat st, null_st;
    CHECK(lstat(path, &st) == 0, "no device node %s", path);
    CHECK(stat("/dev/null", &null_st) == 0, "stat /dev/null");
    if (geteuid() == 0) {
        CHECK(S_ISCHR(st.st_mode) && st.st_rdev == null_st.st_rdev && (st.st_mode & 0777) == 0666,
              "%s: mode %o rdev %lx", path, (unsigned)st.st_mode, (unsigned long)st.st_rdev);
    } else {
        CHECK(S_ISREG(st.st_mode), "%s: mode %o (not root: an empty file stands in)", path, (unsigned)st.st_mode);
    }
}

static void device_nodes(void) {
    use_profile("910B3x8", "nodes");
    check_node("davinci_manager");
    check_node("devmm_svm");
    check_node("hisi_hdc");
    for (int phy = 0; phy < 8; phy++) {
        char name[32];
        snprintf(name, sizeof(name), "davinci%d", phy);
        check_node(name);
    }
    /* a stand-in left by a run without CAP_MKNOD becomes a device node on the next dcmi_init */
    char path[700];
    snprintf(path, sizeof(path), "%s/dev/davinci2", g_root);
    CHECK(unlink(path) == 0, "unlink %s", path);
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    CHECK(fd >= 0, "create %s", path);
    if (fd >= 0) close(fd);
    CHECK(dcmi_init() == 0, "init again");
    check_node("davinci2");
    /* vnpu-sim-ctl creates and removes the node of a vNPU like the library */
    char out[64] = "";
    char cmd[1200];
    snprintf(cmd, sizeof(cmd), "'%s/vnpu-sim-ctl' create 1 vir05_1c_16g", g_build);
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL && fgets(out, sizeof(out), p) != NULL, "ctl create");
    if (p != NULL) pclose(p);
    char name[40];
    snprintf(name, sizeof(name), "vdavinci%ld", strtol(out, NULL, 10));
    check_node(name);
    snprintf(cmd, sizeof(cmd), "destroy 1 %ld", strtol(out, NULL, 10));
    CHECK(ctl(cmd) == 0, "ctl destroy");
    snprintf(path, sizeof(path), "%s/dev/%s", g_root, name);
    CHECK(access(path, F_OK) != 0, "%s left after ctl destroy", path);
}

static void two_processes(void) {
    use_profile("310P3x4", "shared");
    pid_t pid = fork();
    if (pid == 0) {
        /* a second process: its own init, creates a vNPU on card 3 */
        unsigned id = 0;
        int ok = dcmi_init() == 0 && create(3, 0, "vir04", &id) == 0 && id == 116;
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child create");
    struct dcmi_soc_total_resource tot;
    unsigned size = sizeof(tot);
    CHECK(dcmi_get_device_info(3, 0, DCMI_MAIN_CMD_VDEV_MNG, DCMI_VMNG_SUB_CMD_GET_TOTAL_RESOURCE, &tot, &size) == 0 &&
              tot.vdev_num == 1 && tot.vdev_id[0] == 116,
          "parent sees child's vNPU: %u", tot.vdev_num);
}

/* Eight processes race for a chip that holds four vir05_1c_16g: the state lock admits exactly four. */
static void concurrent_creates(void) {
    use_profile("910B3x8", "race");
    pid_t kids[8];
    for (int i = 0; i < 8; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            unsigned id = 0;
            if (dcmi_init() != 0) _exit(3);
            int rc = create(9, 0, "vir05_1c_16g", &id);
            _exit(rc == 0 ? 0 : rc == DCMI_ERR_RESOURCE_OCCUPIED ? 1 : 2);
        }
    }
    int ok = 0, full = 0, other = 0;
    for (int i = 0; i < 8; i++) {
        int st = 0;
        waitpid(kids[i], &st, 0);
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : 9;
        ok += code == 0;
        full += code == 1;
        other += code > 1;
    }
    CHECK(ok == 4 && full == 4 && other == 0, "race: %d created, %d rejected, %d errors", ok, full, other);
    struct dcmi_soc_total_resource tot;
    unsigned size = sizeof(tot);
    CHECK(dcmi_get_device_info(9, 0, DCMI_MAIN_CMD_VDEV_MNG, DCMI_VMNG_SUB_CMD_GET_TOTAL_RESOURCE, &tot, &size) == 0 &&
              tot.vdev_num == 4 && tot.vdev_id[0] == 180 && tot.vdev_id[3] == 183,
          "race result: %u vNPUs", tot.vdev_num);
}

static long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void knobs(void) {
    use_profile("310P3x4", "knobs");
    CHECK(ctl("latency 40") == 0, "ctl latency");
    unsigned health = 9;
    long t0 = now_ms();
    CHECK(dcmi_get_device_health(1, 0, &health) == 0, "health with latency");
    CHECK(now_ms() - t0 >= 40, "latency knob not applied: %ld ms", now_ms() - t0);
    CHECK(ctl("latency 0") == 0, "ctl latency 0");
    setenv("VNPU_SIM_DCMI_INIT_FAIL", "-8005", 1);
    CHECK(dcmi_init() == DCMI_ERR_INNER_ERR, "env init failure");
    unsetenv("VNPU_SIM_DCMI_INIT_FAIL");
    CHECK(dcmi_init() == 0, "init after env knob");
    setenv("VNPU_SIM_PROFILE", "H100x8", 1);
    CHECK(dcmi_init() == DCMI_ERR_INNER_ERR, "unknown profile");
    setenv("VNPU_SIM_PROFILE", "310P3x4", 1);
}

static void faults(void) {
    use_profile("A3x8", "faults");
    unsigned health = 0;
    int count = -1;
    unsigned codes[128];
    CHECK(ctl("fault 3 0x80E01801") == 0, "ctl fault");
    CHECK(dcmi_get_device_health(1, 1, &health) == 0 && health == 2, "health after fault %u", health);
    CHECK(dcmi_get_device_errorcode_v2(1, 1, &count, codes, 128) == 0 && count == 1 && codes[0] == 0x80E01801u,
          "codes %d", count);
    CHECK(ctl("clear 3") == 0, "ctl clear");
    CHECK(dcmi_get_device_health(1, 1, &health) == 0 && health == 0, "health after clear %u", health);
    CHECK(ctl("drop 2") == 0, "ctl drop");
    CHECK(dcmi_get_device_health(1, 0, &health) == DCMI_ERR_NOT_READY, "dropped die 0");
    CHECK(dcmi_get_device_health(1, 1, &health) == DCMI_ERR_NOT_READY, "dropped die 1 (same card)");
    CHECK(dcmi_get_device_health(2, 0, &health) == 0, "other card");
    CHECK(ctl("restore 2") == 0, "ctl restore");
    CHECK(dcmi_get_device_health(1, 0, &health) == 0, "restored");

    CHECK(ctl("init-fail -8005") == 0, "ctl init-fail");
    CHECK(dcmi_init() == DCMI_ERR_INNER_ERR, "init should fail");
    CHECK(ctl("init-fail 0") == 0, "ctl init-fail 0");
    CHECK(dcmi_init() == 0, "init again");

    CHECK(ctl("late-cards 2") == 0, "ctl late-cards");
    int cards[64], n = -1;
    CHECK(dcmi_get_card_list(&n, cards, 64) == 0 && n == 0, "late 1: %d", n);
    CHECK(dcmi_get_card_num_list(&n, cards, 64) == 0 && n == 0, "late 2: %d", n);
    CHECK(dcmi_get_card_list(&n, cards, 64) == 0 && n == 8, "cards back: %d", n);
    CHECK(dcmi_get_card_list(&n, cards, 3) == 0 && n == 3 && cards[2] == 2, "list_len honoured: %d", n);
    CHECK(ctl("bogus") == 2 && ctl("fault 99 1") == 2, "ctl usage errors");
}

static void hbm_used(void) {
    use_profile("910B4x8", "hbm");
    char path[700];
    snprintf(path, sizeof(path), "%s/hbm.bin", g_root);
    int fd = open(path, O_RDWR | O_CREAT, 0666);
    CHECK(fd >= 0 && ftruncate(fd, 16 * 8) == 0, "hbm.bin");
    uint64_t *c = mmap(NULL, 16 * 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(c != MAP_FAILED, "map");
    if (c == MAP_FAILED) return;
    __atomic_store_n(&c[2], 3000ULL * 1024 * 1024, __ATOMIC_RELEASE);
    struct dcmi_hbm_info h;
    CHECK(dcmi_get_device_hbm_info(2, 0, &h) == 0 && h.memory_size == 32768 && h.memory_usage == 3000,
          "hbm %llu/%llu", (unsigned long long)h.memory_usage, (unsigned long long)h.memory_size);
    CHECK(dcmi_get_device_hbm_info(3, 0, &h) == 0 && h.memory_usage == 0, "other chip");
    munmap(c, 16 * 8);
    close(fd);
}

/* ---- fault events, link, reset, processes ---- */

static pthread_mutex_t g_ev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dcmi_dms_fault_event g_ev[16];
static int g_nev;

/* dcmi_get_device_ip: profile IPv4 on 910, none on 310P, operator-set IPv6, and the product types. */
static void device_ip_and_product(void) {
    use_profile("910B3x8", "ip");
    CHECK(ctl("reset") == 0, "ctl reset");
    struct dcmi_ip_addr ip, mask;
    memset(&ip, 0, sizeof(ip));
    CHECK(dcmi_get_device_ip(8, 0, DCMI_ROCE_PORT, 0, &ip, &mask) == 0, "v4 of card 8 (phy 4)");
    CHECK(ip.ip_type == DCMI_IPADDR_TYPE_V4 && ip.u_addr.ip4[0] == 192 && ip.u_addr.ip4[1] == 168 &&
              ip.u_addr.ip4[2] == 100 && ip.u_addr.ip4[3] == 105 && mask.u_addr.ip4[0] == 255 && mask.u_addr.ip4[3] == 0,
          "v4 %u.%u.%u.%u", ip.u_addr.ip4[0], ip.u_addr.ip4[1], ip.u_addr.ip4[2], ip.u_addr.ip4[3]);
    memset(&ip, 0, sizeof(ip));
    ip.ip_type = DCMI_IPADDR_TYPE_V6;
    CHECK(dcmi_get_device_ip(8, 0, DCMI_ROCE_PORT, 0, &ip, &mask) == DCMI_ERR_NOT_SUPPORT, "no v6 by default");
    CHECK(dcmi_get_device_ip(8, 0, DCMI_ROCE_PORT, 0, NULL, &mask) == DCMI_ERR_INVALID_PARAMETER, "NULL ip");
    CHECK(dcmi_get_device_ip(8, 0, DCMI_ROCE_PORT, -1, &ip, &mask) == DCMI_ERR_INVALID_PARAMETER, "port -1");
    CHECK(dcmi_get_device_ip(63, 0, DCMI_ROCE_PORT, 0, &ip, &mask) == DCMI_ERR_INVALID_DEVICE_ID, "unknown card");
    CHECK(ctl("ip 4 fd00::5") == 0, "ctl ip v6");
    memset(&ip, 0, sizeof(ip));
    ip.ip_type = DCMI_IPADDR_TYPE_V6;
    CHECK(dcmi_get_device_ip(8, 0, DCMI_ROCE_PORT, 0, &ip, &mask) == 0 && ip.ip_type == DCMI_IPADDR_TYPE_V6 &&
              ip.u_addr.ip6[0] == 0xfd && ip.u_addr.ip6[15] == 5 && mask.u_addr.ip6[7] == 0xff && mask.u_addr.ip6[8] == 0,
          "v6 set by ctl");
    memset(&ip, 0, sizeof(ip));
    CHECK(dcmi_get_device_ip(8, 0, DCMI_ROCE_PORT, 0, &ip, &mask) == DCMI_ERR_NOT_SUPPORT, "v4 gone with v6 set");
    CHECK(ctl("ip 4 none") == 0 && dcmi_get_device_ip(8, 0, DCMI_ROCE_PORT, 0, &ip, &mask) == DCMI_ERR_NOT_SUPPORT,
          "none");
    CHECK(ctl("ip 4 profile") == 0 && dcmi_get_device_ip(8, 0, DCMI_ROCE_PORT, 0, &ip, &mask) == 0 &&
              ip.u_addr.ip4[3] == 105,
          "profile again");
    CHECK(ctl("ip 4 not-an-address") == 1, "bad address accepted");
    char product[64];
    CHECK(dcmi_get_product_type(8, 0, product, sizeof(product)) == DCMI_ERR_NOT_SUPPORT, "server has no product");

    use_profile("310PMixedx4", "mixed");
    memset(&ip, 0, sizeof(ip));
    CHECK(dcmi_get_device_ip(1, 0, DCMI_ROCE_PORT, 0, &ip, &mask) == DCMI_ERR_NOT_SUPPORT, "310P has no RoCE");
    static const char *const WANT[] = {"Atlas 300V Pro", "Atlas 300V", "Atlas 300I Pro", "Atlas 300V Pro"};
    static const int CARDS[] = {1, 3, 5, 7};
    for (int i = 0; i < 4; i++) {
        CHECK(dcmi_get_product_type(CARDS[i], 0, product, sizeof(product)) == 0 && strcmp(product, WANT[i]) == 0,
              "card %d product %s", CARDS[i], product);
    }
    CHECK(dcmi_get_product_type(1, 0, product, 8) == DCMI_ERR_INVALID_PARAMETER, "short buffer");

    use_profile("300IA2x4", "a2");
    struct dcmi_board_info board;
    CHECK(dcmi_get_device_board_info(8, 0, &board) == 0 && board.board_id == 0x28, "300I A2 board 0x%x", board.board_id);
}

static void on_event(struct dcmi_event *e) {
    pthread_mutex_lock(&g_ev_lock);
    if (e->type == DCMI_DMS_FAULT_EVENT && g_nev < 16) g_ev[g_nev++] = e->event_t.dms_event;
    pthread_mutex_unlock(&g_ev_lock);
}

static int events_seen(void) {
    pthread_mutex_lock(&g_ev_lock);
    int n = g_nev;
    pthread_mutex_unlock(&g_ev_lock);
    return n;
}

/* Waits (bounded: 5 s) until n events arrived. */
static int wait_events(int n) {
    for (int i = 0; i < 500 && events_seen() < n; i++) usleep(10000);
    return events_seen() >= n;
}

static unsigned boot_status(int card, int dev) {
    enum dcmi_boot_status st = DCMI_BOOT_STATUS_UNINIT;
    if (dcmi_get_device_boot_status(card, dev, &st) != 0) return 999;
    return (unsigned)st;
}

static void fault_events_and_reset(void) {
    struct dcmi_event_filter all;
    memset(&all, 0, sizeof(all));
    use_profile("310P3x4", "events-310p");
    CHECK(dcmi_subscribe_fault_event(-1, -1, all, on_event) == DCMI_ERR_NOT_SUPPORT, "310P has no subscription");

    use_profile("910B3x8", "events");
    CHECK(ctl("fault 1 0x80E01801") == 0, "fault before subscribing is not replayed");
    CHECK(dcmi_subscribe_fault_event(-1, -1, all, on_event) == 0, "subscribe");
    CHECK(dcmi_subscribe_fault_event(3, 0, all, NULL) == DCMI_ERR_INVALID_PARAMETER, "NULL handler");
    CHECK(ctl("event 5 0x80E18005 1 3") == 0, "ctl event occur (logic 5 = card 9)");
    CHECK(wait_events(1), "occur event delivered");
    int count = -1;
    unsigned codes[128];
    CHECK(dcmi_get_device_errorcode_v2(9, 0, &count, codes, 128) == 0 && count == 1 && codes[0] == 0x80E18005u,
          "event code listed: %d", count);
    CHECK(ctl("event 5 0x80E18005 0") == 0 && wait_events(2), "recover event delivered");
    CHECK(dcmi_get_device_errorcode_v2(9, 0, &count, codes, 128) == 0 && count == 0, "recovered code gone");
    CHECK(ctl("event 6 0x8C2FA009 2 0") == 0 && wait_events(3), "one-shot event delivered");
    pthread_mutex_lock(&g_ev_lock);
    CHECK(g_nev == 3, "exactly 3 events, got %d", g_nev);
    CHECK(g_ev[0].event_id == 0x80E18005u && g_ev[0].deviceid == 5 && g_ev[0].assertion == 1 && g_ev[0].severity == 3,
          "occur fields %x %u %u %u", g_ev[0].event_id, g_ev[0].deviceid, g_ev[0].assertion, g_ev[0].severity);
    CHECK(g_ev[0].alarm_raised_time > 1700000000ull, "raised time %llu", (unsigned long long)g_ev[0].alarm_raised_time);
    CHECK(g_ev[1].assertion == 0 && g_ev[2].assertion == 2 && g_ev[2].event_id == 0x8C2FA009u, "recover/one-shot");
    pthread_mutex_unlock(&g_ev_lock);
    CHECK(dcmi_get_device_errorcode_v2(10, 0, &count, codes, 128) == 0 && count == 0, "one-shot not kept active");

    enum dcmi_rdfx_detect_result net = DCMI_RDFX_DETECT_MAX;
    CHECK(dcmi_get_device_network_health(2, 0, &net) == 0 && net == DCMI_RDFX_DETECT_OK, "link up: %d", net);
    CHECK(ctl("link 2 down") == 0, "ctl link down");
    CHECK(dcmi_get_device_network_health(2, 0, &net) == 0 && net == DCMI_RDFX_DETECT_UNREACH, "link down: %d", net);
    CHECK(ctl("link 2 sideways") == 2, "link usage");

    /* reset: refused while a process uses the chip, fails on demand, then boots through 0..3 to 16 */
    struct dcmi_proc_mem_info procs[32];
    int nproc = -1;
    CHECK(ctl("proc 2 4242 1048576") == 0, "ctl proc");
    CHECK(dcmi_get_device_resource_info(2, 0, procs, &nproc) == 0 && nproc == 1 && procs[0].proc_id == 4242 &&
              procs[0].proc_mem_usage == 1048576ul,
          "process listed: %d", nproc);
    CHECK(ctl("fault 2 0x40F84E00") == 0, "fault on chip 2");
    CHECK(dcmi_set_device_reset(2, 0, INBAND_CHANNEL) == DCMI_ERR_RESOURCE_OCCUPIED, "busy chip not reset");
    CHECK(ctl("proc-clear 2") == 0, "ctl proc-clear");
    CHECK(ctl("reset-fail 2 1") == 0, "ctl reset-fail");
    CHECK(dcmi_set_device_reset(2, 0, INBAND_CHANNEL) == DCMI_ERR_RESET_FAIL, "failing reset");
    CHECK(dcmi_set_device_reset(2, 0, (enum dcmi_reset_channel)7) == DCMI_ERR_INVALID_PARAMETER, "bad channel");
    CHECK(ctl("boot-ms 2000") == 0, "ctl boot-ms");
    CHECK(dcmi_set_device_reset(2, 0, INBAND_CHANNEL) == 0, "reset");
    CHECK(boot_status(2, 0) < 4, "booting right after the reset: %u", boot_status(2, 0));
    CHECK(dcmi_get_device_network_health(2, 0, &net) == 0 && net == DCMI_RDFX_DETECT_INIT, "network initialising");
    CHECK(dcmi_get_device_errorcode_v2(2, 0, &count, codes, 128) == 0 && count == 0, "reset cleared the faults");
    unsigned last = 0;
    int monotonic = 1;
    for (int i = 0; i < 400 && last != DCMI_SYSTEM_START_FINISH; i++) {
        unsigned st = boot_status(2, 0);
        if (st < last) monotonic = 0;
        last = st;
        usleep(10000);
    }
    CHECK(last == DCMI_SYSTEM_START_FINISH && monotonic, "booted: %u", last);
    CHECK(dcmi_get_device_network_health(2, 0, &net) == 0 && net == DCMI_RDFX_DETECT_OK, "link up after reset");
    CHECK(ctl("reset-hang 3 1") == 0 && ctl("boot-ms 50") == 0, "ctl reset-hang");
    CHECK(dcmi_set_device_reset(3, 0, INBAND_CHANNEL) == 0, "reset of a chip that will hang");
    usleep(100000);
    CHECK(boot_status(3, 0) == DCMI_BOOT_STATUS_BIOS, "hung in BIOS: %u", boot_status(3, 0));
    CHECK(boot_status(1, 0) == DCMI_SYSTEM_START_FINISH, "other chips untouched");

    /* Atlas 300I Duo: a reset of device 0 resets both chips of the card */
    use_profile("300I-Duo x2", "duo");
    CHECK(ctl("boot-ms 5000") == 0, "ctl boot-ms duo");
    CHECK(dcmi_set_device_reset(64, 0, INBAND_CHANNEL) == 0, "reset duo card");
    CHECK(boot_status(64, 0) < 4 && boot_status(64, 1) < 4, "both chips reboot");
    CHECK(boot_status(0, 0) == DCMI_SYSTEM_START_FINISH, "other card untouched");
}

int main(void) {
    const char *b = getenv("VNPU_NATIVE_BUILD");
    const char *tmp = getenv("VNPU_TEST_TMP");
    if (b == NULL || tmp == NULL) {
        fprintf(stderr, "needs VNPU_NATIVE_BUILD and VNPU_TEST_TMP\n");
        return 2;
    }
    snprintf(g_build, sizeof(g_build), "%s", b);
    unsetenv("VNPU_SIM_DCMI_INIT_FAIL");
    unsetenv("VNPU_SIM_DCMI_LATENCY_MS");
    int n = 0;
    CHECK(dcmi_get_card_list(&n, &n, 1) == DCMI_ERR_INNER_ERR, "call before init must fail");
    static const struct expect E[] = {
        {"910B3x8", 8, 1, "910B3", 20, 1}, {"910B4x8", 8, 1, "910B4", 20, 1}, {"910A x8", 8, 1, "910ProB", 30, 1},
        {"310P3x4", 4, 1, "310P3", 8, 0},  {"300I-Duo x2", 2, 2, "310P3", 8, 0}, {"A3x8", 8, 2, "Ascend910", 24, 1},
    };
    for (size_t i = 0; i < sizeof(E) / sizeof(E[0]); i++) discovery(&E[i]);
    vnpu_lifecycle();
    a3_templates();
    device_nodes();
    two_processes();
    concurrent_creates();
    knobs();
    faults();
    hbm_used();
    device_ip_and_product();
    fault_events_and_reset(); /* last: its subscription thread reads the environment */
    if (failures == 0) printf("dcmi-sim: all checks passed\n");
    return failures == 0 ? 0 : 1;
}
