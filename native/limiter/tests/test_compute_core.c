/*
 * Unit tests of the compute algorithms with a fake clock: the share computation (caps, weights, work
 * conservation, strict priority) and the device-time estimator (GCRA: test_compute_gcra.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "compute_core.h"

#define MS 1000000LL

static struct vnpu_share_input E(uint32_t w, uint32_t cap, int32_t prio, int busy)
{
    struct vnpu_share_input e = {w, cap, prio, busy, 0};
    return e;
}

/* a light neighbour: active, using used_ppm of the device */
static struct vnpu_share_input L(uint32_t w, uint32_t cap, int32_t prio, uint32_t used_ppm)
{
    struct vnpu_share_input e = {w, cap, prio, 1, vnpu_demand_ppm(used_ppm)};
    return e;
}

static void test_share_alone(void)
{
    struct vnpu_share_input in[3] = {E(1, 0, 1, 1), E(5, 0, 1, 0), E(9, 0, 0, 0)};
    CHECK_EQ_U64(vnpu_share_ppm(in, 3, 0), VNPU_SHARE_FULL); /* idle neighbours do not count */
    in[0].cap_pct = 25;
    CHECK_EQ_U64(vnpu_share_ppm(in, 3, 0), 250000);
    in[0].cap_pct = 100;
    CHECK_EQ_U64(vnpu_share_ppm(in, 3, 0), VNPU_SHARE_FULL);
    /* self counts as busy even when its flag says otherwise (it is launching right now) */
    in[0] = E(1, 10, 1, 0);
    CHECK_EQ_U64(vnpu_share_ppm(in, 3, 0), 100000);
}

static void test_share_weights(void)
{
    struct vnpu_share_input in[2] = {E(1, 0, 1, 1), E(3, 0, 1, 1)};
    CHECK_EQ_U64(vnpu_share_ppm(in, 2, 0), 250000);
    CHECK_EQ_U64(vnpu_share_ppm(in, 2, 1), 750000);
    /* neighbour idle: work-conserving */
    in[1].busy = 0;
    CHECK_EQ_U64(vnpu_share_ppm(in, 2, 0), VNPU_SHARE_FULL);
    /* weight 0 reads as 1 */
    struct vnpu_share_input z[2] = {E(0, 0, 1, 1), E(1, 0, 1, 1)};
    CHECK_EQ_U64(vnpu_share_ppm(z, 2, 0), 500000);
}

static void test_share_caps_water_fill(void)
{
    /* A capped at 10 % with equal weights: B gets the remaining 90 % (not 50 %) */
    struct vnpu_share_input in[3] = {E(1, 10, 1, 1), E(1, 0, 1, 1), E(2, 0, 1, 0)};
    CHECK_EQ_U64(vnpu_share_ppm(in, 3, 0), 100000);
    CHECK_EQ_U64(vnpu_share_ppm(in, 3, 1), 900000);
    /* three busy: A cap 10, B w1, C w2 -> B 30 %, C 60 % */
    in[2].busy = 1;
    CHECK_EQ_U64(vnpu_share_ppm(in, 3, 1), 300000);
    CHECK_EQ_U64(vnpu_share_ppm(in, 3, 2), 600000);
    /* caps above the weighted part do not bind */
    struct vnpu_share_input c[2] = {E(1, 80, 1, 1), E(1, 0, 1, 1)};
    CHECK_EQ_U64(vnpu_share_ppm(c, 2, 0), 500000);
    /* alone but capped at 100 % with a busy neighbour: charged at its weighted share */
    struct vnpu_share_input d[2] = {E(3, 100, 1, 1), E(1, 0, 1, 1)};
    CHECK_EQ_U64(vnpu_share_ppm(d, 2, 0), 750000);
}

static void test_share_strict_priority(void)
{
    /* high class busy: normal class waits (share 0), high runs unthrottled */
    struct vnpu_share_input in[2] = {E(1, 0, 0, 1), E(9, 0, 1, 1)};
    CHECK_EQ_U64(vnpu_share_ppm(in, 2, 1), 0);
    CHECK_EQ_U64(vnpu_share_ppm(in, 2, 0), VNPU_SHARE_FULL);
    /* a capped high class leaves the rest to the normal class */
    in[0].cap_pct = 30;
    CHECK_EQ_U64(vnpu_share_ppm(in, 2, 1), 700000);
    CHECK_EQ_U64(vnpu_share_ppm(in, 2, 0), 300000);
    /* high class idle: normal alone runs unthrottled */
    in[0].busy = 0;
    CHECK_EQ_U64(vnpu_share_ppm(in, 2, 1), VNPU_SHARE_FULL);
}

