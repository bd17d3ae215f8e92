/*
 * GCRA with debt (compute_gcra.h) on a fake clock: burst, long-run rate, long executions charged in
 * full (no clamp), the queue bound at whole-device share, debt carried across share changes, refunds,
 * bounded and corrupt state, and concurrent admissions on one word (run under ThreadSanitizer too).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "compute_gcra.h"

#define MS 1000000LL
#define S (1000 * MS)
#define BURST (20 * MS)

#define CHECK_NEAR(a, b, tol)                                                                          \
    do {                                                                                               \
        int64_t va_ = (int64_t)(a), vb_ = (int64_t)(b);                                                \
        if (va_ - vb_ > (tol) || vb_ - va_ > (tol)) {                                                  \
            fprintf(stderr, "%s:%d: %s = %lld, expected %s = %lld +- %lld\n", __FILE__, __LINE__, #a,     \
                    (long long)va_, #b, (long long)vb_, (long long)(tol));                              \
            exit(1);                                                                                   \
        }                                                                                              \
    } while (0)

/* A saturating launcher on a fake clock: launches when admitted, else sleeps the returned wait (each
 * launch also takes 1 us of host time). Returns the device time it was admitted. */
static uint64_t run_saturating(int64_t *w, int64_t start, int64_t duration, uint64_t cost, uint32_t share)
{
    uint64_t used = 0;
    for (int64_t now = start; now < start + duration;) {
        int64_t wait = vnpu_gcra_admit(w, now, cost, share, BURST, 0);
        if (wait == 0) {
            used += cost;
            now += 1000;
        } else {
            now += wait;
        }
    }
    return used;
}

static void test_burst_then_wait(void)
{
    int64_t w = 0, now = 1000 * MS;
    /* 1 ms at 50 % (2 ms charged), burst 20 ms: 11 launches conform at once (debt 0..20 ms), then wait */
    int n = 0;
    while (vnpu_gcra_admit(&w, now, 1 * MS, 500000, BURST, 0) == 0)
        n++;
    CHECK(n == 10 || n == 11); /* 11 exactly but for the word's 1024 ns granularity */
    CHECK_NEAR(vnpu_gcra_debt(w, now, 500000, BURST), 2 * n * MS, 2 * 1024 * n);
    CHECK_NEAR(vnpu_gcra_admit(&w, now, 1 * MS, 500000, BURST, 0), (2 * n - 20) * MS, 2 * 1024 * n);
    /* idle time is not banked: after a long pause only the burst is available again */
    int64_t later = now + 10 * S;
    n = 0;
    while (vnpu_gcra_admit(&w, later, 1 * MS, 500000, BURST, 0) == 0)
        n++;
    CHECK(n == 10 || n == 11);
}

static void test_long_run_rate(void)
{
    /* 1 ms kernels at 25 % for 10 s: 2.5 s of device time plus the burst's worth */
    int64_t w = 0;
    CHECK_NEAR(run_saturating(&w, 1 * S, 10 * S, 1 * MS, 250000), 2500 * MS + 6 * MS, 2 * MS);
    /* 100 us kernels at 10 % */
    w = 0;
    CHECK_NEAR(run_saturating(&w, 1 * S, 10 * S, 100000, 100000), 1000 * MS + 2100000, 1 * MS);
    /* 7 us kernels at 10 %: the 1024 ns granularity of the word is unbiased (dithered) */
    w = 0;
    CHECK_NEAR(run_saturating(&w, 1 * S, 10 * S, 7000, 100000), 1000 * MS, 25 * MS);
}

static void test_long_executions_in_full(void)
{
    /* 1 s graph executions at 10 %: charged 10 s each (was clamped to 0.5 s), so over 100 s the
     * container runs 10 of them, plus the one the burst admitted at the start */
    int64_t w = 0;
    CHECK_EQ_U64(run_saturating(&w, 1 * S, 100 * S, 1 * S, 100000), 11 * S);
    /* 200 ms at 25 %: 800 ms each */
    w = 0;
    CHECK_EQ_U64(run_saturating(&w, 1 * S, 80 * S, 200 * MS, 250000), 101 * 200 * MS);
    /* after one 1 s execution at 10 %, the next waits 10 s minus the burst, in one piece */
    w = 0;
    int64_t now = 5 * S;
    CHECK_EQ_U64(vnpu_gcra_admit(&w, now, 1 * S, 100000, BURST, 0), 0);
    CHECK_NEAR(vnpu_gcra_admit(&w, now + 1 * S, 1 * S, 100000, BURST, 0), 9 * S - BURST, 2048);
}

