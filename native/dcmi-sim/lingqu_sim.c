/*
 * Simulated liblingqu-dcmi.so (include/lingqu_dcmi.h): the LingQu switch faults of the simulated
 * host, set with `vnpu-sim-ctl switch-fault` / `switch-recover` / `switch-clear`. Only A3 hosts have
 * LingQu switches: on any other profile lq_dcmi_init fails with -8255, as a driver without the
 * library's hardware does. Polling only (no subscription), which is what the plugin needs.
 */
#include <stddef.h>
#include <string.h>

#include "dcmi_interface_api.h"
#include "lingqu_dcmi.h"
#include "sim_state.h"

_Static_assert(sizeof(LqDcmiEvent) == 112, "LqDcmiEvent is 112 bytes");
_Static_assert(offsetof(LqDcmiEvent, alarmRaisedTime) == 32, "alarmRaisedTime at 32");
_Static_assert(offsetof(LqDcmiEvent, additionalInfo) == 80, "additionalInfo at 80");

static int g_lq_initialized;

static int load(struct sim_host *host) {
    int rc = sim_host_load(host);
    if (rc != 0) return rc;
    if (host->n == 0 || strncmp(host->devs[0].chip_name, "Ascend910", 9) != 0) return DCMI_ERR_NOT_SUPPORT;
    return DCMI_OK;
}

__attribute__((visibility("default"))) int lq_dcmi_init(void) {
    struct sim_host host;
    int rc = load(&host);
    if (rc == 0) __atomic_store_n(&g_lq_initialized, 1, __ATOMIC_RELEASE);
    return rc;
}

struct fault_copy {
    unsigned int cap;
    unsigned int n;
    LqDcmiEvent *out;
};

static int copy_faults(struct sim_state *st, void *arg) {
    struct fault_copy *fc = arg;
    fc->n = 0;
    uint32_t count = st->switch_fault_count < SIM_MAX_SWITCH_FAULTS ? st->switch_fault_count : SIM_MAX_SWITCH_FAULTS;
    for (uint32_t i = 0; i < count; i++) {
        if (fc->out != NULL) {
            if (fc->n == fc->cap) break;
            const struct sim_switch_fault *f = &st->switch_faults[i];
            LqDcmiEvent *e = &fc->out[fc->n];
            memset(e, 0, sizeof(*e));
            e->eventType = (HalReportFaultType)f->event_type;
            e->subType = f->sub_type;
            e->peerportDevice = f->peer_device;
            e->peerportId = f->peer_port;
            e->switchChipid = f->chip_id;
            e->switchPortid = f->port_id;
            e->severity = f->severity;
            e->assertion = 1;
            e->eventSerialNum = i + 1;
            e->notifySerialNum = i + 1;
            e->alarmRaisedTime = (unsigned long)f->raised_s;
        }
        fc->n++;
    }
    return DCMI_OK;
}

__attribute__((visibility("default"))) int lq_dcmi_get_fault_info(unsigned int listLen, unsigned int *eventListLen,
                                                                  LqDcmiEvent *eventList) {
    if (!__atomic_load_n(&g_lq_initialized, __ATOMIC_ACQUIRE)) return DCMI_ERR_INNER_ERR;
    if (eventListLen == NULL || eventList == NULL || listLen == 0) return DCMI_ERR_INVALID_PARAMETER;
    struct sim_host host;
    int rc = load(&host);
    if (rc != 0) return rc;
    struct fault_copy fc = {listLen, 0, eventList};
    rc = sim_with_state(&host, copy_faults, &fc);
    if (rc != 0) return rc;
    *eventListLen = fc.n;
    return DCMI_OK;
}

__attribute__((visibility("default"))) int lq_dcmi_get_fault_nums(unsigned int *fault_nums) {
    if (!__atomic_load_n(&g_lq_initialized, __ATOMIC_ACQUIRE)) return DCMI_ERR_INNER_ERR;
    if (fault_nums == NULL) return DCMI_ERR_INVALID_PARAMETER;
    struct sim_host host;
    int rc = load(&host);
    if (rc != 0) return rc;
    struct fault_copy fc = {0, 0, NULL};
    rc = sim_with_state(&host, copy_faults, &fc);
    if (rc == 0) *fault_nums = fc.n;
    return rc;
}

__attribute__((visibility("default"))) int lq_dcmi_get_version(unsigned int *lq_version, unsigned int *lqdcmi_version) {
    if (lq_version == NULL || lqdcmi_version == NULL) return DCMI_ERR_INVALID_PARAMETER;
    *lq_version = 1;
    *lqdcmi_version = 1;
    return DCMI_OK;
}