/* issue 23: a neighbour gets what it uses, up to its weighted share (weighted max-min) */
static void test_share_work_conserving_by_usage(void)
{
    /* demand: used + max(used/16, 1 %) */
    CHECK_EQ_U64(vnpu_demand_ppm(0), 10000);
    CHECK_EQ_U64(vnpu_demand_ppm(97000), 107000);
    CHECK_EQ_U64(vnpu_demand_ppm(800000), 850000);
    CHECK_EQ_U64(vnpu_demand_ppm(2000000), VNPU_SHARE_FULL);
    /* reproducer 25: weight 1 saturating next to a weight-3 neighbour using 9.7 %: it gets what the
     * neighbour leaves (less the headroom), not its weighted 25 % */
    struct vnpu_share_input in[2] = {E(1, 0, 1, 1), L(3, 0, 1, 97000)};
    CHECK_EQ_U64(vnpu_share_ppm(in, 2, 0), 1000000 - 107000);
    /* ... and next to one using ~0 % (a 10 us kernel every 150 ms) */
    in[1] = L(3, 0, 1, 70);
    CHECK_EQ_U64(vnpu_share_ppm(in, 2, 0), 1000000 - 10070);
    /* a neighbour using more than its weighted share is held to that share (demand clips only below) */
    in[1] = L(3, 0, 1, 900000);
    CHECK_EQ_U64(vnpu_share_ppm(in, 2, 0), 250000);
    /* the light neighbour itself, seeing the saturating one at its weighted share: 75 % */
    struct vnpu_share_input b[2] = {E(1, 0, 1, 1), L(3, 0, 1, 97000)};
    CHECK_EQ_U64(vnpu_share_ppm(b, 2, 1), 750000);
    /* self's own demand is never consulted: a container always may use what it is entitled to */
    b[1].demand_ppm = 1;
    CHECK_EQ_U64(vnpu_share_ppm(b, 2, 1), 750000);
    /* three: light A (5 %), saturating B w1 and C w2 share the rest 1:2 */
    struct vnpu_share_input t[3] = {L(1, 0, 1, 50000), E(1, 0, 1, 1), E(2, 0, 1, 1)};
    uint64_t rest = 1000000 - vnpu_demand_ppm(50000);
    CHECK_EQ_U64(vnpu_share_ppm(t, 3, 1), rest / 3);
    CHECK_EQ_U64(vnpu_share_ppm(t, 3, 2), rest * 2 / 3);
    /* own cap still binds whatever the neighbours leave */
    t[1].cap_pct = 20;
    CHECK_EQ_U64(vnpu_share_ppm(t, 3, 1), 200000);
    /* a light high-priority neighbour takes only what it uses: the normal class gets the rest */
    struct vnpu_share_input h[2] = {L(1, 0, 0, 100000), E(1, 0, 1, 1)};
    CHECK_EQ_U64(vnpu_share_ppm(h, 2, 1), 1000000 - vnpu_demand_ppm(100000));
    /* 16 equal saturating slices: 1/16 each; with 8 of them light at 1 %, the other 8 share the rest */
    struct vnpu_share_input s16[16];
    for (int i = 0; i < 16; i++)
        s16[i] = E(1, 0, 1, 1);
    CHECK_EQ_U64(vnpu_share_ppm(s16, 16, 0), 62500);
    for (int i = 8; i < 16; i++)
        s16[i] = L(1, 0, 1, 10000);
    CHECK_EQ_U64(vnpu_share_ppm(s16, 16, 0), (1000000 - 8 * vnpu_demand_ppm(10000)) / 8);
}

/* a busy container of sharing policy p with share (weight) w and cap c, at its weighted share */
static struct vnpu_share_input P(enum vnpu_share_policy p, uint32_t w, uint32_t cap, int32_t prio)
{
    struct vnpu_share_input e = {w, cap, prio, 1, 0};
    vnpu_share_apply_policy(&e, p);
    return e;
}