static void test_queue_bound_at_full_share(void)
{
    /* alone and uncapped (whole device): 1 ms kernels queue at most the burst ahead of the device */
    int64_t w = 0, now = 3 * S;
    int n = 0;
    while (vnpu_gcra_admit(&w, now, 1 * MS, VNPU_GCRA_FULL, BURST, 0) == 0)
        n++;
    CHECK(n == 20 || n == 21); /* 21 exactly but for the word's 1024 ns granularity */
    /* as the device works the queue off, one more fits per kernel time: 100 % of the device */
    CHECK_NEAR(run_saturating(&w, now, 10 * S, 1 * MS, VNPU_GCRA_FULL), 10 * S, 25 * MS);
    /* a 1 s graph alone: the next one is admitted the burst before the running one ends */
    w = 0;
    CHECK_EQ_U64(vnpu_gcra_admit(&w, now, 1 * S, VNPU_GCRA_FULL, BURST, 0), 0);
    CHECK_NEAR(vnpu_gcra_admit(&w, now, 1 * S, VNPU_GCRA_FULL, BURST, 0), 1 * S - BURST, 2048);
    /* shares above the whole device read as the whole device */
    int64_t v = 0;
    CHECK_EQ_U64(vnpu_gcra_admit(&v, now, 1 * S, 5000000, BURST, 0), 0);
    CHECK_NEAR(vnpu_gcra_debt(v, now, VNPU_GCRA_FULL, BURST), 1 * S, 2048);
}

static void test_debt_follows_share_changes(void)
{
    /* a 1 s execution at 25 % leaves 4 s of debt: 1 s of device time owed */
    int64_t w = 0, now = 7 * S;
    CHECK_EQ_U64(vnpu_gcra_admit(&w, now, 1 * S, 250000, BURST, 0), 0);
    CHECK_NEAR(vnpu_gcra_debt(w, now, 250000, BURST), 4 * S, 2048);
    /* the neighbour left: alone, the container owes 1 s (its queued work), not 4 s */
    CHECK_NEAR(vnpu_gcra_debt(w, now, VNPU_GCRA_FULL, BURST), 1 * S, 8 * MS);
    /* its share fell to 12.5 %: 8 s */
    CHECK_NEAR(vnpu_gcra_debt(w, now, 125000, BURST), 8 * S, 20 * MS);
    /* queued while alone (38 ms), then a neighbour arrives and the share is 25 %: 152 ms to repay */
    int64_t q = 0;
    for (int i = 0; i < 2; i++)
        CHECK_EQ_U64(vnpu_gcra_admit(&q, now, 19 * MS, VNPU_GCRA_FULL, BURST, 0), 0);
    CHECK_NEAR(vnpu_gcra_admit(&q, now, 1 * MS, 250000, BURST, 0), 152 * MS - BURST, 2 * MS);
    /* small share changes are not compounded: the same share reads the same debt every time */
    int64_t d1 = vnpu_gcra_debt(w, now, 250000, BURST);
    CHECK_EQ_U64(vnpu_gcra_debt(w, now, 250000, BURST), d1);
}

static void test_adjust_and_refund(void)
{
    int64_t w = 0, now = 9 * S;
    /* charged the seed (1 ms) at 10 %, measured 300 ms: 2.99 s more debt */
    CHECK_EQ_U64(vnpu_gcra_admit(&w, now, 1 * MS, 100000, BURST, 0), 0);
    vnpu_gcra_adjust(&w, now, 299 * MS, 100000, BURST);
    CHECK_NEAR(vnpu_gcra_debt(w, now, 100000, BURST), 3 * S, 4096);
    /* an overcharge refunded, but never below "no debt" */
    vnpu_gcra_adjust(&w, now, -100 * MS, 100000, BURST);
    CHECK_NEAR(vnpu_gcra_debt(w, now, 100000, BURST), 2 * S, 4096);
    vnpu_gcra_adjust(&w, now, -1000 * MS, 100000, BURST);
    CHECK_EQ_U64(vnpu_gcra_debt(w, now, 100000, BURST), 0);
    vnpu_gcra_adjust(&w, now, -1000 * MS, 100000, BURST);
    CHECK_EQ_U64(vnpu_gcra_debt(w, now, 100000, BURST), 0);
    /* forgive keeps only what is asked */
    vnpu_gcra_adjust(&w, now, 100 * MS, 100000, BURST);
    vnpu_gcra_forgive(&w, now, 100000, BURST, BURST);
    CHECK_NEAR(vnpu_gcra_debt(w, now, 100000, BURST), BURST, 2048);
}

