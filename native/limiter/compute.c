/*
 * Compute limiter: per-process state, launch bracket, measurement thread. See compute.h and
 * docs/compute-registry.md.
 */
#include "compute.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compute_core.h"
#include "compute_registry.h"
#include "elf_exports.h"
#include "fork.h"

#define VNPU_SYM_NAME_(name) #name,
const char *const vnpu_launch_symbol_names[VNPU_SYM_COUNT] = {VNPU_LAUNCH_SYMBOLS(VNPU_SYM_NAME_)};

/* ---------- tunables (not configuration: they shape the algorithm, docs/compute-registry.md) ---------- */
#define SEED_COST_NS        1000000ULL   /* a kernel never measured is charged 1 ms */
#define SAMPLE_INTERVAL_NS  2000000LL    /* at most one measurement per kernel key per 2 ms */
#define MAX_WAIT_NS         30000000000LL /* one launch never waits longer than 30 s: then it runs (fail
                                             open) and what it costs stays as debt (compute_gcra.h) */
#define MAX_CREDIT_NS       2000000000LL /* a container never lags the clock by more than 2 s (take_sample) */
#define REPAY_NS            100000000LL  /* a wait longer than 100 ms repays a long execution's debt */
#define SLEEP_STEP_NS       5000000LL    /* waits re-check the share at least every 5 ms */
#define LAST_LAUNCH_GRAIN   1000000LL    /* last_launch_ns is refreshed at most once per ms */
#define POLL_NS             1000000LL    /* measurement thread: event poll period */
#define SHARE_EVERY_POLLS   5            /* share recomputed every 5 polls */
#define SAMPLE_TIMEOUT_NS   10000000000LL /* a bracket not complete after 10 s is dropped */
#define HOST_STALL_NS       200000LL     /* a bracket whose host side took 200 us and a quarter of its
                                            span waited for the host (bracket_stalled) ... */
#define STALL_RETRIES       8            /* ... is bracketed again, up to 8 times in a row per key */
#define COST_TABLE          4096         /* kernel keys; beyond, the least recently used are re-measured */
#define COST_PROBE          8
#define COST_TOUCH_NS       50000000LL   /* last_use_ns refreshed at most every 50 ms per key */
#define MAX_SAMPLES         64
#define MAX_POOL_EVENTS     (2 * MAX_SAMPLES)
#define MAX_SPECIAL         64
#define RT_EVENT_NOT_COMPLETE 507006