static void test_share_policies(void)
{
    /* the policy bits of a region and of an entry; none = as given, a contradiction = best-effort */
    CHECK(vnpu_share_policy_of_region(0x3) == VNPU_SHARE_AS_GIVEN);
    CHECK(vnpu_share_policy_of_region(0x3 | 0x10) == VNPU_SHARE_FIXED);
    CHECK(vnpu_share_policy_of_region(0x20) == VNPU_SHARE_ELASTIC);
    CHECK(vnpu_share_policy_of_region(0x40) == VNPU_SHARE_BEST_EFFORT);
    CHECK(vnpu_share_policy_of_region(0x10 | 0x20) == VNPU_SHARE_BEST_EFFORT);
    CHECK(vnpu_share_policy_of_entry(0x1 | 0x80) == VNPU_SHARE_FIXED);
    CHECK(vnpu_share_policy_of_entry(0x2) == VNPU_SHARE_ELASTIC);
    CHECK(vnpu_share_policy_of_entry(0x4) == VNPU_SHARE_BEST_EFFORT);
    CHECK(vnpu_share_policy_of_entry(0x3) == VNPU_SHARE_BEST_EFFORT);
    /* fixed-share: the share is the cap, alone on an idle chip too */
    struct vnpu_share_input one[2] = {P(VNPU_SHARE_FIXED, 25, 0, 1), E(50, 0, 1, 0)};
    CHECK_EQ_U64(one[0].cap_pct, 25);
    CHECK_EQ_U64(vnpu_share_ppm(one, 2, 0), 250000);
    struct vnpu_share_input big = P(VNPU_SHARE_FIXED, 300, 0, 1); /* a weight above 100 caps at the chip */
    CHECK_EQ_U64(big.cap_pct, 100);
    struct vnpu_share_input lowered = P(VNPU_SHARE_FIXED, 25, 10, 1); /* a lower cap stays */
    CHECK_EQ_U64(lowered.cap_pct, 10);
    /* elastic 25 % alone: the whole chip; with a ceiling of 60: 60 % */
    one[0] = P(VNPU_SHARE_ELASTIC, 25, 0, 1);
    CHECK_EQ_U64(vnpu_share_ppm(one, 2, 0), VNPU_SHARE_FULL);
    one[0] = P(VNPU_SHARE_ELASTIC, 25, 60, 1);
    CHECK_EQ_U64(vnpu_share_ppm(one, 2, 0), 600000);
    /* elastic 25 next to a busy fixed 50: 50 / 50 (the fixed one never gets more than its share) */
    struct vnpu_share_input ef[2] = {P(VNPU_SHARE_ELASTIC, 25, 0, 1), P(VNPU_SHARE_FIXED, 50, 0, 1)};
    CHECK_EQ_U64(vnpu_share_ppm(ef, 2, 0), 500000);
    CHECK_EQ_U64(vnpu_share_ppm(ef, 2, 1), 500000);
    /* two busy elastic 25 %: each more than its guarantee, split by share */
    struct vnpu_share_input ee[2] = {P(VNPU_SHARE_ELASTIC, 25, 0, 1), P(VNPU_SHARE_ELASTIC, 25, 0, 1)};
    CHECK_EQ_U64(vnpu_share_ppm(ee, 2, 0), 500000);
    /* best-effort next to two busy elastic slices that take everything: nothing (it waits) */
    struct vnpu_share_input b[3] = {P(VNPU_SHARE_BEST_EFFORT, 100, 0, 1), P(VNPU_SHARE_ELASTIC, 25, 0, 1),
                                    P(VNPU_SHARE_ELASTIC, 75, 0, 1)};
    CHECK_EQ_U64(vnpu_share_ppm(b, 3, 0), 0);
    CHECK_EQ_U64(vnpu_share_ppm(b, 3, 1), 250000);
    CHECK_EQ_U64(vnpu_share_ppm(b, 3, 2), 750000);
    /* ... whatever its priority class: high best-effort still comes after normal guaranteed ones */
    b[0] = P(VNPU_SHARE_BEST_EFFORT, 100, 0, 0);
    CHECK_EQ_U64(vnpu_share_ppm(b, 3, 0), 0);
    /* ... next to two busy fixed slices (30 + 40): their unused 30 % */
    b[1] = P(VNPU_SHARE_FIXED, 30, 0, 1);
    b[2] = P(VNPU_SHARE_FIXED, 40, 0, 1);
    CHECK_EQ_U64(vnpu_share_ppm(b, 3, 0), 300000);
    /* ... next to two light elastic slices (10 % and 20 % used): what they leave with their headroom */
    b[1] = P(VNPU_SHARE_ELASTIC, 25, 0, 1);
    b[1].demand_ppm = vnpu_demand_ppm(100000);
    b[2] = P(VNPU_SHARE_ELASTIC, 75, 0, 1);
    b[2].demand_ppm = vnpu_demand_ppm(200000);
    CHECK_EQ_U64(vnpu_share_ppm(b, 3, 0), 1000000 - vnpu_demand_ppm(100000) - vnpu_demand_ppm(200000));
    /* ... and the guaranteed ones do not see it (it is below them): the busy elastic 25 % gets what
     * the light one leaves */
    CHECK_EQ_U64(vnpu_share_ppm(b, 3, 1), 1000000 - vnpu_demand_ppm(200000));
    /* ... alone, or next to idle guaranteed slices: the whole chip */
    b[1].busy = 0;
    b[2].busy = 0;
    CHECK_EQ_U64(vnpu_share_ppm(b, 3, 0), VNPU_SHARE_FULL);
    /* two best-effort slices 1:3 split what a busy fixed 50 leaves */
    struct vnpu_share_input bb[3] = {P(VNPU_SHARE_BEST_EFFORT, 1, 0, 1), P(VNPU_SHARE_BEST_EFFORT, 3, 0, 1),
                                     P(VNPU_SHARE_FIXED, 50, 0, 1)};
    CHECK_EQ_U64(vnpu_share_ppm(bb, 3, 0), 125000);
    CHECK_EQ_U64(vnpu_share_ppm(bb, 3, 1), 375000);
    CHECK_EQ_U64(vnpu_share_ppm(bb, 3, 2), 500000);
}

