/*
 * Where the compute limiter's configuration comes from in libvnpu.so: the container's quota region
 * (opened by the memory part, hooks.c), which the node agent filled: policy flag COMPUTE_ENFORCE,
 * the registry directory, per logical device the phy ID, weight, cap and priority class; the region's
 * epoch is the container key in the registry. Statistics flow back into the region's per-device
 * compute state and the process slot, where `vnpu top` and the device plugin's monitor read them.
 */
#include <sched.h>
#include <string.h>

#include "compute.h"
#include "compute_core.h"
#include "config.h"
#include "region.h"

/* hooks.c: the region once initialised, NULL when the memory limiter is disabled */
struct vnpu_region *vnpu_limiter_region(void);
/* hooks.c: the region's device of the process's device (phy ID match when the region names them) */
uint32_t vnpu_limiter_region_device(uint32_t proc_dev);

uint32_t vnpu_compute_map_device(uint32_t proc_dev) { return vnpu_limiter_region_device(proc_dev); }

#define CONFIG_READ_ATTEMPTS 1000

static void copy_trunc(char *out, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (n >= len)
        n = len - 1;
    memcpy(out, src, n);
    out[n] = 0;
}

static void container_name(char *out, size_t len)
{
    /* the region lives in the container's own directory (.../containers/<podUID>_<ctr>/region) */
    char path[512];
    vnpu_config_region_path(path, sizeof path);
    char *slash = strrchr(path, '/');
    if (slash && slash != path) {
        *slash = 0;
        char *parent = strrchr(path, '/');
        copy_trunc(out, len, parent ? parent + 1 : path);
    } else {
        copy_trunc(out, len, path);
    }
}

int vnpu_compute_load_config(struct vnpu_compute_config *out)
{
    struct vnpu_region *r = vnpu_limiter_region();
    if (!r)
        return -1;
    memset(out, 0, sizeof *out);
    /* the node agent may rewrite the config under the config_seq seqlock (odd while writing) */
    for (int attempt = 0;; attempt++) {
        uint32_t s1 = vnpu_load32(r, VNPU_H_CONFIG_SEQ);
        if (s1 & 1u) {
            if (attempt >= CONFIG_READ_ATTEMPTS)
                return -1;
            sched_yield();
            continue;
        }
        uint32_t policy = vnpu_region_policy(r);
        out->enabled = (policy & VNPU_POLICY_COMPUTE_ENFORCE) != 0;
        out->share_policy = (uint32_t)vnpu_share_policy_of_region(policy);
        memcpy(out->registry_dir, r->base + VNPU_H_REGISTRY_DIR, sizeof out->registry_dir);
        out->registry_dir[sizeof out->registry_dir - 1] = 0;
        out->key = vnpu_load64(r, VNPU_H_EPOCH);
        out->device_count = vnpu_region_device_count(r);
        if (out->device_count > VNPU_COMPUTE_MAX_DEVICES)
            out->device_count = VNPU_COMPUTE_MAX_DEVICES;
        for (uint32_t d = 0; d < out->device_count; d++) {
            uint64_t o = vnpu_devcfg_off(d);
            out->dev[d].phys_id = (int32_t)vnpu_load32(r, o + VNPU_DC_PHYS_ID);
            out->dev[d].weight = vnpu_load32(r, o + VNPU_DC_COMPUTE_WEIGHT);
            out->dev[d].cap_pct = vnpu_load32(r, o + VNPU_DC_COMPUTE_CAP_PCT);
            out->dev[d].prio = (int32_t)vnpu_load32(r, o + VNPU_DC_PRIORITY_CLASS);
        }
        if (vnpu_load32(r, VNPU_H_CONFIG_SEQ) == s1) {
            out->version = s1;
            break;
        }
        if (attempt >= CONFIG_READ_ATTEMPTS)
            return -1;
    }
    container_name(out->name, sizeof out->name);
    return 0;
}

uint32_t vnpu_compute_config_version(void)
{
    struct vnpu_region *r = vnpu_limiter_region();
    return r ? vnpu_load32(r, VNPU_H_CONFIG_SEQ) : 0;
}

void vnpu_compute_report_unhooked(uint32_t count)
{
    struct vnpu_region *r = vnpu_limiter_region();
    if (r)
        __atomic_store_n((uint32_t *)(r->base + VNPU_H_UNHOOKED_LAUNCHES), count, __ATOMIC_RELAXED);
}

void *vnpu_compute_region_word(uint32_t dev, unsigned off)
{
    struct vnpu_region *r = vnpu_limiter_region();
    if (!r || dev >= vnpu_region_device_count(r) || off + 8 > VNPU_DEVSTATE_BYTES)
        return NULL;
    return r->base + vnpu_devstate_off(dev) + off;
}

static void add64(struct vnpu_region *r, uint64_t off, uint64_t n)
{
    if (n)
        __atomic_fetch_add((uint64_t *)(r->base + off), n, __ATOMIC_RELAXED);
}

void vnpu_compute_publish_region(uint32_t dev, const struct vnpu_compute_stats *st)
{
    struct vnpu_region *r = vnpu_limiter_region();
    if (!r || dev >= VNPU_REGION_MAX_DEVICES)
        return;
    uint64_t ds = vnpu_devstate_off(dev);
    add64(r, ds + VNPU_DS_LAUNCHES, st->launches);
    add64(r, ds + VNPU_DS_THROTTLED_NS, st->throttled_ns);
    add64(r, ds + VNPU_DS_BUSY_NS, st->busy_ns);
    add64(r, ds + VNPU_DS_SAMPLES, st->samples);
    add64(r, ds + VNPU_DS_BLOCKED_NS, st->blocked_ns);
    __atomic_store_n((uint64_t *)(r->base + ds + VNPU_DS_COST_EMA_NS), st->cost_ns, __ATOMIC_RELAXED);
    __atomic_store_n((uint32_t *)(r->base + ds + VNPU_DS_SHARE_PPM), st->share_ppm, __ATOMIC_RELAXED);
    if (st->active_ns > 0) {
        /* only ever forward: several processes of the container publish */
        uint64_t *act = (uint64_t *)(r->base + ds + VNPU_DS_LAST_LAUNCH_NS);
        uint64_t cur = __atomic_load_n(act, __ATOMIC_RELAXED);
        while (cur < (uint64_t)st->active_ns
               && !__atomic_compare_exchange_n(act, &cur, (uint64_t)st->active_ns, 0, __ATOMIC_RELAXED,
                                               __ATOMIC_RELAXED)) {
        }
    }
    for (int s = 0; s < VNPU_SYM_COUNT; s++)
        add64(r, VNPU_H_SYMBOL_LAUNCHES + 8u * (unsigned)s, st->sym_launches[s]);
    if (r->slot >= 0) {
        uint64_t so = vnpu_slot_off((uint32_t)r->slot);
        add64(r, so + VNPU_S_LAUNCHES, st->launches);
        add64(r, so + VNPU_S_BUSY_NS, st->busy_ns);
    }
}