/* ---------- logging: one line per distinct problem ---------- */
static void compute_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void compute_log(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof buf)
        n = sizeof buf - 1;
    char line[540];
    int m = snprintf(line, sizeof line, "vnpu: compute: %.*s\n", n, buf);
    if (m > 0) {
        ssize_t w = write(STDERR_FILENO, line, (size_t)(m < (int)sizeof line ? m : (int)sizeof line - 1));
        (void)w;
    }
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ns(int64_t ns)
{
    if (ns <= 0)
        return;
    struct timespec ts = {(time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* ---------- runtime functions the limiter itself calls (never hooked) ---------- */
struct rt_ops {
    rtError_t (*get_device)(int32_t *);
    rtError_t (*ctx_get)(rtContext_t *);
    rtError_t (*ctx_set)(rtContext_t);
    rtError_t (*event_create)(rtEvent_t *);
    rtError_t (*event_destroy)(rtEvent_t);
    rtError_t (*event_record)(rtEvent_t, rtStream_t);
    rtError_t (*event_query)(rtEvent_t);
    rtError_t (*event_elapsed)(float *, rtEvent_t, rtEvent_t);
};
static struct rt_ops rt;

void *vnpu_rt_resolve(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (p)
        return p;
    /* libruntime.so loaded with RTLD_LOCAL (dlopen by a framework) is not in the global scope */
    void *h = dlopen("libruntime.so", RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return NULL;
    p = dlsym(h, name);
    dlclose(h);
    return p;
}

static int rt_ops_load(void)
{
    rt.get_device = (rtError_t(*)(int32_t *))vnpu_rt_resolve("rtGetDevice");
    rt.ctx_get = (rtError_t(*)(rtContext_t *))vnpu_rt_resolve("rtCtxGetCurrent");
    rt.ctx_set = (rtError_t(*)(rtContext_t))vnpu_rt_resolve("rtCtxSetCurrent");
    rt.event_create = (rtError_t(*)(rtEvent_t *))vnpu_rt_resolve("rtEventCreate");
    rt.event_destroy = (rtError_t(*)(rtEvent_t))vnpu_rt_resolve("rtEventDestroy");
    rt.event_record = (rtError_t(*)(rtEvent_t, rtStream_t))vnpu_rt_resolve("rtEventRecord");
    rt.event_query = (rtError_t(*)(rtEvent_t))vnpu_rt_resolve("rtEventQuery");
    rt.event_elapsed = (rtError_t(*)(float *, rtEvent_t, rtEvent_t))vnpu_rt_resolve("rtEventElapsedTime");
    return rt.event_create && rt.event_destroy && rt.event_record && rt.event_query && rt.event_elapsed;
}

/* ---------- per-thread counters: single writer, so the hook never needs an atomic RMW ---------- */
struct tcount {
    uint64_t launches[VNPU_COMPUTE_MAX_DEVICES][VNPU_SYM_COUNT];
    uint64_t charged_ns[VNPU_COMPUTE_MAX_DEVICES];
    uint64_t throttled_ns[VNPU_COMPUTE_MAX_DEVICES];
    int64_t in_call_since; /* CLOCK_MONOTONIC ns a launch of this thread entered the runtime, 0 = none */
    uint32_t in_call_dev;
    int64_t wait_since;    /* CLOCK_MONOTONIC ns a launch of this thread began waiting for its share in the
                              limiter, 0 = none: it wants more than it gets, but is not in flight. Not
                              set while repaying a long execution's debt (REPAY_NS). A "wants more"
                              (saturation) signal counts wait_since and in_call_since alike. */
    struct tcount *next;
    int retired; /* thread gone: the block stays (its totals are still published) */
    /* the thread's launch clock (launch_now): last CLOCK_MONOTONIC read, the measurement tick it was
     * read in, and how many launches have used it since */
    int64_t clock_ns;
    uint64_t clock_tick;
    uint32_t clock_uses;
    /* small charges not yet added to the GCRA word (batch_flush): device ns, wall ns at batch_share */
    uint32_t batch_dev, batch_share;
    uint64_t batch_cost;
    int64_t batch_charge;
    /* the thread's last GCRA charge (launch_charge): a 64-bit division saved per launch */
    uint32_t charge_share;
    uint64_t charge_cost;
    int64_t charge_ns;
    /* the fast path (launch_fast): open while the batch is (batch_flush closes it). fast_slack: how far
     * batch_charge may grow with the next launch still conforming at clock_ns (vnpu_gcra_slack when
     * the slow path last read the word), FAST_CLOSED when not open; fast_proc_dev: the runtime's
     * number of batch_dev (rtGetDevice); fast_stream: a stream last launched on while that was the
     * thread's device, valid while stream_gen is fast_stream_gen (NULL: none) */
    int64_t fast_slack;
    int32_t fast_proc_dev;
    uint32_t fast_stream_gen;
    rtStream_t fast_stream;
};
#define FAST_CLOSED INT64_MIN
static pthread_mutex_t tc_mu = PTHREAD_MUTEX_INITIALIZER;
static struct tcount *tc_head;
static pthread_key_t tc_key;
static pthread_once_t tc_key_once = PTHREAD_ONCE_INIT;
static __thread struct tcount *tc_self __attribute__((tls_model("initial-exec"))); /* no __tls_get_addr per launch */

static void batch_flush(struct tcount *tc, int64_t now);
static int64_t now_ns(void);

static void tc_retire(void *p)
{
    struct tcount *t = p;
    batch_flush(t, now_ns()); /* the thread's last small launches are charged too */
    __atomic_store_n(&t->retired, 1, __ATOMIC_RELEASE);
}
static void tc_key_init(void) { (void)pthread_key_create(&tc_key, tc_retire); }

static struct tcount *tc_get(void)
{
    if (__builtin_expect(tc_self != NULL, 1))
        return tc_self;
    pthread_once(&tc_key_once, tc_key_init);
    pthread_mutex_lock(&tc_mu);
    /* reuse a retired block: its totals carry on, so nothing published is ever lost */
    struct tcount *t = NULL;
    for (struct tcount *c = tc_head; c; c = c->next)
        if (__atomic_load_n(&c->retired, __ATOMIC_ACQUIRE)) {
            t = c;
            break;
        }
    if (t) {
        __atomic_store_n(&t->retired, 0, __ATOMIC_RELEASE);
    } else {
        t = calloc(1, sizeof *t);
        if (t) {
            t->fast_slack = FAST_CLOSED;
            t->next = tc_head;
            tc_head = t;
        }
    }
    pthread_mutex_unlock(&tc_mu);
    if (t)
        pthread_setspecific(tc_key, t);
    tc_self = t;
    return t;
}

/*
 * The launch clock. A CLOCK_MONOTONIC read costs 32 ns (kvm-clock vDSO, AMD EPYC guest) to 45-85 ns
 * on a loaded VM (more than the rest of the bracket), so a conforming launch may reuse its thread's
 * last read: at most CLOCK_REUSE launches in a row, and never across a tick of the measurement thread
 * (clock_tick, bumped every POLL_NS). The value is a lower bound of now, stale by at most
 * min(CLOCK_REUSE launches, one poll period); the poll period is what bounds it in practice (256
 * launches take 20-50 us), and the read with its slow-path launch costs ~100 ns, so 32 (the earlier
 * value) spent ~3 ns per launch on it (docs/benchmarks.md):
 *   - a launch that would wait re-reads the clock first, so no launch ever waits on a stale clock;
 *   - a conforming launch charges from max(tat, now' - credit): from a lagging state it may start up
 *     to that staleness early (credit grows by it, once per idle-to-busy change; nothing accumulates);
 *   - busy markers and activity stamps are that much earlier.
 * Without a running measurement thread (not started, or failed) every launch reads the clock.
 */
#define CLOCK_REUSE 256
static uint64_t clock_tick; /* measurement thread: +1 per poll */
static int thread_state;    /* (defined with the measurement thread below) */

static int64_t launch_now(struct tcount *tc, int *reused)
{
    uint64_t tick = __atomic_load_n(&clock_tick, __ATOMIC_RELAXED);
    if (tc && tc->clock_uses < CLOCK_REUSE && tc->clock_tick == tick && tc->clock_ns != 0
        && __atomic_load_n(&thread_state, __ATOMIC_RELAXED) == 1) {
        tc->clock_uses++;
        *reused = 1;
        return tc->clock_ns;
    }
    int64_t now = now_ns();
    *reused = 0;
    if (tc) {
        tc->clock_ns = now;
        tc->clock_tick = tick;
        tc->clock_uses = 0;
    }
    return now;
}

/* vnpu_gcra_charge(cost, share), remembered per thread: a steady kernel at a steady share repeats it */
static __attribute__((noinline)) int64_t launch_charge_new(struct tcount *tc, uint64_t cost, uint32_t share)
{
    int64_t c = vnpu_gcra_charge(cost, share);
    if (tc) {
        tc->charge_cost = cost;
        tc->charge_share = share;
        tc->charge_ns = c;
    }
    return c;
}

static inline __attribute__((always_inline)) int64_t launch_charge(struct tcount *tc, uint64_t cost, uint32_t share)
{
    if (tc && tc->charge_cost == cost && tc->charge_share == share && tc->charge_ns != 0)
        return tc->charge_ns;
    return launch_charge_new(tc, cost, share);
}

/*
 * Small charges in batches. A launch whose charge (wall ns at the share) is below BATCH_CHARGE_NS is
 * admitted against the container's word plus the thread's unadded sum (vnpu_gcra_slack: a load, no
 * compare-and-swap) and joins the sum; the sum goes to the word in one step (vnpu_gcra_adjust) when
 * it would reach BATCH_CHARGE_NS, when the device or the share changes, when the thread reads the
 * clock again (at most CLOCK_REUSE launches, never across a measurement tick), before any wait, and
 * when the thread exits. Never less than launch by launch: adding the sum later from max(word, now)
 * charges at least what the single steps would have (they may restart from now - credit in between),
 * and a launch is admitted only if it would conform with the sum added. Neighbours see a thread's
 * last < BATCH_CHARGE_NS late; a 1 ms kernel is never batched. A process killed outright drops its
 * threads' sums (< BATCH_CHARGE_NS each), as it drops the launches it had not made.
 */
#define BATCH_CHARGE_NS 50000LL

static int64_t *dev_tat(uint32_t d);
static int64_t dev_burst(uint32_t d);

static void batch_flush(struct tcount *tc, int64_t now)
{
    if (!tc)
        return;
    tc->fast_slack = FAST_CLOSED;
    if (tc->batch_cost == 0)
        return;
    int64_t *tat = dev_tat(tc->batch_dev);
    if (tat)
        vnpu_gcra_adjust(tat, now, (int64_t)tc->batch_cost, tc->batch_share, dev_burst(tc->batch_dev));
    tc->batch_cost = 0;
    tc->batch_charge = 0;
}

static inline __attribute__((always_inline)) void tc_add(uint64_t *field, uint64_t n)
{
    __atomic_store_n(field, __atomic_load_n(field, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

/* ---------- kernel cost table ---------- */
struct costent {
    uint64_t key;          /* 0 = empty; claimed (or taken over from the least recently used key) by CAS */
    uint64_t cost_ns;      /* read by hooks, written by the measurement thread */
    int64_t last_sample_ns;
    int64_t last_use_ns;   /* approximate (COST_TOUCH_NS): picks the entry a new key takes over */
    uint64_t win_key;      /* measurement thread only: the key win belongs to */
    uint64_t measured_key; /* the key whose first measurement was charged (first_measurement) */
    uint32_t stalls;       /* brackets in a row not taken because they waited for the host (bracket_stalled) */
    uint64_t pending_n;    /* launches of the key before its first measurement ... */
    uint64_t pending_charged; /* ... and the device ns they were charged (the seed each) */
    struct vnpu_cost_window win; /* measurement thread only */
};
static struct costent costs[COST_TABLE];
/* What a kernel never measured is charged: the LARGEST estimate of the last window (any key), so work
 * whose key keeps changing (block count following a dynamic shape) is never charged a small kernel's
 * cost; its first measurement then re-charges it in full (first_measurement). */
static uint64_t seed_cost_ns = SEED_COST_NS;
/* The largest value of the last VNPU_COST_BUCKETS x VNPU_COST_BUCKET_NS (measurement thread only). */
struct maxwin {
    int64_t bucket_start;
    uint32_t cur;
    uint64_t max[VNPU_COST_BUCKETS];
};
static struct maxwin seed_win;

static uint64_t maxwin_add(struct maxwin *w, int64_t now, uint64_t ns)
{
    for (int n = 0; now - w->bucket_start >= VNPU_COST_BUCKET_NS && n < VNPU_COST_BUCKETS; n++) {
        w->cur = (w->cur + 1) % VNPU_COST_BUCKETS;
        w->max[w->cur] = 0;
        w->bucket_start += VNPU_COST_BUCKET_NS;
    }
    if (now - w->bucket_start >= VNPU_COST_BUCKET_NS)
        w->bucket_start = now;
    if (ns > w->max[w->cur])
        w->max[w->cur] = ns;
    uint64_t m = 0;
    for (int b = 0; b < VNPU_COST_BUCKETS; b++)
        if (w->max[b] > m)
            m = w->max[b];
    return m;
}

static uint64_t seed_add(int64_t now, uint64_t ns)
{
    uint64_t m = maxwin_add(&seed_win, now, ns);
    return m ? m : SEED_COST_NS;
}

uint64_t vnpu_kernel_key(int sym, const void *fn, uint64_t tiling_key, uint32_t num_blocks)
{
    uint64_t h = (uint64_t)(uintptr_t)fn * 0x9E3779B97F4A7C15ULL;
    h ^= (tiling_key + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    h ^= ((uint64_t)num_blocks << 32 | (uint32_t)sym) * 0x165667B19E3779F9ULL;
    h ^= h >> 29;
    return h ? h : 1;
}

static int table_full_logged;

/* The first slot of key's probe window (cost_find; the fast path looks there only). */
static inline uint32_t cost_slot(uint64_t key) { return (uint32_t)(key ^ (key >> 32)) % COST_TABLE; }

/* A fresh entry for key: charged conservatively (the seed) until its own measurement arrives. */
static void cost_init(struct costent *e, int64_t now)
{
    __atomic_store_n(&e->cost_ns, __atomic_load_n(&seed_cost_ns, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
    __atomic_store_n(&e->last_sample_ns, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&e->last_use_ns, now, __ATOMIC_RELAXED);
    __atomic_store_n(&e->measured_key, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&e->pending_n, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&e->pending_charged, 0, __ATOMIC_RELAXED);
}

/*
 * The entry of key. With insert, a key not in the table gets an empty entry of its probe window or,
 * when all are taken, the least recently used one (that key is measured again when it comes back):
 * the table never stops measuring new keys. *fresh: the key was not in the table (charged the seed).
 */
static struct costent *cost_find(uint64_t key, int insert, int *fresh, int64_t now)
{
    if (fresh)
        *fresh = 0;
    uint32_t i = cost_slot(key);
    struct costent *victim = NULL;
    int64_t oldest = INT64_MAX;
    for (int p = 0; p < COST_PROBE; p++, i = (i + 1) % COST_TABLE) {
        struct costent *e = &costs[i];
        uint64_t k = __atomic_load_n(&e->key, __ATOMIC_ACQUIRE);
        if (k == key) {
            if (now - __atomic_load_n(&e->last_use_ns, __ATOMIC_RELAXED) >= COST_TOUCH_NS)
                __atomic_store_n(&e->last_use_ns, now, __ATOMIC_RELAXED);
            return e;
        }
        if (k == 0) {
            if (!insert)
                return NULL;
            uint64_t zero = 0;
            __atomic_store_n(&e->cost_ns, __atomic_load_n(&seed_cost_ns, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
            if (__atomic_compare_exchange_n(&e->key, &zero, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                cost_init(e, now);
                if (fresh)
                    *fresh = 1;
                return e;
            }
            if (zero == key)
                return e;
            k = zero;
        }
        int64_t used = __atomic_load_n(&e->last_use_ns, __ATOMIC_RELAXED);
        if (used < oldest) {
            oldest = used;
            victim = e;
        }
    }
    if (!insert || !victim)
        return NULL;
    uint64_t old = __atomic_load_n(&victim->key, __ATOMIC_ACQUIRE);
    if (old == key || old == 0
        || !__atomic_compare_exchange_n(&victim->key, &old, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return old == key ? victim : NULL; /* lost a race: charged the seed this once */
    cost_init(victim, now);
    if (fresh)
        *fresh = 1;
    if (!__atomic_exchange_n(&table_full_logged, 1, __ATOMIC_RELAXED))
        compute_log("kernel cost table (%d keys) full where a new key belongs: the least recently used "
                    "key there is measured again when it returns (charged conservatively until then)", COST_TABLE);
    return victim;
}

static int64_t *dev_tat(uint32_t d);
static int64_t dev_burst(uint32_t d);
static uint32_t dev_share(uint32_t d);

/*
 * Launches of a key made before its first measurement were charged the seed. The measured launch is
 * charged its measured span at once. The others are charged the key's estimate SETTLE_NS later
 * (the smallest span by then: a first span can be inflated by queueing behind neighbours, and
 * multiplying it by every early launch would overcharge), or at once when called from a hook or when
 * the list is full. Either way every launch is charged its measured cost in full (the rest is debt,
 * an overcharge is refunded).
 */
#define SETTLE_MAX 64
#define SETTLE_NS  100000000LL
struct settle {
    struct costent *e;
    uint64_t key, n, charged, first_ns;
    uint32_t dev;
    int64_t at;
};
static struct settle settles[SETTLE_MAX]; /* measurement thread only */
static int settle_n;

static void charge_launches(uint32_t dev, uint64_t n, uint64_t each_ns, uint64_t charged)
{
    int64_t *tat = dev_tat(dev);
    if (tat && n > 0)
        vnpu_gcra_adjust(tat, now_ns(), (int64_t)(n * each_ns) - (int64_t)charged, dev_share(dev), dev_burst(dev));
}

static void first_measurement(void *entry, uint64_t key, uint32_t dev, uint64_t ns, int defer)
{
    struct costent *e = entry;
    if (!e || __atomic_load_n(&e->key, __ATOMIC_ACQUIRE) != key)
        return; /* the entry went to another key meanwhile */
    uint64_t was = __atomic_load_n(&e->measured_key, __ATOMIC_RELAXED);
    if (was == key || !__atomic_compare_exchange_n(&e->measured_key, &was, key, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return;
    __atomic_store_n(&e->cost_ns, ns, __ATOMIC_RELAXED); /* the estimate until the window has it */
    uint64_t n = __atomic_exchange_n(&e->pending_n, 0, __ATOMIC_RELAXED);
    uint64_t charged = __atomic_exchange_n(&e->pending_charged, 0, __ATOMIC_RELAXED);
    if (n == 0)
        return;
    uint64_t each = charged / n;
    charge_launches(dev, 1, ns, each); /* the measured one */
    if (n == 1)
        return;
    if (defer && settle_n < SETTLE_MAX)
        settles[settle_n++] = (struct settle){e, key, n - 1, charged - each, ns, dev, now_ns()};
    else
        charge_launches(dev, n - 1, ns, charged - each);
}

/* measurement thread: the early launches of keys first measured SETTLE_NS ago, at their estimate */
static void settle_due(int64_t now)
{
    for (int i = 0; i < settle_n;) {
        struct settle *t = &settles[i];
        if (now - t->at < SETTLE_NS) {
            i++;
            continue;
        }
        uint64_t est = __atomic_load_n(&t->e->key, __ATOMIC_ACQUIRE) == t->key
                           ? __atomic_load_n(&t->e->cost_ns, __ATOMIC_RELAXED) : t->first_ns;
        charge_launches(t->dev, t->n, est < t->first_ns ? est : t->first_ns, t->charged);
        settles[i] = settles[--settle_n];
    }
}

/* ---------- per-device state ---------- */
enum { DEV_UNINIT = 0, DEV_ON, DEV_OFF };
struct devstate {
    int state;               /* DEV_*: read by hooks without a lock */
    struct vnpu_reg reg;     /* read-only view of the NPU's registry (fd -1: nobody to coordinate with) */
    struct vnpu_reg_self self; /* own parameters, from the own quota region */
    int64_t *tat;            /* GCRA state: in the own quota region (per container and device) */
    uint64_t *activity;      /* activity time: in the own quota region, read by neighbours */
    int64_t last_launch_cache;
    uint32_t share_ppm;      /* written by the measurement thread */
    int64_t credit_ns;       /* written by the measurement thread: see take_sample */
    struct maxwin span_win;  /* measurement thread only: the longest measured span of the last window */
    rtContext_t ctx;         /* the launching thread's context: the measurement thread borrows it */
    /* published totals (measurement thread only) */
    uint64_t pub_launches[VNPU_SYM_COUNT];
    uint64_t pub_charged, pub_throttled, pub_samples;
    int64_t pub_at;          /* CLOCK_MONOTONIC ns of the last publication (measurement thread) */
    uint64_t samples;        /* completed measurements (measurement thread) */
};
static struct devstate devs[VNPU_COMPUTE_MAX_DEVICES];
static pthread_mutex_t dev_mu = PTHREAD_MUTEX_INITIALIZER;

static struct vnpu_compute_config cfg;
int vnpu_compute_cfg_state; /* VNPU_COMPUTE_CFG_*: read by the hooks' fast path (compute.h) */
static pthread_mutex_t cfg_mu = PTHREAD_MUTEX_INITIALIZER;

/* ---------- measurement brackets ---------- */
struct sample {
    rtEvent_t pre, post; /* NULL, NULL: a synchronous call measured on the host (direct_ns) */
    struct costent *ce;
    uint64_t key;      /* the kernel key (the entry may have been taken over by another since) */
    uint32_t dev;
    int64_t t0;
    uint64_t direct_ns;
    uint64_t charged;  /* device ns charged at launch */
    uint32_t share;    /* share at launch, ppm */
    int64_t host_ns;   /* host time from the pre event's record to the post event's */
    int pre_done;      /* the pre event had completed when the launch returned: the stream was idle */
};
static pthread_mutex_t smp_mu = PTHREAD_MUTEX_INITIALIZER;
static struct sample smp[MAX_SAMPLES];
static int smp_n;
static rtEvent_t pool[MAX_POOL_EVENTS];
static int pool_n;
static int smp_inflight; /* brackets taken by hooks and not yet returned */

/* Streams whose launches are recorded, not run: bound to a model (model != NULL) or being captured.
 * Forgotten when unbound, when the capture ends, when their model or the stream is destroyed, and
 * when the context that owns them is torn down (vnpu_compute_context_gone): ctx and proc_dev are the
 * binding thread's context and device (NULL / -1: not known, forgotten at any teardown). */
struct special_stream {
    rtStream_t stm;
    rtModel_t mdl;
    rtContext_t ctx;
    int32_t proc_dev;
};
static int special_n; /* hooks read it without a lock */
/* +1 whenever streams are destroyed (vnpu_compute_streams_gone): a new stream may then take a
 * destroyed one's address, on another device; the fast path's stream -> device memory is dropped */
static uint32_t stream_gen;
static struct special_stream special[MAX_SPECIAL];
/* +1 whenever a context a device state may have borrowed (devstate.ctx) was torn down: the
 * measurement thread then borrows again */
static uint32_t ctx_gen;

static int thread_state; /* 0 not started, 1 running, 2 failed */
static pthread_mutex_t thr_mu = PTHREAD_MUTEX_INITIALIZER;

static unsigned char missing_logged[VNPU_SYM_COUNT];
static int wait_bound_logged;

/* ---------- configuration and device join (first launch only) ---------- */
static int config_on(void)
{
    int s = __atomic_load_n(&vnpu_compute_cfg_state, __ATOMIC_ACQUIRE);
    if (__builtin_expect(s != VNPU_COMPUTE_CFG_UNKNOWN, 1))
        return s == VNPU_COMPUTE_CFG_ON;
    /* read outside cfg_mu: loading initialises the memory part (g_init_mu), which comes before cfg_mu
     * in the lock order (fork.h); two threads loading at once read the same region twice, harmlessly */
    struct vnpu_compute_config c;
    memset(&c, 0, sizeof c);
    int have = vnpu_compute_load_config(&c) == 0 && c.enabled;
    int events = have && c.registry_dir[0] != 0 && rt_ops_load();
    pthread_mutex_lock(&cfg_mu);
    s = vnpu_compute_cfg_state;
    if (s == VNPU_COMPUTE_CFG_UNKNOWN) {
        s = VNPU_COMPUTE_CFG_OFF;
        if (have && c.registry_dir[0] == 0) {
            compute_log("no registry directory configured: launches run unthrottled");
        } else if (have && !events) {
            compute_log("runtime event functions not found: launches run unthrottled");
        } else if (have) {
            cfg = c;
            if (cfg.device_count == 0 || cfg.device_count > VNPU_COMPUTE_MAX_DEVICES)
                cfg.device_count = 1;
            s = VNPU_COMPUTE_CFG_ON;
        }
        __atomic_store_n(&vnpu_compute_cfg_state, s, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&cfg_mu);
    return s == VNPU_COMPUTE_CFG_ON;
}

static void dev_join(uint32_t d)
{
    struct devstate *ds = &devs[d];
    pthread_mutex_lock(&dev_mu);
    if (ds->state != DEV_UNINIT) {
        pthread_mutex_unlock(&dev_mu);
        return;
    }
    int st = DEV_OFF;
    const struct vnpu_compute_device_config *dc = &cfg.dev[d];
    ds->tat = vnpu_compute_region_word(d, VNPU_DS_GCRA_TAT_NS);
    ds->activity = vnpu_compute_region_word(d, VNPU_DS_LAST_LAUNCH_NS);
    if (d >= cfg.device_count || !ds->tat || !ds->activity) {
        compute_log("logical device %u is not described by the quota region: its launches run unthrottled", d);
    } else {
        ds->self.key = cfg.key;
        ds->self.weight = dc->weight;
        ds->self.cap_pct = dc->cap_pct;
        ds->self.prio = dc->prio;
        ds->self.policy = cfg.share_policy;
        vnpu_reg_none(&ds->reg);
        if (dc->phys_id < 0) {
            compute_log("logical device %u has no phy ID in the quota region: only its own cap applies", d);
        } else {
            char path[512];
            char name[64];
            snprintf(name, sizeof name, VNPU_REG_FILE_FMT, dc->phys_id);
            snprintf(path, sizeof path, "%s/%s", cfg.registry_dir, name);
            int err = 0;
            enum vnpu_reg_status rs = vnpu_reg_open(path, &ds->reg, &err);
            if (rs == VNPU_REG_IO)
                compute_log("%s: %s (%s): logical device %u coordinates with nobody (its own cap applies)", path,
                            vnpu_reg_strerror(rs), strerror(err), d);
            else if (rs != VNPU_REG_OK)
                compute_log("%s: %s: logical device %u coordinates with nobody (its own cap applies)", path,
                            vnpu_reg_strerror(rs), d);
            if (rs != VNPU_REG_OK)
                vnpu_reg_retry_later(&ds->reg, path); /* the agent may create or replace it later */
        }
        rtContext_t c = NULL;
        if (rt.ctx_get && rt.ctx_get(&c) == 0)
            __atomic_store_n(&ds->ctx, c, __ATOMIC_RELAXED);
        /* until the first share computation: what the registry says right now */
        struct vnpu_share_input in[VNPU_REG_ENTRY_COUNT + 1];
        int n = 0;
        int self = vnpu_reg_scan(&ds->reg, &ds->self, now_ns(), in, &n);
        __atomic_store_n(&ds->share_ppm, vnpu_share_ppm(in, n, self), __ATOMIC_RELEASE);
        st = DEV_ON;
    }
    __atomic_store_n(&ds->state, st, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&dev_mu);
}

static void *measure_main(void *arg);

static void thread_start(void)
{
    if (__builtin_expect(__atomic_load_n(&thread_state, __ATOMIC_ACQUIRE) != 0, 1))
        return;
    pthread_mutex_lock(&thr_mu);
    if (thread_state == 0) {
        pthread_t t;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        int rc = pthread_create(&t, &a, measure_main, NULL);
        pthread_attr_destroy(&a);
        if (rc != 0)
            compute_log("cannot start the measurement thread (%s): device time is not measured", strerror(rc));
        __atomic_store_n(&thread_state, rc == 0 ? 1 : 2, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&thr_mu);
}

/* ---------- the launch bracket ---------- */
/* The configuration's device of the launching thread's current device; VNPU_COMPUTE_MAX_DEVICES when
 * it has none or the configuration does not describe it (then the launch is not throttled).
 * *proc_dev: the runtime's number of the device (rtGetDevice), -1 when it told none. */
static uint32_t current_dev(int32_t *proc_dev)
{
    int32_t d = 0;
    *proc_dev = -1;
    if (!rt.get_device || rt.get_device(&d) != 0 || d < 0 || (uint32_t)d >= VNPU_COMPUTE_MAX_DEVICES)
        return cfg.device_count == 1 ? 0 : VNPU_COMPUTE_MAX_DEVICES;
    *proc_dev = d;
    uint32_t m = vnpu_compute_map_device((uint32_t)d);
    return m < cfg.device_count ? m : VNPU_COMPUTE_MAX_DEVICES;
}

static int stream_is_special(rtStream_t stm)
{
    if (__builtin_expect(__atomic_load_n(&special_n, __ATOMIC_ACQUIRE) == 0, 1))
        return 0;
    int hit = 0;
    pthread_mutex_lock(&smp_mu);
    for (int i = 0; i < special_n; i++)
        if (special[i].stm == stm)
            hit = 1;
    pthread_mutex_unlock(&smp_mu);
    return hit;
}

static void special_remove_at(int at)
{
    special[at] = special[special_n - 1];
    __atomic_store_n(&special_n, special_n - 1, __ATOMIC_RELEASE);
}

/* The binding thread's context and device, for forgetting the binding with its context. Resolved
 * here, not with rt_ops_load: a model is usually bound before the process's first launch. */
static void binding_owner(rtContext_t *ctx, int32_t *proc_dev)
{
    static void *get_ctx, *get_dev;
    void *gc = __atomic_load_n(&get_ctx, __ATOMIC_ACQUIRE), *gd = __atomic_load_n(&get_dev, __ATOMIC_ACQUIRE);
    if (!gc || !gd) {
        gc = vnpu_rt_resolve("rtCtxGetCurrent");
        gd = vnpu_rt_resolve("rtGetDevice");
        __atomic_store_n(&get_ctx, gc, __ATOMIC_RELEASE);
        __atomic_store_n(&get_dev, gd, __ATOMIC_RELEASE);
    }
    *ctx = NULL;
    *proc_dev = -1;
    if (gc && ((rtError_t(*)(rtContext_t *))gc)(ctx) != 0)
        *ctx = NULL;
    if (gd && ((rtError_t(*)(int32_t *))gd)(proc_dev) != 0)
        *proc_dev = -1;
}

void vnpu_compute_stream_special(rtStream_t stm, rtModel_t mdl, int on)
{
    rtContext_t ctx = NULL;
    int32_t proc_dev = -1;
    if (on)
        binding_owner(&ctx, &proc_dev);
    pthread_mutex_lock(&smp_mu);
    int at = -1;
    for (int i = 0; i < special_n; i++)
        if (special[i].stm == stm)
            at = i;
    if (on && at < 0 && special_n < MAX_SPECIAL) {
        special[special_n] = (struct special_stream){stm, mdl, ctx, proc_dev};
        __atomic_store_n(&special_n, special_n + 1, __ATOMIC_RELEASE);
    } else if (on && at >= 0) {
        special[at].mdl = mdl;
        special[at].ctx = ctx;
        special[at].proc_dev = proc_dev;
    } else if (!on && at >= 0) {
        special_remove_at(at);
    }
    pthread_mutex_unlock(&smp_mu);
}

void vnpu_compute_streams_gone(void) { __atomic_fetch_add(&stream_gen, 1, __ATOMIC_RELAXED); }

/* The measurement thread stops borrowing ctx (and the context borrowed for device index dev) */
static void unborrow(rtContext_t ctx, uint32_t dev)
{
    int dropped = 0;
    for (uint32_t d = 0; d < VNPU_COMPUTE_MAX_DEVICES; d++) {
        rtContext_t c = __atomic_load_n(&devs[d].ctx, __ATOMIC_RELAXED);
        if (c && (c == ctx || d == dev)
            && __atomic_compare_exchange_n(&devs[d].ctx, &c, NULL, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            dropped = 1;
    }
    if (dropped)
        __atomic_fetch_add(&ctx_gen, 1, __ATOMIC_RELEASE);
}

void vnpu_compute_context_gone(rtContext_t ctx, int32_t proc_dev)
{
    vnpu_compute_streams_gone();
    pthread_mutex_lock(&smp_mu);
    for (int i = special_n - 1; i >= 0; i--) {
        const struct special_stream *e = &special[i];
        int owned = ctx ? e->ctx == ctx : e->proc_dev == proc_dev;
        if (owned || !e->ctx || e->proc_dev < 0)
            special_remove_at(i);
    }
    pthread_mutex_unlock(&smp_mu);
    /* a borrowed context that went (a reset's primary context is not named: the device's is dropped)
     * is borrowed again from the next launch on that device */
    unborrow(ctx, ctx || proc_dev < 0 ? VNPU_COMPUTE_MAX_DEVICES : vnpu_compute_map_device((uint32_t)proc_dev));
}

void vnpu_compute_context_going(rtContext_t ctx) { unborrow(ctx, VNPU_COMPUTE_MAX_DEVICES); }

void vnpu_compute_forget(rtStream_t stm, rtModel_t mdl)
{
    vnpu_compute_streams_gone();
    pthread_mutex_lock(&smp_mu);
    for (int i = special_n - 1; i >= 0; i--)
        if ((stm && special[i].stm == stm) || (mdl && special[i].mdl == mdl))
            special_remove_at(i);
    pthread_mutex_unlock(&smp_mu);
}

/* Takes two events for a bracket, creating them on first use; 0 or -1. */
static int bracket_take(rtEvent_t *a, rtEvent_t *b)
{
    pthread_mutex_lock(&smp_mu);
    if (smp_inflight >= MAX_SAMPLES) {
        pthread_mutex_unlock(&smp_mu);
        return -1;
    }
    smp_inflight++;
    *a = pool_n > 0 ? pool[--pool_n] : NULL;
    *b = pool_n > 0 ? pool[--pool_n] : NULL;
    pthread_mutex_unlock(&smp_mu);
    if ((*a == NULL && rt.event_create(a) != 0) || (*b == NULL && rt.event_create(b) != 0)) {
        pthread_mutex_lock(&smp_mu);
        smp_inflight--;
        if (*a && pool_n < MAX_POOL_EVENTS)
            pool[pool_n++] = *a;
        else if (*a)
            rt.event_destroy(*a);
        pthread_mutex_unlock(&smp_mu);
        return -1;
    }
    return 0;
}

static void bracket_give_back(rtEvent_t a, rtEvent_t b)
{
    pthread_mutex_lock(&smp_mu);
    smp_inflight--;
    rtEvent_t ev[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        if (pool_n < MAX_POOL_EVENTS)
            pool[pool_n++] = ev[i];
        else
            rt.event_destroy(ev[i]);
    }
    pthread_mutex_unlock(&smp_mu);
}

static void before_impl(struct vnpu_launch *l, int sym, uint64_t key, rtStream_t stm, int sync);
static int64_t *dev_tat(uint32_t d);

void vnpu_compute_before_sync(struct vnpu_launch *l, int sym, uint64_t key) { before_impl(l, sym, key, NULL, 1); }

/*
 * The fast path: a launch that the slow path (before_impl) would admit into the thread's open batch
 * without waiting, decided without reading the clock or the container's word and with no atomic
 * read-modify-write. It applies only while everything the slow path decided the batch on still
 * holds: same process (no fork), no special stream, the same device and share, the same measurement
 * tick and fewer than CLOCK_REUSE uses of the thread's clock reading (so the slow path would reuse
 * it too), a key measured before and found in its first slot, no measurement bracket due, and the
 * batch within both BATCH_CHARGE_NS and the slack read from the word at the batch's last slow-path
 * launch. The one difference from the slow path: charges other threads or processes of the
 * container added to the word since that read are seen at the next slow-path launch (within
 * CLOCK_REUSE launches or one measurement tick), like this thread's own batch is seen by them.
 * The activity stamp (last_launch_ns) is left to the slow path: at the same clock reading it would
 * not move (LAST_LAUNCH_GRAIN). Fills only l->in_call_since and l->sampled (all vnpu_compute_after
 * reads of a launch not sampled). Returns 0, having changed nothing, when the slow path must decide.
 */
static inline __attribute__((always_inline)) int launch_fast(struct vnpu_launch *l, int sym, uint64_t key,
                                                             rtStream_t stm)
{
    struct tcount *tc = tc_self;
    if (__builtin_expect(!tc || tc->fast_slack == FAST_CLOSED, 0) || vnpu_fork_changed()
        || __atomic_load_n(&special_n, __ATOMIC_ACQUIRE) != 0)
        return 0;
    /* the device: a stream stays on the device it was created on, so a launch on the stream last
     * seen with the batch's device needs no rtGetDevice (the default stream NULL follows the thread) */
    uint32_t gen = __atomic_load_n(&stream_gen, __ATOMIC_RELAXED);
    int known = stm != NULL && stm == tc->fast_stream && gen == tc->fast_stream_gen;
    if (!known) {
        int32_t pd;
        if (rt.get_device(&pd) != 0 || pd != tc->fast_proc_dev)
            return 0;
    }
    if (tc->clock_tick != __atomic_load_n(&clock_tick, __ATOMIC_RELAXED) || tc->clock_uses >= CLOCK_REUSE)
        return 0;
    struct costent *ce = &costs[cost_slot(key)];
    if (__atomic_load_n(&ce->key, __ATOMIC_ACQUIRE) != key
        || __atomic_load_n(&ce->measured_key, __ATOMIC_RELAXED) != key)
        return 0;
    uint32_t d = tc->batch_dev;
    if (__atomic_load_n(&devs[d].share_ppm, __ATOMIC_RELAXED) != tc->batch_share)
        return 0;
    int64_t now = tc->clock_ns;
    if (now - __atomic_load_n(&ce->last_sample_ns, __ATOMIC_RELAXED) >= SAMPLE_INTERVAL_NS)
        return 0; /* a bracket is due: the slow path takes it */
    uint64_t cost = __atomic_load_n(&ce->cost_ns, __ATOMIC_RELAXED);
    int64_t charge = launch_charge(tc, cost, tc->batch_share);
    if (tc->batch_charge + charge >= BATCH_CHARGE_NS || tc->batch_charge > tc->fast_slack)
        return 0;
    tc->clock_uses++;
    tc_add(&tc->launches[d][sym], 1);
    tc_add(&tc->charged_ns[d], cost);
    tc->batch_cost += cost;
    tc->batch_charge += charge;
    if (now - __atomic_load_n(&ce->last_use_ns, __ATOMIC_RELAXED) >= COST_TOUCH_NS)
        __atomic_store_n(&ce->last_use_ns, now, __ATOMIC_RELAXED);
    __atomic_store_n(&tc->in_call_dev, d, __ATOMIC_RELAXED);
    __atomic_store_n(&tc->in_call_since, now, __ATOMIC_RELAXED);
    l->in_call_since = &tc->in_call_since;
    l->sampled = 0;
    if (!known && stm != NULL) {
        tc->fast_stream = stm;
        tc->fast_stream_gen = gen;
    }
    return 1;
}

/* inlined into every launch hook (link-time optimisation): the fast path then shares the hook's frame */
__attribute__((always_inline)) inline void vnpu_compute_before(struct vnpu_launch *l, int sym, uint64_t key,
                                                               rtStream_t stm)
{
    if (__builtin_expect(launch_fast(l, sym, key, stm), 1))
        return;
    before_impl(l, sym, key, stm, 0);
}

void vnpu_compute_after_sync(struct vnpu_launch *l, rtError_t rc, int64_t elapsed_ns)
{
    if (l->in_call_since)
        __atomic_store_n(l->in_call_since, 0, __ATOMIC_RELAXED);
    if (rc != 0 || !l->cost || elapsed_ns <= 0)
        return;
    /* measured right here: a first measurement is charged in full before the caller's next
     * execution is admitted */
    first_measurement(l->cost, l->key, l->dev, (uint64_t)elapsed_ns, 0);
    pthread_mutex_lock(&smp_mu);
    if (smp_n < MAX_SAMPLES) {
        struct sample *s = &smp[smp_n++];
        memset(s, 0, sizeof *s);
        s->ce = l->cost;
        s->dev = l->dev;
        s->t0 = now_ns();
        s->direct_ns = (uint64_t)elapsed_ns;
        s->charged = l->charged;
        s->share = l->share;
        s->key = l->key;
    }
    pthread_mutex_unlock(&smp_mu);
}

/*
 * A bracket's span runs from the pre event to the post event on the launch's stream. When the stream
 * was idle at the pre event (it had completed by the time the launch returned), the device may have
 * waited inside the bracket for the host: for the runtime's own work before it queued the kernel (a
 * first launch of a kernel, the simulator's first records) or for the launching thread, preempted on
 * a loaded host. Such a span only says that the kernel took at most that long; taken as the kernel's
 * cost, a 1 ms kernel was once charged 138 ms, which held a 4-process container at a 10 % cap to
 * 0.1 % for seconds (its launches waited out the debt, so no better measurement came; issue: 3-9 %
 * on a loaded host). So a span whose host side took at least HOST_STALL_NS and a quarter of the span
 * is not taken and the key is bracketed again at its next launch; after STALL_RETRIES such spans in
 * a row the next one is taken as it is (a host that always stalls still gets its kernels measured).
 * A launch that blocked behind a full stream is not a stall: its pre event waited for the stream's
 * own work. Calls that wait for their work by contract (rtModelExecuteSync) are never stalls.
 */
static int bracket_stalled(const struct sample *s, uint64_t span_ns)
{
    return s->pre_done && s->host_ns >= HOST_STALL_NS && (uint64_t)s->host_ns * 4 >= span_ns;
}

/* Whether the sample's span is dropped as a stall (and the key bracketed again); counts the stalls. */
static int stall_retry(const struct sample *s, uint64_t span_ns)
{
    struct costent *ce = s->ce;
    if (!ce || __atomic_load_n(&ce->key, __ATOMIC_ACQUIRE) != s->key)
        return 0;
    uint32_t n = __atomic_load_n(&ce->stalls, __ATOMIC_RELAXED);
    if (!bracket_stalled(s, span_ns) || n >= STALL_RETRIES) {
        __atomic_store_n(&ce->stalls, 0, __ATOMIC_RELAXED);
        return 0;
    }
    __atomic_store_n(&ce->stalls, n + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&ce->last_sample_ns, 0, __ATOMIC_RELAXED); /* the next launch is bracketed */
    return 1;
}

/*
 * A launch of a key whose earlier launch is measured but not yet read (the measurement thread polls
 * every millisecond; a caller that synchronised launches again at once): read it here, so that this
 * launch is charged the measured cost and the earlier ones their share of it before this one is
 * admitted. Returns 1 when the key is measured now. The sample is taken out of the list under its lock,
 * so the measurement thread never sees it meanwhile.
 */
static int measure_pending(struct costent *ce, uint64_t key)
{
    struct sample s;
    int found = 0;
    pthread_mutex_lock(&smp_mu);
    for (int i = 0; i < smp_n && !found; i++)
        if (smp[i].ce == ce && smp[i].key == key && smp[i].pre) {
            s = smp[i];
            smp[i] = smp[--smp_n];
            found = 1;
        }
    pthread_mutex_unlock(&smp_mu);
    if (!found)
        return 0;
    float ms = 0;
    int done = rt.event_query(s.post) == 0;
    if (done && rt.event_elapsed(&ms, s.pre, s.post) == 0 && ms > 0
        && !stall_retry(&s, (uint64_t)((double)ms * 1e6))) {
        bracket_give_back(s.pre, s.post);
        s.pre = s.post = NULL;
        s.direct_ns = (uint64_t)((double)ms * 1e6);
        first_measurement(ce, key, s.dev, s.direct_ns, 0);
    } else if (done) {
        bracket_give_back(s.pre, s.post);
        return 0;
    }
    /* back to the measurement thread: the estimator's window is its alone (a measured one as a direct
     * sample, an unfinished one as it was) */
    pthread_mutex_lock(&smp_mu);
    if (smp_n < MAX_SAMPLES)
        smp[smp_n++] = s;
    else if (s.pre)
        s.ce = NULL;
    pthread_mutex_unlock(&smp_mu);
    if (!s.ce && s.pre)
        bracket_give_back(s.pre, s.post);
    return s.pre == NULL;
}

/* The launching thread's context, for the measurement thread to borrow (vnpu_compute_context_gone
 * dropped the one it had, or there was none at the device's join) */
static __attribute__((noinline, cold)) void borrow_context(struct devstate *ds)
{
    rtContext_t c = NULL, none = NULL;
    if (rt.ctx_get && rt.ctx_get(&c) == 0 && c
        && __atomic_compare_exchange_n(&ds->ctx, &none, c, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        __atomic_fetch_add(&ctx_gen, 1, __ATOMIC_RELEASE);
}

static void before_impl(struct vnpu_launch *l, int sym, uint64_t key, rtStream_t stm, int sync)
{
    l->sync = sync;
    l->sym = sym;
    l->sampled = 0;
    l->charged = 0;
    l->share = VNPU_SHARE_FULL;
    l->cost = NULL;
    l->stream = stm;
    l->dev = 0;
    l->in_call_since = NULL;
    /* a raw clone() child that only launches starts clean too (fork.h; two loads) */
    if (__builtin_expect(vnpu_fork_changed(), 0))
        vnpu_fork_adopt();
    if (!config_on())
        return;
    int32_t proc_dev;
    uint32_t gen = __atomic_load_n(&stream_gen, __ATOMIC_RELAXED); /* before the device is read */
    uint32_t d = current_dev(&proc_dev);
    if (d >= VNPU_COMPUTE_MAX_DEVICES)
        return; /* no device, or one the quota region does not describe: not ours to throttle */
    l->dev = d;
    struct devstate *ds = &devs[d];
    int st = __atomic_load_n(&ds->state, __ATOMIC_ACQUIRE);
    if (__builtin_expect(st == DEV_UNINIT, 0)) {
        dev_join(d);
        st = __atomic_load_n(&ds->state, __ATOMIC_ACQUIRE);
        if (st == DEV_ON)
            thread_start(); /* nothing to measure or coordinate on devices that run unthrottled */
    }
    struct tcount *tc = tc_get();
    if (tc)
        tc_add(&tc->launches[d][sym], 1);
    if (st != DEV_ON || stream_is_special(stm))
        return;
    if (__builtin_expect(__atomic_load_n(&ds->ctx, __ATOMIC_RELAXED) == NULL, 0))
        borrow_context(ds);

    int reused;
    int64_t now = launch_now(tc, &reused);
    int fresh = 0;
    struct costent *ce = cost_find(key, 1, &fresh, now);
    uint64_t cost = ce ? __atomic_load_n(&ce->cost_ns, __ATOMIC_RELAXED)
                       : __atomic_load_n(&seed_cost_ns, __ATOMIC_RELAXED);
    uint32_t share = __atomic_load_n(&ds->share_ppm, __ATOMIC_RELAXED);
    l->charged = cost;
    l->key = key;
    (void)fresh;
    if (ce && __atomic_load_n(&ce->measured_key, __ATOMIC_RELAXED) != key
        && __atomic_load_n(&ce->pending_n, __ATOMIC_RELAXED) > 0 && measure_pending(ce, key))
        cost = __atomic_load_n(&ce->cost_ns, __ATOMIC_RELAXED);
    if (ce && __atomic_load_n(&ce->measured_key, __ATOMIC_RELAXED) != key) {
        /* charged the seed before the key's first measurement: made up for by first_measurement */
        __atomic_fetch_add(&ce->pending_n, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&ce->pending_charged, cost, __ATOMIC_RELAXED);
    }
    if (tc)
        tc_add(&tc->charged_ns[d], cost);

    /*
     * GCRA with debt (compute_gcra.h): conform when the container's debt is at most the burst, then
     * charge cost / share in full. At whole-device share the same rule bounds the container's queued
     * device work to the burst, so a neighbour that wakes up never waits behind streams x depth of it.
     */
    int64_t credit = share >= VNPU_SHARE_FULL ? 0 : __atomic_load_n(&ds->credit_ns, __ATOMIC_RELAXED);
    int64_t charge = share == 0 ? 0 : launch_charge(tc, cost, share);
    int64_t first_wait = 0;
    if (share != 0 && tc && charge < BATCH_CHARGE_NS) {
        if (tc->batch_cost != 0 && (!reused || tc->batch_dev != d || tc->batch_share != share
                                    || tc->batch_charge + charge >= BATCH_CHARGE_NS))
            batch_flush(tc, now);
        int64_t slack = vnpu_gcra_slack(ds->tat, now, share, ds->reg.burst_ns, credit);
        first_wait = vnpu_gcra_wait_beyond(tc->batch_charge, slack);
        if (first_wait == 0) {
            tc->batch_dev = d;
            tc->batch_share = share;
            tc->batch_cost += cost;
            tc->batch_charge += charge;
            /* the next launches of this batch may take the fast path: same clock reading, so the
             * same decision as here, with the word as read here */
            if (proc_dev >= 0 && now == tc->clock_ns && __atomic_load_n(&thread_state, __ATOMIC_RELAXED) == 1) {
                tc->fast_slack = slack;
                tc->fast_proc_dev = proc_dev;
                tc->fast_stream = stm;
                tc->fast_stream_gen = gen;
            }
        } else {
            batch_flush(tc, now); /* the wait below sees every charge */
            first_wait = vnpu_gcra_admit_charged(ds->tat, now, charge, share, ds->reg.burst_ns, credit);
        }
    } else {
        batch_flush(tc, now);
        if (share != 0)
            first_wait = vnpu_gcra_admit_charged(ds->tat, now, charge, share, ds->reg.burst_ns, credit);
    }
    if (__builtin_expect(first_wait != 0 && reused, 0)) {
        now = launch_now(NULL, &reused); /* never wait on a stale clock (launch_now) */
        if (tc) {
            tc->clock_ns = now;
            tc->clock_uses = CLOCK_REUSE; /* the next launch reads the clock too */
        }
        first_wait = vnpu_gcra_admit_charged(ds->tat, now, charge, share, ds->reg.burst_ns, credit);
    }
    if (__builtin_expect(share == 0 || first_wait != 0, 0)) {
        int64_t start = now;
        if (tc && first_wait <= REPAY_NS) {
            /* wants more than its share gives it right now; a launch repaying the debt of a long
             * execution it already ran (a 1 s graph at 25 % waits 3 s) does not: its share was used
             * in advance, and its neighbours may use the device meanwhile */
            __atomic_store_n(&tc->in_call_dev, d, __ATOMIC_RELAXED);
            __atomic_store_n(&tc->wait_since, now, __ATOMIC_RELAXED);
        }
        /* strict priority: a higher class is busy; wait in steps, bounded by the registry's limit */
        while (share == 0 && now - start < ds->reg.prio_wait_ns) {
            sleep_ns(SLEEP_STEP_NS);
            now = now_ns();
            share = __atomic_load_n(&ds->share_ppm, __ATOMIC_RELAXED);
        }
        while (share > 0) {
            credit = share >= VNPU_SHARE_FULL ? 0 : __atomic_load_n(&ds->credit_ns, __ATOMIC_RELAXED);
            int64_t wait = vnpu_gcra_admit(ds->tat, now, cost, share, ds->reg.burst_ns, credit);
            if (wait == 0)
                break;
            if (now - start >= MAX_WAIT_NS) {
                /* fail open: the launch runs now; what it costs stays as debt for the next ones */
                vnpu_gcra_adjust(ds->tat, now, (int64_t)cost, share, ds->reg.burst_ns);
                if (!__atomic_exchange_n(&wait_bound_logged, 1, __ATOMIC_RELAXED))
                    compute_log("a launch waited %lld s for its share: it runs now, and the container's debt "
                                "is repaid by the next launches' waits", (long long)(MAX_WAIT_NS / 1000000000LL));
                break;
            }
            if (wait > SLEEP_STEP_NS)
                wait = SLEEP_STEP_NS;
            if (wait > MAX_WAIT_NS - (now - start))
                wait = MAX_WAIT_NS - (now - start);
            sleep_ns(wait);
            now = now_ns();
            share = __atomic_load_n(&ds->share_ppm, __ATOMIC_RELAXED);
        }
        if (tc) {
            tc_add(&tc->throttled_ns[d], (uint64_t)(now - start));
            __atomic_store_n(&tc->wait_since, 0, __ATOMIC_RELAXED);
        }
    }
    l->share = share;
    if (tc) {
        /* in flight from here until the runtime returns: a launch blocked in the runtime behind a full
         * stream is busy; one waiting out its own debt above is not (it will not use the device before
         * its wait ends, so its neighbours may) */
        __atomic_store_n(&tc->in_call_dev, d, __ATOMIC_RELAXED);
        __atomic_store_n(&tc->in_call_since, now, __ATOMIC_RELAXED);
        l->in_call_since = &tc->in_call_since;
    }
    if (now - __atomic_load_n(&ds->last_launch_cache, __ATOMIC_RELAXED) >= LAST_LAUNCH_GRAIN) {
        __atomic_store_n(&ds->last_launch_cache, now, __ATOMIC_RELAXED);
        __atomic_store_n(ds->activity, (uint64_t)now, __ATOMIC_RELAXED);
    }

    if (l->sync) {
        l->cost = ce; /* measured on the host by vnpu_compute_after_sync */
        return;
    }
    /* measurement bracket: now and then, per kernel key */
    if (ce && __atomic_load_n(&thread_state, __ATOMIC_ACQUIRE) == 1) {
        int64_t last = __atomic_load_n(&ce->last_sample_ns, __ATOMIC_RELAXED);
        if (now - last >= SAMPLE_INTERVAL_NS
            && __atomic_compare_exchange_n(&ce->last_sample_ns, &last, now, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)
            && bracket_take(&l->pre, &l->post) == 0) {
            if (rt.event_record(l->pre, stm) == 0) {
                l->sampled = 1;
                l->cost = ce;
                l->host_ns = now_ns(); /* the bracket's host side begins (bracket_stalled) */
            } else {
                bracket_give_back(l->pre, l->post);
            }
        }
    }
}

void vnpu_compute_after_sampled(struct vnpu_launch *l, rtError_t rc)
{
    int pre_done = 0;
    if (rc == 0) { /* before the post event: was the stream idle, and how long was the host away */
        pre_done = l->sym != VNPU_SYM_rtModelExecuteSync && rt.event_query(l->pre) == 0;
        l->host_ns = now_ns() - l->host_ns;
    }
    if (rc != 0 || rt.event_record(l->post, l->stream) != 0) {
        bracket_give_back(l->pre, l->post);
        return;
    }
    float ms = 0;
    if (l->sym == VNPU_SYM_rtModelExecuteSync && l->cost
        && __atomic_load_n(&((struct costent *)l->cost)->measured_key, __ATOMIC_RELAXED) != l->key
        && rt.event_query(l->post) == 0 && rt.event_elapsed(&ms, l->pre, l->post) == 0 && ms > 0)
        /* the call waited for the model: its first measurement is charged in full before the
         * caller's next execution is admitted (else that one would run on the seed's charge too) */
        first_measurement(l->cost, l->key, l->dev, (uint64_t)((double)ms * 1e6), 0);
    pthread_mutex_lock(&smp_mu);
    if (smp_n < MAX_SAMPLES) {
        smp[smp_n].pre = l->pre;
        smp[smp_n].post = l->post;
        smp[smp_n].ce = l->cost;
        smp[smp_n].dev = l->dev;
        smp[smp_n].t0 = now_ns();
        smp[smp_n].direct_ns = 0;
        smp[smp_n].charged = l->charged;
        smp[smp_n].share = l->share;
        smp[smp_n].key = l->key;
        smp[smp_n].host_ns = l->host_ns;
        smp[smp_n].pre_done = pre_done;
        smp_n++;
        pthread_mutex_unlock(&smp_mu);
        return;
    }
    pthread_mutex_unlock(&smp_mu);
    bracket_give_back(l->pre, l->post);
}

void vnpu_compute_missing_symbol(int sym)
{
    if (sym < 0 || sym >= VNPU_SYM_COUNT)
        return;
    if (__atomic_exchange_n(&missing_logged[sym], 1, __ATOMIC_RELAXED) == 0)
        compute_log("launch through %s, which the loaded runtime does not export: returning %d",
             vnpu_launch_symbol_names[sym], 207000);
}

uint32_t vnpu_compute_share_ppm(uint32_t dev)
{
    if (dev >= VNPU_COMPUTE_MAX_DEVICES || __atomic_load_n(&devs[dev].state, __ATOMIC_ACQUIRE) != DEV_ON)
        return VNPU_SHARE_FULL;
    return __atomic_load_n(&devs[dev].share_ppm, __ATOMIC_RELAXED);
}

uint64_t vnpu_compute_cost_ns(uint64_t key)
{
    struct costent *e = cost_find(key, 0, NULL, 0);
    return e ? __atomic_load_n(&e->cost_ns, __ATOMIC_RELAXED) : 0;
}

/* ---------- measurement thread ---------- */

/* A measurement of ns device time for the sample's key. */
static void take_sample(const struct sample *s, int64_t now, uint64_t ns)
{
    if (ns == 0)
        ns = 1;
    struct costent *ce = s->ce;
    first_measurement(ce, s->key, s->dev, ns, 1);
    if (__atomic_load_n(&ce->key, __ATOMIC_ACQUIRE) == s->key) {
        if (ce->win_key != s->key) { /* the entry was taken over by this key: a fresh window */
            memset(&ce->win, 0, sizeof ce->win);
            ce->win_key = s->key;
        }
        uint64_t est = vnpu_cost_add(&ce->win, now, ns);
        __atomic_store_n(&ce->cost_ns, est, __ATOMIC_RELAXED);
        __atomic_store_n(&seed_cost_ns, seed_add(now, est), __ATOMIC_RELAXED);
    } else {
        __atomic_store_n(&seed_cost_ns, seed_add(now, ns), __ATOMIC_RELAXED);
    }
    /* the exit destructor's publication reads it from another thread */
    __atomic_store_n(&devs[s->dev].samples, __atomic_load_n(&devs[s->dev].samples, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
    /*
     * Credit: a span is the kernel's own time plus the time it queued behind other work (a neighbour's
     * long graph, say). While queued, the container's launches block in the runtime (full stream) and
     * its GCRA state falls behind the clock: that share is lost, and the device idles later. The
     * container may lag the clock by up to the longest span it measured recently (at most
     * MAX_CREDIT_NS), so it makes up for such waits; idle time beyond that is not banked.
     */
    uint64_t longest = maxwin_add(&devs[s->dev].span_win, now, ns);
    __atomic_store_n(&devs[s->dev].credit_ns,
                     (int64_t)(longest < (uint64_t)MAX_CREDIT_NS ? longest : (uint64_t)MAX_CREDIT_NS), __ATOMIC_RELAXED);
}

static void measure_samples(int64_t now)
{
    /* take the brackets out, query without holding the lock, put the unfinished ones back */
    struct sample all[MAX_SAMPLES];
    pthread_mutex_lock(&smp_mu);
    int n = smp_n;
    memcpy(all, smp, (size_t)n * sizeof all[0]);
    smp_n = 0;
    pthread_mutex_unlock(&smp_mu);
    int keep = 0;
    for (int i = 0; i < n; i++) {
        struct sample *s = &all[i];
        if (!s->pre) {
            take_sample(s, now, s->direct_ns);
            continue;
        }
        int over = now - s->t0 > SAMPLE_TIMEOUT_NS;
        if (!over && rt.event_query(s->post) != 0) {
            all[keep++] = *s;
            continue;
        }
        float ms = 0;
        if (!over && rt.event_elapsed(&ms, s->pre, s->post) == 0 && ms > 0
            && !stall_retry(s, (uint64_t)((double)ms * 1e6)))
            take_sample(s, now, (uint64_t)((double)ms * 1e6));
        bracket_give_back(s->pre, s->post);
    }
    pthread_mutex_lock(&smp_mu);
    for (int i = 0; i < keep && smp_n < MAX_SAMPLES; i++)
        smp[smp_n++] = all[i];
    pthread_mutex_unlock(&smp_mu);
}

static int64_t dev_burst(uint32_t d) { return devs[d].reg.burst_ns; }
static uint32_t dev_share(uint32_t d) { return __atomic_load_n(&devs[d].share_ppm, __ATOMIC_RELAXED); }

static int64_t *dev_tat(uint32_t d)
{
    return d < VNPU_COMPUTE_MAX_DEVICES && __atomic_load_n(&devs[d].state, __ATOMIC_ACQUIRE) == DEV_ON ? devs[d].tat
                                                                                                      : NULL;
}

static pthread_mutex_t pub_mu = PTHREAD_MUTEX_INITIALIZER; /* thread's publications vs the exit one */

/* Launches of this process are in flight on dev: a thread is inside a launch (throttled, or blocked in
 * the runtime behind a full stream), or a measured launch has not completed on the device yet. */
static int in_flight(uint32_t d, int64_t now)
{
    int busy = 0;
    pthread_mutex_lock(&tc_mu);
    for (struct tcount *t = tc_head; t && !busy; t = t->next) {
        int64_t since = __atomic_load_n(&t->in_call_since, __ATOMIC_RELAXED);
        busy = since != 0 && since <= now && __atomic_load_n(&t->in_call_dev, __ATOMIC_RELAXED) == d;
    }
    pthread_mutex_unlock(&tc_mu);
    if (!busy) {
        pthread_mutex_lock(&smp_mu);
        for (int i = 0; i < smp_n && !busy; i++)
            busy = smp[i].dev == d;
        pthread_mutex_unlock(&smp_mu);
    }
    return busy;
}

/* A launch on d wants more than it gets right now: a thread is inside the runtime's launch call
 * (blocked behind a full stream, say) or waiting for its share in the limiter (not repaying a long
 * execution's debt: wait_since is not set then). */
static int waiting_in_launch(uint32_t d, int64_t now)
{
    int waiting = 0;
    pthread_mutex_lock(&tc_mu);
    for (struct tcount *t = tc_head; t && !waiting; t = t->next) {
        int64_t since = __atomic_load_n(&t->in_call_since, __ATOMIC_RELAXED);
        if (since == 0)
            since = __atomic_load_n(&t->wait_since, __ATOMIC_RELAXED);
        waiting = since != 0 && since <= now && __atomic_load_n(&t->in_call_dev, __ATOMIC_RELAXED) == d;
    }
    pthread_mutex_unlock(&tc_mu);
    return waiting;
}

static void publish(uint32_t d, int64_t now)
{
    struct devstate *ds = &devs[d];
    uint64_t launches[VNPU_SYM_COUNT] = {0}, charged = 0, throttled = 0;
    pthread_mutex_lock(&tc_mu);
    for (struct tcount *t = tc_head; t; t = t->next) {
        for (int s = 0; s < VNPU_SYM_COUNT; s++)
            launches[s] += __atomic_load_n(&t->launches[d][s], __ATOMIC_RELAXED);
        charged += __atomic_load_n(&t->charged_ns[d], __ATOMIC_RELAXED);
        throttled += __atomic_load_n(&t->throttled_ns[d], __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&tc_mu);
    struct vnpu_compute_stats st;
    memset(&st, 0, sizeof st);
    for (int s = 0; s < VNPU_SYM_COUNT; s++) {
        st.sym_launches[s] = launches[s] - ds->pub_launches[s];
        st.launches += st.sym_launches[s];
        ds->pub_launches[s] = launches[s];
    }
    st.busy_ns = charged - ds->pub_charged;
    st.throttled_ns = throttled - ds->pub_throttled;
    uint64_t samples = __atomic_load_n(&ds->samples, __ATOMIC_RELAXED);
    st.samples = samples - ds->pub_samples;
    ds->pub_charged = charged;
    ds->pub_throttled = throttled;
    ds->pub_samples = samples;
    st.cost_ns = __atomic_load_n(&seed_cost_ns, __ATOMIC_RELAXED);
    st.share_ppm = __atomic_load_n(&ds->share_ppm, __ATOMIC_RELAXED);
    /* busy for the neighbours: launched recently (the hook stamps that) or launches still in flight */
    st.active_ns = in_flight(d, now) ? now : 0;
    /* sampled once per publication: the fraction of samples that find a launch waiting estimates the
     * fraction of time the container wants more than it gets (the node agent's saturation signal) */
    if (ds->pub_at != 0 && now > ds->pub_at && now - ds->pub_at < 1000000000LL && waiting_in_launch(d, now))
        st.blocked_ns = (uint64_t)(now - ds->pub_at);
    ds->pub_at = now;
    vnpu_compute_publish_region(d, &st);
}

/* ---------- launch entry points the runtime has and the limiter does not hook ---------- */
/*
 * Newer runtimes add launch entry points; work enqueued through one the limiter does not hook is not
 * throttled. The measurement thread reads libruntime.so's exported functions once (elf_exports.c)
 * and logs each launch-like name (containing "Launch" or "ModelExecute") that is not hooked.
 */
static int hooked_name(const char *n)
{
    for (int s = 0; s < VNPU_SYM_COUNT; s++)
        if (strcmp(n, vnpu_launch_symbol_names[s]) == 0)
            return 1;
    return 0;
}

static int launch_like(const char *n)
{
    return (n[0] == 'r' && n[1] == 't') && (strstr(n, "Launch") || strstr(n, "ModelExecute"));
}

static void unhooked_export(const char *object, const char *sym, void *arg)
{
    uint32_t *count = arg;
    if (launch_like(sym) && !hooked_name(sym)) {
        compute_log("%s exports launch entry point %s, which the limiter does not throttle", object, sym);
        (*count)++;
    }
}

static void scan_unhooked_launches(void)
{
    uint32_t count = 0;
    (void)vnpu_elf_exported_functions("libruntime.so", unhooked_export, &count);
    vnpu_compute_report_unhooked(count); /* reported, not silently passed (vnpu-quota reads it) */
}

/*
 * A live resize (`vnpu slices resize`, HostSlices.resize) rewrites weight, cap and priority class in
 * the quota region under config_seq. The measurement thread notices at its next share computation
 * (within SHARE_EVERY_POLLS ms), re-reads the configuration and computes the share with the new
 * values at once; launches read only the share, so the launch path pays nothing for this. A read that
 * fails (a writer stuck mid-update) keeps the values in use and is retried at the next computation.
 * Devices not joined yet pick the new values up from cfg when they join (dev_join, under dev_mu).
 */
static void config_refresh(void)
{
    uint32_t v = vnpu_compute_config_version();
    if (v == cfg.version || (v & 1u))
        return;
    struct vnpu_compute_config c;
    memset(&c, 0, sizeof c);
    if (vnpu_compute_load_config(&c) != 0)
        return;
    pthread_mutex_lock(&dev_mu);
    for (uint32_t d = 0; d < cfg.device_count && d < c.device_count; d++) {
        struct vnpu_compute_device_config *dc = &cfg.dev[d];
        if (dc->weight == c.dev[d].weight && dc->cap_pct == c.dev[d].cap_pct && dc->prio == c.dev[d].prio)
            continue;
        dc->weight = c.dev[d].weight;
        dc->cap_pct = c.dev[d].cap_pct;
        dc->prio = c.dev[d].prio;
        struct devstate *ds = &devs[d];
        if (ds->state == DEV_ON) {
            ds->self.weight = dc->weight;
            ds->self.cap_pct = dc->cap_pct;
            ds->self.prio = dc->prio;
        }
        compute_log("logical device %u resized: weight %u, cap %u %%, priority class %d", d, dc->weight,
                    dc->cap_pct, (int)dc->prio);
    }
    cfg.version = c.version;
    pthread_mutex_unlock(&dev_mu);
}

static void *measure_main(void *arg)
{
    (void)arg;
    scan_unhooked_launches();
    rtContext_t cur_ctx = NULL;
    uint32_t seen_ctx_gen = 0;
    for (unsigned tick = 0;; tick++) {
        sleep_ns(POLL_NS);
        int64_t now = now_ns();
        __atomic_store_n(&clock_tick, clock_tick + 1, __ATOMIC_RELAXED); /* launch_now: reads go stale */
        /* events are queried in the launching thread's context, borrowed: rtCtxSetCurrent takes no
         * device reference, so the application's rtDeviceReset still frees the device; a context the
         * application tore down is given up (ctx_gen) for one still borrowed, or the next one */
        uint32_t g = __atomic_load_n(&ctx_gen, __ATOMIC_ACQUIRE);
        if (g != seen_ctx_gen) {
            seen_ctx_gen = g;
            cur_ctx = NULL;
        }
        for (uint32_t d = 0; d < VNPU_COMPUTE_MAX_DEVICES && !cur_ctx; d++) {
            rtContext_t c = __atomic_load_n(&devs[d].ctx, __ATOMIC_RELAXED);
            if (__atomic_load_n(&devs[d].state, __ATOMIC_ACQUIRE) == DEV_ON && c && rt.ctx_set && rt.ctx_set(c) == 0)
                cur_ctx = c;
        }
        measure_samples(now);
        settle_due(now);
        if (tick % SHARE_EVERY_POLLS != 0)
            continue;
        config_refresh();
        for (uint32_t d = 0; d < VNPU_COMPUTE_MAX_DEVICES; d++) {
            struct devstate *ds = &devs[d];
            if (__atomic_load_n(&ds->state, __ATOMIC_ACQUIRE) != DEV_ON)
                continue;
            struct vnpu_share_input in[VNPU_REG_ENTRY_COUNT + 1];
            int n = 0;
            int self = vnpu_reg_scan(&ds->reg, &ds->self, now, in, &n);
            __atomic_store_n(&ds->share_ppm, vnpu_share_ppm(in, n, self), __ATOMIC_RELAXED);
            pthread_mutex_lock(&pub_mu);
            publish(d, now);
            pthread_mutex_unlock(&pub_mu);
        }
    }
    return NULL;
}

/* A process that exits normally publishes its last launches (the thread publishes every 5 ms). */
__attribute__((destructor)) static void compute_exit(void)
{
    batch_flush(tc_self, now_ns()); /* the exiting thread's last small launches */
    if (__atomic_load_n(&thread_state, __ATOMIC_ACQUIRE) != 1)
        return;
    if (pthread_mutex_trylock(&pub_mu) != 0)
        return; /* the thread is publishing right now: never wait at exit */
    for (uint32_t d = 0; d < VNPU_COMPUTE_MAX_DEVICES; d++)
        if (__atomic_load_n(&devs[d].state, __ATOMIC_ACQUIRE) == DEV_ON)
            publish(d, now_ns());
    pthread_mutex_unlock(&pub_mu);
}

/* ---------- fork (fork.c registers the handlers; order of fork.h): the child has no measurement
 * thread and no registry locks ---------- */
void vnpu_compute_fork_prepare(void)
{
    pthread_mutex_lock(&cfg_mu);
    pthread_mutex_lock(&dev_mu);
    pthread_mutex_lock(&thr_mu);
    pthread_mutex_lock(&pub_mu);
    pthread_mutex_lock(&tc_mu);
    pthread_mutex_lock(&smp_mu);
}
void vnpu_compute_fork_parent(void)
{
    pthread_mutex_unlock(&smp_mu);
    pthread_mutex_unlock(&tc_mu);
    pthread_mutex_unlock(&pub_mu);
    pthread_mutex_unlock(&thr_mu);
    pthread_mutex_unlock(&dev_mu);
    pthread_mutex_unlock(&cfg_mu);
}
/* A raw clone() child (fork.h): no prepare handler took the mutexes, and a parent thread (the
 * measurement thread) may have held one; fresh ones, taken as prepare would, then the fork reset. */
void vnpu_compute_clone_child(void)
{
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    cfg_mu = fresh;
    dev_mu = fresh;
    thr_mu = fresh;
    pub_mu = fresh;
    tc_mu = fresh;
    smp_mu = fresh;
    vnpu_compute_fork_prepare();
    vnpu_compute_fork_child();
}

/*
 * The child of fork (or of a raw clone) starts clean: no measurement thread, no brackets (they belong
 * to the parent's streams), no registry descriptors, no device state (it rejoins on its first launch),
 * and no thread "inside a launch": only the forking thread exists in the child, and a marker left by
 * a parent thread that was in a launch at the fork would make the container look busy for the
 * child's whole life. The counter blocks stay (the child's own thread keeps its block).
 */
static void compute_child_reset(void)
{
    settle_n = 0;
    smp_n = 0;
    smp_inflight = 0;
    pool_n = 0;
    special_n = 0;
    thread_state = 0;
    for (struct tcount *t = tc_head; t; t = t->next) {
        memset(t->launches, 0, sizeof t->launches);
        memset(t->charged_ns, 0, sizeof t->charged_ns);
        memset(t->throttled_ns, 0, sizeof t->throttled_ns);
        t->in_call_since = 0;
        t->wait_since = 0;
        t->batch_cost = 0; /* the parent's launches: charged by the parent */
        t->batch_charge = 0;
        t->fast_slack = FAST_CLOSED;
        t->in_call_dev = 0;
        if (t != tc_self)
            t->retired = 1; /* its thread does not exist in the child: the block is free for reuse */
    }
    for (uint32_t d = 0; d < VNPU_COMPUTE_MAX_DEVICES; d++) {
        struct devstate *ds = &devs[d];
        if (ds->state == DEV_ON)
            vnpu_reg_close(&ds->reg); /* the parent's descriptors; the child opens its own */
        memset(ds, 0, sizeof *ds);
        vnpu_reg_none(&ds->reg);
    }
}

void vnpu_compute_fork_child(void)
{
    compute_child_reset();
    vnpu_compute_fork_parent();
}

