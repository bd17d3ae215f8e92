#include "compute_gcra.h"

static uint32_t eff_share(uint32_t share_ppm)
{
    if (share_ppm == 0)
        return 1;
    return share_ppm > VNPU_GCRA_FULL ? VNPU_GCRA_FULL : share_ppm;
}

/* 1..1023; 1023 only for the whole device */
static int64_t share_code(uint32_t share_ppm)
{
    uint32_t s = eff_share(share_ppm);
    if (s >= VNPU_GCRA_FULL)
        return VNPU_GCRA_CODE_MASK;
    uint64_t c = ((uint64_t)s * VNPU_GCRA_CODE_MASK + VNPU_GCRA_FULL / 2) / VNPU_GCRA_FULL;
    if (c < 1)
        c = 1;
    if (c > VNPU_GCRA_CODE_MASK - 1)
        c = VNPU_GCRA_CODE_MASK - 1;
    return (int64_t)c;
}

static uint64_t code_ppm(int64_t code)
{
    return code >= VNPU_GCRA_CODE_MASK ? VNPU_GCRA_FULL : (uint64_t)code * VNPU_GCRA_FULL / VNPU_GCRA_CODE_MASK;
}

int64_t vnpu_gcra_charge(uint64_t cost_ns, uint32_t share_ppm)
{
    uint32_t s = eff_share(share_ppm);
    /* cost * 1e6 fits in 64 bits for any cost below 1.8e13 ns; clamp before multiplying */
    if (cost_ns > (uint64_t)VNPU_GCRA_MAX_DEBT_NS)
        cost_ns = (uint64_t)VNPU_GCRA_MAX_DEBT_NS;
    uint64_t c = cost_ns * (uint64_t)VNPU_GCRA_FULL / s;
    return c > (uint64_t)VNPU_GCRA_MAX_DEBT_NS ? VNPU_GCRA_MAX_DEBT_NS : (int64_t)c;
}

/* The word's arrival time as seen at share share_ppm: its debt rescaled to that share. */
static int64_t decode(int64_t word, int64_t now, uint32_t share_ppm, int64_t burst_ns)
{
    int64_t t = word & ~(int64_t)VNPU_GCRA_CODE_MASK;
    int64_t code = word & VNPU_GCRA_CODE_MASK;
    if (t <= now)
        return t;
    int64_t d = t - now;
    if (d > burst_ns + VNPU_GCRA_MAX_DEBT_NS)
        return now; /* impossible for launches: corrupt or clock trouble */
    if (code != 0 && code != share_code(share_ppm)) {
        /* the device time owed carries over: debt * old share / new share */
        uint64_t r = (uint64_t)d * code_ppm(code) / eff_share(share_ppm);
        d = r > (uint64_t)(burst_ns + VNPU_GCRA_MAX_DEBT_NS) ? burst_ns + VNPU_GCRA_MAX_DEBT_NS : (int64_t)r;
    }
    return now + d;
}

/*
 * t to a multiple of 1024 ns, share code in the low bits. Rounding is dithered with the low bits of
 * the clock, so it is unbiased: a fixed rounding would add or drop up to 1 us on every launch, a
 * systematic error for kernels of a few microseconds.
 */
static int64_t encode(int64_t t, int64_t now, uint32_t share_ppm)
{
    int64_t r = (t + (now & VNPU_GCRA_CODE_MASK)) & ~(int64_t)VNPU_GCRA_CODE_MASK;
    return r | share_code(share_ppm);
}

static int64_t capped(int64_t t, int64_t now, int64_t burst_ns)
{
    /* clear of the rounding, so that a capped word never reads as corrupt */
    int64_t max = now + burst_ns + VNPU_GCRA_MAX_DEBT_NS - VNPU_GCRA_CODE_MASK - 1;
    return t > max ? max : t;
}

int64_t vnpu_gcra_debt(int64_t word, int64_t now, uint32_t share_ppm, int64_t burst_ns)
{
    int64_t t = decode(word, now, share_ppm, burst_ns);
    return t > now ? t - now : 0;
}

int64_t vnpu_gcra_admit(int64_t *word, int64_t now, uint64_t cost_ns, uint32_t share_ppm, int64_t burst_ns,
                        int64_t credit_ns)
{
    return vnpu_gcra_admit_charged(word, now, vnpu_gcra_charge(cost_ns, share_ppm), share_ppm, burst_ns, credit_ns);
}

int64_t vnpu_gcra_admit_charged(int64_t *word, int64_t now, int64_t charge, uint32_t share_ppm, int64_t burst_ns,
                                int64_t credit_ns)
{
    int64_t floor = credit_ns > 0 ? now - credit_ns : now;
    int64_t cur = __atomic_load_n(word, __ATOMIC_RELAXED);
    for (;;) {
        int64_t t = decode(cur, now, share_ppm, burst_ns);
        int64_t base = t > floor ? t : floor;
        if (base - now > burst_ns)
            return base - now - burst_ns;
        int64_t next = encode(capped(base + charge, now, burst_ns), now, share_ppm);
        if (__atomic_compare_exchange_n(word, &cur, next, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return 0;
        /* another process or thread of the container advanced it: cur holds the new value */
    }
}

int64_t vnpu_gcra_slack(const int64_t *word, int64_t now, uint32_t share_ppm, int64_t burst_ns, int64_t credit_ns)
{
    int64_t floor = credit_ns > 0 ? now - credit_ns : now;
    int64_t t = decode(__atomic_load_n(word, __ATOMIC_RELAXED), now, share_ppm, burst_ns);
    return burst_ns - ((t > floor ? t : floor) - now);
}

int64_t vnpu_gcra_wait(const int64_t *word, int64_t now, int64_t extra_ns, uint32_t share_ppm, int64_t burst_ns,
                       int64_t credit_ns)
{
    return vnpu_gcra_wait_beyond(extra_ns, vnpu_gcra_slack(word, now, share_ppm, burst_ns, credit_ns));
}

void vnpu_gcra_adjust(int64_t *word, int64_t now, int64_t delta_ns, uint32_t share_ppm, int64_t burst_ns)
{
    if (delta_ns == 0)
        return;
    int64_t cur = __atomic_load_n(word, __ATOMIC_RELAXED);
    for (;;) {
        int64_t t = decode(cur, now, share_ppm, burst_ns), next;
        if (delta_ns > 0) {
            next = capped((t > now ? t : now) + vnpu_gcra_charge((uint64_t)delta_ns, share_ppm), now, burst_ns);
        } else {
            if (t <= now)
                return; /* no debt to refund */
            next = t - vnpu_gcra_charge((uint64_t)-delta_ns, share_ppm);
            if (next <= now + VNPU_GCRA_CODE_MASK)
                next = now - VNPU_GCRA_CODE_MASK - 1; /* no debt left (clear of the rounding) */
        }
        if (__atomic_compare_exchange_n(word, &cur, encode(next, now, share_ppm), 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return;
    }
}

void vnpu_gcra_forgive(int64_t *word, int64_t now, uint32_t share_ppm, int64_t burst_ns, int64_t keep_ns)
{
    int64_t cur = __atomic_load_n(word, __ATOMIC_RELAXED);
    for (;;) {
        int64_t t = decode(cur, now, share_ppm, burst_ns);
        if (t - now <= keep_ns)
            return;
        if (__atomic_compare_exchange_n(word, &cur, encode(now + keep_ns, now, share_ppm), 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
            return;
    }
}
