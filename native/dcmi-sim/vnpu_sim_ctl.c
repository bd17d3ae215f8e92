/*
 * vnpu-sim-ctl: changes the simulated DCMI host that every process under $VNPU_SIM_ROOT shares
 * (profile from $VNPU_SIM_PROFILE). Used by tests and by the CLI to inject faults.
 *
 *   vnpu-sim-ctl show                         one line per chip: logic, health, dropped, faults, vNPUs
 *   vnpu-sim-ctl reset                        forget every vNPU, fault and knob
 *   vnpu-sim-ctl fault LOGIC CODE [LEVEL]     add a fault code (hex 0x... or decimal); health LEVEL (default 2)
 *   vnpu-sim-ctl clear LOGIC                  clear faults, health back to 0, card back
 *   vnpu-sim-ctl health LOGIC LEVEL           set the health value only (0..3)
 *   vnpu-sim-ctl drop LOGIC | restore LOGIC   card of LOGIC dropped (health calls return -8012) / back
 *   vnpu-sim-ctl util LOGIC PERCENT           AI Core utilisation
 *   vnpu-sim-ctl use LOGIC VDEV 0|1           set a vNPU's is_container_used
 *   vnpu-sim-ctl create LOGIC TEMPLATE        create a vNPU (prints its ID), as dcmi_create_vdevice
 *   vnpu-sim-ctl destroy LOGIC VDEV           destroy a vNPU, as dcmi_set_destroy_vdevice
 *   vnpu-sim-ctl nodes                        create the device nodes under $VNPU_SIM_ROOT/dev, as dcmi_init
 *   vnpu-sim-ctl init-fail CODE               dcmi_init returns CODE (0 = succeed)
 *   vnpu-sim-ctl latency MS                   add MS milliseconds to every DCMI call
 *   vnpu-sim-ctl late-cards N                 the next N card-list calls return no cards
 *   vnpu-sim-ctl event LOGIC CODE ASSERT [SEV] raise a fault event for subscribers: ASSERT 1 occurred
 *                                             (code added), 0 recovered (code removed), 2 one-shot;
 *                                             SEV severity 0..3 (default 2)
 *   vnpu-sim-ctl link LOGIC up|down           parameter-plane link status (network health)
 *   vnpu-sim-ctl reset-fail LOGIC N           the next N dcmi_set_device_reset calls return -8015
 *   vnpu-sim-ctl reset-hang LOGIC 0|1         after a reset the chip stays in BIOS (boot status 1)
 *   vnpu-sim-ctl boot-ms MS                   a reset chip boots (status 16) after MS ms (default 400)
 *   vnpu-sim-ctl proc LOGIC PID [BYTES]       a host process uses the chip (reset refused: -8020)
 *   vnpu-sim-ctl proc-clear LOGIC             no process uses the chip
 *   vnpu-sim-ctl show-faults                  one line per chip: link, boot status, resets, processes, faults
 *   vnpu-sim-ctl net-block LOGIC MS           dcmi_get_device_network_health blocks MS ms (0 = not)
 *   vnpu-sim-ctl ip LOGIC ADDR|none|profile   RoCE address (IPv4 or IPv6 text) dcmi_get_device_ip reports;
 *                                             none = the chip has none, profile = the profile's again
 *   vnpu-sim-ctl spod SUPERPOD SERVER         A3 super-pod ID and server index (dcmi_spod_info; -1 = none)
 *   vnpu-sim-ctl switch-fault CHIP PORT TYPE SUBTYPE [SEV [PEERDEV]]
 *                                             a LingQu switch fault (liblingqu-dcmi.so): HalReportFaultType
 *                                             TYPE, severity SEV (default 2), peer device (default 1, NPU)
 *   vnpu-sim-ctl switch-recover CHIP PORT TYPE SUBTYPE   that fault recovers
 *   vnpu-sim-ctl switch-clear                 no switch fault
 * "fault" and "clear" raise the matching occurred / recovered events too.
 * Exit status 0 on success, 2 on usage errors, 1 when the operation fails (DCMI code printed).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dcmi_interface_api.h"
#include "sim_devnodes.h"
#include "sim_state.h"

struct op {
    const struct sim_host *host;
    const char *cmd;
    int idx;
    long a, b, c;
    const char *text;
    uint32_t out;
};

static int card_of_all(const struct sim_host *h, int idx, struct sim_state *st, uint32_t dropped) {
    for (int i = 0; i < h->n; i++) {
        if (h->devs[i].card_id == h->devs[idx].card_id) st->chips[i].dropped = dropped;
    }
    return 0;
}

static int apply(struct sim_state *st, void *arg) {
    struct op *o = arg;
    struct sim_chip *chip = o->idx >= 0 ? &st->chips[o->idx] : NULL;
    const char *c = o->cmd;
    if (strcmp(c, "show") == 0) {
        for (int i = 0; i < o->host->n; i++) {
            const struct sim_chip *ch = &st->chips[i];
            printf("logic=%d phy=%d card=%d device=%d chip=%s health=%u dropped=%u util=%u faults=", i,
                   o->host->devs[i].phy_id, o->host->devs[i].card_id, o->host->devs[i].device_id,
                   o->host->devs[i].chip_name, ch->health, ch->dropped, ch->aicore_util);
            for (uint32_t f = 0; f < ch->fault_count; f++) printf("%s0x%08X", f ? "," : "", ch->faults[f]);
            printf(" vnpus=");
            int first = 1;
            for (int v = 0; v < SIM_MAX_VDEV; v++) {
                if (ch->vdevs[v].id == 0) continue;
                printf("%s%u:%s:%s", first ? "" : ",", ch->vdevs[v].id, ch->vdevs[v].template_name,
                       ch->vdevs[v].in_use ? "used" : "free");
                first = 0;
            }
            printf("\n");
        }
        return 0;
    }
    if (strcmp(c, "reset") == 0) {
        uint64_t sig = st->host_signature;
        memset(st, 0, sizeof(*st));
        st->magic = SIM_STATE_MAGIC;
        st->version = SIM_STATE_VERSION;
        st->host_signature = sig;
        return 0;
    }
    if (strcmp(c, "fault") == 0) {
        int rc = sim_fault_add(st, o->idx, (uint32_t)o->a, (uint8_t)(o->b > 3 ? 3 : o->b < 0 ? 0 : o->b));
        if (rc != 0) return rc;
        chip->health = (uint32_t)o->b;
        return 0;
    }
    if (strcmp(c, "clear") == 0) {
        sim_faults_clear(st, o->idx);
        chip->health = 0;
        return card_of_all(o->host, o->idx, st, 0);
    }
    if (strcmp(c, "health") == 0) {
        chip->health = (uint32_t)o->a;
        return 0;
    }
    if (strcmp(c, "drop") == 0) return card_of_all(o->host, o->idx, st, 1);
    if (strcmp(c, "restore") == 0) return card_of_all(o->host, o->idx, st, 0);
    if (strcmp(c, "util") == 0) {
        chip->aicore_util = (uint32_t)o->a;
        return 0;
    }
    if (strcmp(c, "use") == 0) {
        struct sim_vdev *v = sim_vdev_find(chip, (uint32_t)o->a);
        if (v == NULL) return DCMI_ERR_INVALID_DEVICE_ID;
        v->in_use = o->b != 0;
        v->container_id = o->b != 0 ? 0x1000u + v->id : 0;
        return 0;
    }
    if (strcmp(c, "create") == 0) {
        uint32_t vfg;
        return sim_vdev_create(&o->host->devs[o->idx], chip, o->text, DCMI_VDEV_ID_AUTO, &o->out, &vfg);
    }
    if (strcmp(c, "destroy") == 0) return sim_vdev_destroy(chip, (uint32_t)o->a);
    if (strcmp(c, "init-fail") == 0) {
        st->init_fail = (int32_t)o->a;
        return 0;
    }
    if (strcmp(c, "latency") == 0) {
        st->latency_ms = (uint32_t)o->a;
        return 0;
    }
    if (strcmp(c, "late-cards") == 0) {
        st->hidden_card_calls = (uint32_t)o->a;
        return 0;
    }
    if (strcmp(c, "event") == 0) {
        uint8_t sev = (uint8_t)o->c;
        if (o->b == 1) return sim_fault_add(st, o->idx, (uint32_t)o->a, sev);
        if (o->b == 0) {
            sim_fault_remove(st, o->idx, (uint32_t)o->a);
            return 0;
        }
        sim_event_push(st, o->idx, (uint32_t)o->a, sev, 2);
        return 0;
    }
    if (strcmp(c, "link") == 0) {
        chip->link_down = (uint32_t)o->a;
        return 0;
    }
    if (strcmp(c, "reset-fail") == 0) {
        chip->reset_fail = (uint32_t)o->a;
        return 0;
    }
    if (strcmp(c, "reset-hang") == 0) {
        chip->reset_hang = o->a != 0;
        return 0;
    }
    if (strcmp(c, "net-block") == 0) {
        chip->net_block_ms = (uint32_t)o->a;
        return 0;
    }
    if (strcmp(c, "ip") == 0) {
        memset(chip->ip, 0, sizeof(chip->ip));
        chip->ip_type = DCMI_IPADDR_TYPE_V4;
        if (strcmp(o->text, "none") == 0) {
            chip->ip_override = SIM_IP_NONE;
        } else if (strcmp(o->text, "profile") == 0) {
            chip->ip_override = SIM_IP_PROFILE;
        } else if (inet_pton(AF_INET, o->text, chip->ip) == 1) {
            chip->ip_override = SIM_IP_SET;
        } else if (inet_pton(AF_INET6, o->text, chip->ip) == 1) {
            chip->ip_override = SIM_IP_SET;
            chip->ip_type = DCMI_IPADDR_TYPE_V6;
        } else {
            return DCMI_ERR_INVALID_PARAMETER;
        }
        return 0;
    }
    if (strcmp(c, "boot-ms") == 0) {
        st->boot_ms = (uint32_t)o->a;
        return 0;
    }
    if (strcmp(c, "proc") == 0) {
        if (chip->proc_count == SIM_MAX_PROCS) return DCMI_ERR_RESOURCE_OCCUPIED;
        chip->procs[chip->proc_count].pid = (int32_t)o->a;
        chip->procs[chip->proc_count].mem_bytes = (uint64_t)o->b;
        chip->proc_count++;
        return 0;
    }
    if (strcmp(c, "proc-clear") == 0) {
        chip->proc_count = 0;
        memset(chip->procs, 0, sizeof(chip->procs));
        return 0;
    }
    if (strcmp(c, "show-faults") == 0) {
        for (int i = 0; i < o->host->n; i++) {
            const struct sim_chip *ch = &st->chips[i];
            printf("logic=%d link=%s boot=%u resets=%u procs=", i, ch->link_down ? "down" : "up",
                   sim_boot_status(st, ch), ch->resets);
            for (uint32_t p = 0; p < ch->proc_count; p++) {
                printf("%s%d:%llu", p ? "," : "", ch->procs[p].pid, (unsigned long long)ch->procs[p].mem_bytes);
            }
            printf(" faults=");
            for (uint32_t f = 0; f < ch->fault_count; f++) printf("%s0x%08X", f ? "," : "", ch->faults[f]);
            printf("\n");
        }
        return 0;
    }
    return DCMI_ERR_INVALID_PARAMETER;
}

static int usage(void) {
    fprintf(stderr, "usage: vnpu-sim-ctl show|reset|nodes|fault|clear|health|drop|restore|util|use|create|destroy|"
                    "init-fail|latency|late-cards|event|link|reset-fail|reset-hang|boot-ms|proc|proc-clear|show-faults|net-block|ip|spod|switch-fault|switch-recover|switch-clear ARGS "
                    "(see the source header)\n");
    return 2;
}

static int number(const char *s, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 0);
    if (errno != 0 || end == s || *end != '\0') {
        fprintf(stderr, "vnpu-sim-ctl: not a number: '%s'\n", s);
        return -1;
    }
    *out = v;
    return 0;
}

struct switch_op {
    const char *cmd;
    long v[6];
};

static int apply_switch(struct sim_state *st, void *arg) {
    struct switch_op *o = arg;
    if (strcmp(o->cmd, "spod") == 0) {
        st->spod_set = 1;
        st->super_pod_id = (uint32_t)o->v[0];
        st->server_id = (uint32_t)o->v[1];
        return 0;
    }
    if (strcmp(o->cmd, "switch-clear") == 0) {
        st->switch_fault_count = 0;
        memset(st->switch_faults, 0, sizeof(st->switch_faults));
        return 0;
    }
    uint32_t n = st->switch_fault_count < SIM_MAX_SWITCH_FAULTS ? st->switch_fault_count : SIM_MAX_SWITCH_FAULTS;
    for (uint32_t i = 0; i < n; i++) {
        struct sim_switch_fault *f = &st->switch_faults[i];
        if (f->chip_id != o->v[0] || f->port_id != o->v[1] || f->event_type != o->v[2] || f->sub_type != o->v[3]) continue;
        if (strcmp(o->cmd, "switch-recover") == 0) {
            st->switch_faults[i] = st->switch_faults[n - 1];
            memset(&st->switch_faults[n - 1], 0, sizeof(st->switch_faults[0]));
            st->switch_fault_count = n - 1;
        }
        return 0; /* a fault already present is not added twice */
    }
    if (strcmp(o->cmd, "switch-recover") == 0) return 0;
    if (n == SIM_MAX_SWITCH_FAULTS) return DCMI_ERR_RESOURCE_OCCUPIED;
    struct sim_switch_fault *f = &st->switch_faults[n];
    memset(f, 0, sizeof(*f));
    f->chip_id = (uint16_t)o->v[0];
    f->port_id = (uint16_t)o->v[1];
    f->event_type = (uint32_t)o->v[2];
    f->sub_type = (uint32_t)o->v[3];
    f->severity = (uint8_t)o->v[4];
    f->peer_device = (uint16_t)o->v[5];
    f->raised_s = (uint64_t)time(NULL);
    st->switch_fault_count = n + 1;
    return 0;
}