static void test_bounded_and_corrupt_state(void)
{
    int64_t now = 11 * S;
    /* debt is capped at burst + 120 s, whatever is charged */
    int64_t w = 0;
    CHECK_EQ_U64(vnpu_gcra_admit(&w, now, 1000 * S, 1, BURST, 0), 0);
    CHECK_NEAR(vnpu_gcra_debt(w, now, 1, BURST), VNPU_GCRA_MAX_DEBT_NS, 2048); /* one charge: 120 s at most */
    vnpu_gcra_adjust(&w, now, 1000 * S, 1, BURST);
    CHECK_NEAR(vnpu_gcra_debt(w, now, 1, BURST), BURST + VNPU_GCRA_MAX_DEBT_NS, 2048);
    CHECK_EQ_U64(vnpu_gcra_charge(UINT64_MAX, 0), (uint64_t)VNPU_GCRA_MAX_DEBT_NS);
    CHECK_EQ_U64(vnpu_gcra_charge(1 * MS, 500000), 2 * MS);
    /* a word an hour ahead cannot come from launches (a tenant rewrote its region, clock trouble):
     * read as no debt, so it stalls nobody */
    w = now + 3600 * S;
    CHECK_EQ_U64(vnpu_gcra_debt(w, now, 100000, BURST), 0);
    CHECK_EQ_U64(vnpu_gcra_admit(&w, now, 1 * MS, 100000, BURST, 0), 0);
    CHECK_NEAR(vnpu_gcra_debt(w, now, 100000, BURST), 10 * MS, 2048);
    /* INT64_MIN, negative, zero words: no debt */
    int64_t words[] = {INT64_MIN, -1, 0, INT64_MAX};
    for (unsigned i = 0; i < sizeof words / sizeof words[0]; i++) {
        int64_t x = words[i];
        CHECK_EQ_U64(vnpu_gcra_admit(&x, now, 1 * MS, 100000, BURST, 0), 0);
    }
}

/* Concurrent admissions by several threads (processes of one container share the word the same way):
 * nothing is lost or doubled. */
#define THREADS 4
#define PER_THREAD 20000
static int64_t shared_word;
static void *admitter(void *arg)
{
    (void)arg;
    int64_t now = 13 * S;
    for (int i = 0; i < PER_THREAD; i++)
        while (vnpu_gcra_admit(&shared_word, now, 10000, VNPU_GCRA_FULL, 1000 * S, 0) != 0) {
        }
    return NULL;
}

static void test_concurrent(void)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, admitter, NULL) == 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    /* 80 000 x 10 us = 800 ms of queued work (the clock stood still; dithering at a fixed clock is a
     * fixed rounding: up to 1024 ns per launch) */
    int64_t d = vnpu_gcra_debt(__atomic_load_n(&shared_word, __ATOMIC_RELAXED), 13 * S, VNPU_GCRA_FULL, 1000 * S);
    CHECK_NEAR(d, 800 * MS, (int64_t)THREADS * PER_THREAD * 1024);
}

/* vnpu_gcra_wait: the admission decision without the step, with charges a caller has summed (the
 * limiter's batches of small launches); summing then adding never charges less than step by step */