static void test_share_bad_input(void)
{
    struct vnpu_share_input in[1] = {E(1, 0, 1, 1)};
    CHECK_EQ_U64(vnpu_share_ppm(in, 1, 5), VNPU_SHARE_FULL);
    CHECK_EQ_U64(vnpu_share_ppm(in, 0, 0), VNPU_SHARE_FULL);
    /* a cap above 100 (corrupt file) is no cap */
    in[0].cap_pct = 250;
    CHECK_EQ_U64(vnpu_share_ppm(in, 1, 0), VNPU_SHARE_FULL);
}

static void test_cost_estimator(void)
{
    struct vnpu_cost_window w;
    memset(&w, 0, sizeof w);
    int64_t t = 1000 * MS;
    CHECK_EQ_U64(vnpu_cost_add(&w, t, 3000000), 3000000); /* first sample, even a queued one, counts */
    CHECK_EQ_U64(vnpu_cost_add(&w, t + 1 * MS, 1000000), 1000000); /* lower: taken at once */
    /* 2.9 s of samples inflated by queueing behind a neighbour: the clean one still rules */
    for (int i = 2; i < 2900; i++)
        CHECK_EQ_U64(vnpu_cost_add(&w, t + i * MS, 1000000 + 15000000ULL * (uint64_t)(i % 7 + 1) / 7), 1000000);
    /* a kernel that really became slower (2 ms, never faster): followed once the window passed */
    uint64_t e = 0;
    int64_t at = t + 2900 * MS;
    for (; e != 2000000 && at < t + 9000 * MS; at += 1 * MS)
        e = vnpu_cost_add(&w, at, 2000000);
    CHECK_EQ_U64(e, 2000000);
    /* one window (3 s) after the last 1 ms sample */
    CHECK(at > t + VNPU_COST_BUCKETS * VNPU_COST_BUCKET_NS && at <= t + VNPU_COST_BUCKETS * VNPU_COST_BUCKET_NS + 102 * MS);
    /* a long silence forgets everything: the next sample is the estimate */
    CHECK_EQ_U64(vnpu_cost_add(&w, at + 60000 * MS, 5000000), 5000000);
    CHECK_EQ_U64(vnpu_cost_add(&w, at + 60001 * MS, 0), 1); /* a zero span counts as 1 ns, never 0 */
}

int main(void)
{
    test_share_alone();
    test_share_weights();
    test_share_caps_water_fill();
    test_share_strict_priority();
    test_share_work_conserving_by_usage();
    test_share_policies();
    test_share_bad_input();
    test_cost_estimator();
    printf("test_compute_core: ok\n");
    return 0;
}