/* spod, switch-fault, switch-recover, switch-clear: whole-host commands with their own arguments. */
static int switch_main(const struct sim_host *host, int argc, char **argv) {
    struct switch_op o = {argv[1], {0, 0, 0, 0, 2, 1}};
    int need = strcmp(o.cmd, "spod") == 0 ? 2 : strcmp(o.cmd, "switch-clear") == 0 ? 0 : 4;
    int optional = strcmp(o.cmd, "switch-fault") == 0 ? 2 : 0;
    int have = argc - 2;
    if (have < need || have > need + optional) return usage();
    for (int i = 0; i < have; i++) {
        if (number(argv[2 + i], &o.v[i]) != 0) return usage();
    }
    if (strcmp(o.cmd, "switch-fault") == 0 && (o.v[4] < 0 || o.v[4] > 3 || o.v[2] < 0 || o.v[2] >= 20)) {
        fprintf(stderr, "vnpu-sim-ctl: switch fault TYPE must be 0..19 and SEV 0..3\n");
        return 2;
    }
    int rc = sim_with_state(host, apply_switch, &o);
    if (rc != 0) {
        fprintf(stderr, "vnpu-sim-ctl: %s failed: %d\n", o.cmd, rc);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) return usage();
    struct sim_host host;
    if (sim_host_load(&host) != 0) {
        fprintf(stderr, "vnpu-sim-ctl: unknown VNPU_SIM_PROFILE '%s' or unusable VNPU_SIM_ROOT\n",
                getenv("VNPU_SIM_PROFILE") ? getenv("VNPU_SIM_PROFILE") : "");
        return 1;
    }
    if (strcmp(argv[1], "spod") == 0 || strncmp(argv[1], "switch-", 7) == 0) return switch_main(&host, argc, argv);
    struct op o = {&host, argv[1], -1, 0, 0, 0, NULL, 0};
    const char *cmd = argv[1];
    if (strcmp(cmd, "nodes") == 0) {
        if (argc != 2) return usage();
        sim_dev_nodes_create(&host);
        return 0;
    }
    int per_chip = strcmp(cmd, "show") != 0 && strcmp(cmd, "reset") != 0 && strcmp(cmd, "init-fail") != 0 &&
                   strcmp(cmd, "latency") != 0 && strcmp(cmd, "late-cards") != 0 && strcmp(cmd, "boot-ms") != 0 &&
                   strcmp(cmd, "show-faults") != 0;
    int argi = 2;
    long v;
    if (per_chip) {
        if (argc < 3 || number(argv[2], &v) != 0) return usage();
        if (v < 0 || v >= host.n) {
            fprintf(stderr, "vnpu-sim-ctl: logic ID %ld not on this host (0..%d)\n", v, host.n - 1);
            return 2;
        }
        o.idx = (int)v;
        argi = 3;
    }
    o.b = 2; /* default health level for "fault" */
    o.c = 2; /* default severity for "event" */
    if (strcmp(cmd, "create") == 0 || strcmp(cmd, "ip") == 0) {
        if (argc != 4) return usage();
        o.text = argv[3];
    } else if (strcmp(cmd, "link") == 0) {
        if (argc != 4 || (strcmp(argv[3], "up") != 0 && strcmp(argv[3], "down") != 0)) return usage();
        o.a = strcmp(argv[3], "down") == 0;
    } else {
        int need = strcmp(cmd, "use") == 0 || strcmp(cmd, "event") == 0 ? 2
                   : (strcmp(cmd, "show") == 0 || strcmp(cmd, "reset") == 0 || strcmp(cmd, "clear") == 0 ||
                      strcmp(cmd, "drop") == 0 || strcmp(cmd, "restore") == 0 || strcmp(cmd, "proc-clear") == 0 ||
                      strcmp(cmd, "show-faults") == 0)
                       ? 0
                       : 1;
        /* fault LOGIC CODE [LEVEL], event LOGIC CODE ASSERT [SEV], proc LOGIC PID [BYTES] */
        int optional = strcmp(cmd, "fault") == 0 || strcmp(cmd, "event") == 0 || strcmp(cmd, "proc") == 0 ? 1 : 0;
        int have = argc - argi;
        if (have < need || have > need + optional) return usage();
        if (strcmp(cmd, "proc") == 0) o.b = 0;
        if (have >= 1 && number(argv[argi], &o.a) != 0) return usage();
        if (have >= 2 && number(argv[argi + 1], &o.b) != 0) return usage();
        if (have >= 3 && number(argv[argi + 2], &o.c) != 0) return usage();
        if (strcmp(cmd, "event") == 0 && (o.b < 0 || o.b > 2 || o.c < 0 || o.c > 3)) {
            fprintf(stderr, "vnpu-sim-ctl: event assertion must be 0..2 and severity 0..3\n");
            return 2;
        }
    }
    int rc = sim_with_state(&host, apply, &o);
    if (rc != 0) {
        fprintf(stderr, "vnpu-sim-ctl: %s failed: %d\n", cmd, rc);
        return 1;
    }
    char node[32];
    if (strcmp(cmd, "create") == 0) {
        snprintf(node, sizeof(node), "vdavinci%u", o.out);
        sim_dev_node_create(&host, node);
        printf("%u\n", o.out);
    } else if (strcmp(cmd, "destroy") == 0) {
        snprintf(node, sizeof(node), "vdavinci%ld", o.a);
        sim_dev_node_remove(&host, node);
    }
    return 0;
}