static void test_wait_and_batches(void)
{
    int64_t a = 0, b = 0;
    int64_t now = 1000 * MS;
    const uint64_t cost = 10000; /* 10 us at 50 %: 20 us of wall time each */
    const uint32_t share = 500000;
    CHECK(vnpu_gcra_wait(&a, now, 0, share, BURST, 0) == 0);
    CHECK(vnpu_gcra_wait(&a, now, BURST, share, BURST, 0) == 0);   /* debt == burst still conforms */
    CHECK(vnpu_gcra_wait(&a, now, BURST + 5000, share, BURST, 0) == 5000);
    /* step by step (a) and summed in batches of 8 added with vnpu_gcra_adjust (b), over 10 ms */
    int64_t pending = 0;
    uint64_t pending_cost = 0;
    int n_a = 0, n_b = 0;
    for (int64_t t = now; t < now + 10 * MS; t += 5000) {
        if (vnpu_gcra_admit(&a, t, cost, share, BURST, 0) == 0)
            n_a++;
        if (vnpu_gcra_wait(&b, t, pending, share, BURST, 0) == 0) {
            n_b++;
            pending += vnpu_gcra_charge(cost, share);
            pending_cost += cost;
        }
        if (n_b % 8 == 0 && pending_cost) {
            vnpu_gcra_adjust(&b, t, (int64_t)pending_cost, share, BURST);
            pending = 0;
            pending_cost = 0;
        }
    }
    CHECK(n_b <= n_a); /* saturating: summed charges never admit more */
    CHECK(n_a > 0 && n_b > 0);
    /* below the rate (every launch admitted both ways): the sums charge at least the single steps,
     * but for the word's 1024 ns granularity */
    int64_t a2 = 0, b2 = 0, t = now;
    pending_cost = 0;
    for (int i = 1; i <= 64; i++, t += 50000) {
        CHECK(vnpu_gcra_admit(&a2, t, cost, share, BURST, 0) == 0);
        CHECK(vnpu_gcra_wait(&b2, t, 0, share, BURST, 0) == 0);
        pending_cost += cost;
        if (i % 8 == 0) {
            vnpu_gcra_adjust(&b2, t, (int64_t)pending_cost, share, BURST);
            pending_cost = 0;
        }
    }
    CHECK(vnpu_gcra_debt(b2, t, share, BURST) + 2048 >= vnpu_gcra_debt(a2, t, share, BURST));
    /* a word whose debt is beyond the burst makes the wait positive whatever the sum */
    int64_t c = 0;
    while (vnpu_gcra_admit(&c, now, cost, share, BURST, 0) == 0) {
    }
    CHECK(vnpu_gcra_wait(&c, now, 0, share, BURST, 0) > 0);
}

/* vnpu_gcra_slack: what the limiter's fast path decides a batch on. A sum conforms exactly while it
 * is at most the slack (the same decision as vnpu_gcra_wait), with and without debt, credit, and a
 * debt charged at another share (rescaled like every decision) */
static void test_slack(void)
{
    const uint32_t share = 250000;
    int64_t now = 1000 * MS;
    int64_t w = 0;
    CHECK(vnpu_gcra_slack(&w, now, share, BURST, 0) == BURST); /* no debt: the whole burst */
    CHECK(vnpu_gcra_admit(&w, now, 1 * MS, share, BURST, 0) == 0); /* 4 ms of wall time at 25 % */
    int64_t debt = vnpu_gcra_debt(w, now, share, BURST);
    CHECK_NEAR(debt, 4 * MS, 1024);
    CHECK(vnpu_gcra_slack(&w, now, share, BURST, 0) == BURST - debt);
    /* the identity with vnpu_gcra_wait on either side of the slack, at several clocks */
    for (int64_t t = now - 2 * MS; t <= now + 6 * MS; t += MS / 2) {
        int64_t slack = vnpu_gcra_slack(&w, t, share, BURST, 0);
        CHECK(vnpu_gcra_wait(&w, t, slack, share, BURST, 0) == 0);
        CHECK(vnpu_gcra_wait(&w, t, slack + 1, share, BURST, 0) == 1);
        CHECK(vnpu_gcra_wait(&w, t, slack + 7000, share, BURST, 0) == 7000);
    }
    /* after the debt ran out the slack is the burst again; credit lets a lagging word count from
     * now - credit: never more than the burst plus that credit */
    CHECK(vnpu_gcra_slack(&w, now + 5 * MS, share, BURST, 0) == BURST);
    CHECK(vnpu_gcra_slack(&w, now + 5 * MS, share, BURST, 2 * MS) <= BURST + 2 * MS);
    CHECK(vnpu_gcra_slack(&w, now + 5 * MS, share, BURST, 2 * MS) > BURST);
    /* seen at half the share, the debt owed is twice as long in wall time (the share is kept in 1023
     * steps: 0.2 % off at most) */
    int64_t at_half = vnpu_gcra_slack(&w, now, share / 2, BURST, 0);
    CHECK_NEAR(BURST - at_half, 2 * debt, 2 * debt / 500);
    /* a debt beyond the burst: negative slack, and no sum conforms */
    int64_t c = 0;
    while (vnpu_gcra_admit(&c, now, 1 * MS, share, BURST, 0) == 0) {
    }
    CHECK(vnpu_gcra_slack(&c, now, share, BURST, 0) < 0);
    CHECK(vnpu_gcra_wait(&c, now, 0, share, BURST, 0) > 0);
}

int main(void)
{
    test_burst_then_wait();
    test_long_run_rate();
    test_long_executions_in_full();
    test_queue_bound_at_full_share();
    test_debt_follows_share_changes();
    test_adjust_and_refund();
    test_bounded_and_corrupt_state();
    test_concurrent();
    test_wait_and_batches();
    test_slack();
    printf("test_compute_gcra: ok\n");
    return 0;
}
