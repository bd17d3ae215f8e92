#include "compute_core.h"

#include "vnpu_region.h"
#include "vnpu_registry.h"

static enum vnpu_share_policy policy_of_bits(uint32_t bits, uint32_t fixed, uint32_t elastic, uint32_t best)
{
    uint32_t b = bits & (fixed | elastic | best);
    if (b == 0)
        return VNPU_SHARE_AS_GIVEN;
    if (b == fixed)
        return VNPU_SHARE_FIXED;
    if (b == elastic)
        return VNPU_SHARE_ELASTIC;
    return VNPU_SHARE_BEST_EFFORT; /* best-effort alone, or a contradiction */
}

enum vnpu_share_policy vnpu_share_policy_of_region(uint32_t policy_flags)
{
    return policy_of_bits(policy_flags, VNPU_POLICY_FIXED_SHARE, VNPU_POLICY_ELASTIC, VNPU_POLICY_BEST_EFFORT);
}

enum vnpu_share_policy vnpu_share_policy_of_entry(uint32_t entry_flags)
{
    return policy_of_bits(entry_flags, VNPU_REG_EF_FIXED_SHARE, VNPU_REG_EF_ELASTIC, VNPU_REG_EF_BEST_EFFORT);
}

void vnpu_share_apply_policy(struct vnpu_share_input *e, enum vnpu_share_policy p)
{
    if (e->weight == 0)
        e->weight = 1;
    switch (p) {
    case VNPU_SHARE_FIXED:
        if (e->cap_pct == 0)
            e->cap_pct = e->weight > 100 ? 100 : e->weight;
        break;
    case VNPU_SHARE_BEST_EFFORT:
        e->prio = VNPU_SHARE_PRIO_BEST_EFFORT;
        break;
    case VNPU_SHARE_ELASTIC:
    case VNPU_SHARE_AS_GIVEN:
        break;
    }
}

static uint32_t weight_of(const struct vnpu_share_input *e)
{
    return e->weight == 0 ? 1u : e->weight;
}

static uint64_t cap_ppm(const struct vnpu_share_input *e)
{
    if (e->cap_pct == 0 || e->cap_pct >= 100)
        return VNPU_SHARE_FULL;
    return (uint64_t)e->cap_pct * (VNPU_SHARE_FULL / 100u);
}

/* The most entry i can get: its cap, and for a neighbour what it is known to use. */
static uint64_t limit_ppm(const struct vnpu_share_input *e, int is_self)
{
    uint64_t c = cap_ppm(e);
    if (!is_self && e->demand_ppm != 0 && e->demand_ppm < c)
        c = e->demand_ppm;
    return c;
}

uint32_t vnpu_demand_ppm(uint32_t used_ppm)
{
    uint64_t u = used_ppm > VNPU_SHARE_FULL ? VNPU_SHARE_FULL : used_ppm;
    uint64_t head = u / 16 > VNPU_DEMAND_MARGIN_PPM ? u / 16 : VNPU_DEMAND_MARGIN_PPM;
    uint64_t d = u + head;
    return (uint32_t)(d > VNPU_SHARE_FULL ? VNPU_SHARE_FULL : d);
}

#define SHARE_MAX_N 256

uint32_t vnpu_share_ppm(const struct vnpu_share_input *in, int n, int self)
{
    if (n <= 0 || self < 0 || self >= n)
        return VNPU_SHARE_FULL;
    if (n > SHARE_MAX_N)
        n = SHARE_MAX_N;
    uint64_t remaining = VNPU_SHARE_FULL;
    int32_t self_prio = in[self].prio;
    int higher_busy = 0;
    /* classes in increasing prio order; the loop visits each distinct class once */
    int32_t cls = INT32_MIN;
    for (;;) {
        int32_t next = INT32_MAX;
        int found = 0;
        for (int i = 0; i < n; i++) {
            int busy = in[i].busy || i == self;
            if (busy && in[i].prio > cls && in[i].prio <= next) {
                next = in[i].prio;
                found = 1;
            }
        }
        if (!found)
            break;
        cls = next;
        /* water-fill the remaining capacity inside this class */
        unsigned char fixed[SHARE_MAX_N] = {0};
        uint64_t alloc[SHARE_MAX_N] = {0};
        uint64_t left = remaining;
        for (;;) {
            uint64_t wsum = 0;
            for (int i = 0; i < n; i++)
                if ((in[i].busy || i == self) && in[i].prio == cls && !fixed[i])
                    wsum += weight_of(&in[i]);
            if (wsum == 0)
                break;
            int clipped = 0;
            for (int i = 0; i < n; i++) {
                if (!((in[i].busy || i == self) && in[i].prio == cls) || fixed[i])
                    continue;
                uint64_t part = left * weight_of(&in[i]) / wsum;
                uint64_t lim = limit_ppm(&in[i], i == self);
                if (part > lim) {
                    alloc[i] = lim;
                    fixed[i] = 1;
                    clipped = 1;
                }
            }
            if (clipped) {
                /* recompute what is left for the unclipped ones */
                left = remaining;
                for (int i = 0; i < n; i++)
                    if (fixed[i])
                        left = left > alloc[i] ? left - alloc[i] : 0;
                continue;
            }
            for (int i = 0; i < n; i++)
                if ((in[i].busy || i == self) && in[i].prio == cls && !fixed[i])
                    alloc[i] = left * weight_of(&in[i]) / wsum;
            break;
        }
        if (cls == self_prio) {
            uint64_t s = alloc[self];
            int alone_uncapped = !higher_busy && cap_ppm(&in[self]) >= VNPU_SHARE_FULL;
            for (int i = 0; i < n; i++)
                if (i != self && in[i].busy && in[i].prio == cls)
                    alone_uncapped = 0;
            if (alone_uncapped)
                return VNPU_SHARE_FULL;
            if (s >= VNPU_SHARE_FULL)
                s = VNPU_SHARE_FULL - 1; /* capped at 100 % but not alone: still charged */
            return (uint32_t)s;
        }
        uint64_t used = 0;
        for (int i = 0; i < n; i++)
            if ((in[i].busy || i == self) && in[i].prio == cls)
                used += alloc[i];
        remaining = remaining > used ? remaining - used : 0;
        higher_busy = 1;
    }
    return VNPU_SHARE_FULL; /* unreachable: self's class is always visited */
}

uint64_t vnpu_cost_add(struct vnpu_cost_window *w, int64_t now, uint64_t sample_ns)
{
    if (sample_ns == 0)
        sample_ns = 1;
    if (w->est == 0) {
        w->bucket_start = now;
        w->cur = 0;
    }
    /* rotate past buckets that ended; a long silence empties the whole window */
    for (int n = 0; now - w->bucket_start >= VNPU_COST_BUCKET_NS && n < VNPU_COST_BUCKETS; n++) {
        w->cur = (w->cur + 1) % VNPU_COST_BUCKETS;
        w->mins[w->cur] = 0;
        w->bucket_start += VNPU_COST_BUCKET_NS;
    }
    if (now - w->bucket_start >= VNPU_COST_BUCKET_NS)
        w->bucket_start = now;
    if (w->mins[w->cur] == 0 || sample_ns < w->mins[w->cur])
        w->mins[w->cur] = sample_ns;
    uint64_t m = UINT64_MAX;
    for (int b = 0; b < VNPU_COST_BUCKETS; b++)
        if (w->mins[b] != 0 && w->mins[b] < m)
            m = w->mins[b];
    w->est = m;
    return m;
}
