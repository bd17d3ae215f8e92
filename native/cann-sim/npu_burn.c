/*
 * npu-burn: a scriptable NPU workload for tests of the limiter and the simulators. It uses only the
 * public ACL / runtime API, so it runs the same against the simulated runtime and a real CANN.
 * Results are printed one per line as "<what> <ok|fail|done> key=value ...", see usage().
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "cann_sim/cann_sim.h"
#include "runtime/rt.h"

#define MAX_STEPS 256
#define MAX_LIVE 65536

/* ---- the API a step goes through: every allocation/free pair and launch entry point of spec 5.3
 * whose arguments carry the kernel duration ---- */

struct alloc_api {
    const char *name;
    int (*alloc)(int dev, uint64_t size, void **p);
    int (*release)(void *p);
};

static int a_acl(int d, uint64_t n, void **p) { (void)d; return aclrtMalloc(p, n, ACL_MEM_MALLOC_HUGE_FIRST); }
static int a_align32(int d, uint64_t n, void **p) { (void)d; return aclrtMallocAlign32(p, n, ACL_MEM_MALLOC_HUGE_FIRST); }
static int a_cached(int d, uint64_t n, void **p) { (void)d; return aclrtMallocCached(p, n, ACL_MEM_MALLOC_HUGE_FIRST); }
static int a_rt(int d, uint64_t n, void **p) {
    (void)d;
    return rtMalloc(p, n, RT_MEMORY_HBM | RT_MEMORY_POLICY_HUGE_PAGE_FIRST, 0);
}
static int a_rts(int d, uint64_t n, void **p) { (void)d; return rtsMalloc(p, n, RT_MEM_MALLOC_HUGE_FIRST, RT_MEM_ADVISE_NONE, NULL); }
static int a_memalloc(int d, uint64_t n, void **p) { (void)d; return rtMemAlloc(p, n, RT_MEM_MALLOC_HUGE_FIRST, RT_MEM_ADVISE_NONE, NULL); }
static int a_dvpp(int d, uint64_t n, void **p) { (void)d; return rtDvppMalloc(p, n, 0); }
static int a_managed(int d, uint64_t n, void **p) { (void)d; return rtMemAllocManaged(p, n, 0, 0); }
static int a_physical(int d, uint64_t n, void **p) {
    rtDrvMemProp_t prop = {1, (uint32_t)d, 0, 1, 0, 0}; /* side 1 = device, huge pages */
    return rtMallocPhysical(p, n, &prop, 0);
}
static int a_rtsphysical(int d, uint64_t n, void **p) { (void)d; return rtsMemMallocPhysical(p, n, RT_MEM_MALLOC_HUGE_FIRST, NULL); }
static int f_acl(void *p) { return aclrtFree(p); }

/* The expandable-segment pattern of torch_npu: one physical chunk mapped into a reserved VA range.
 * The "pointer" is the physical handle; its VA range is kept beside it. */
struct vmm_chunk {
    aclrtDrvMemHandle handle;
    void *va;
    size_t size;
};

static int a_vmm(int d, uint64_t n, void **p) {
    aclrtPhysicalMemProp prop = {ACL_MEM_HANDLE_TYPE_NONE, ACL_MEM_ALLOCATION_TYPE_PINNED, ACL_HBM_MEM_HUGE,
                                 {(uint32_t)d, ACL_MEM_LOCATION_TYPE_DEVICE}, 0};
    size_t gran = 0;
    int rc = aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, &gran);
    if (rc != ACL_SUCCESS) return rc;
    if (gran == 0 || n % gran != 0) return ACL_ERROR_INVALID_PARAM; /* sizes must be granule multiples */
    struct vmm_chunk *c = calloc(1, sizeof(*c));
    if (c == NULL) return ACL_ERROR_BAD_ALLOC;
    c->size = n;
    rc = aclrtReserveMemAddress(&c->va, n, 0, NULL, 0);
    if (rc == ACL_SUCCESS) {
        rc = aclrtMallocPhysical(&c->handle, n, &prop, 0);
        if (rc == ACL_SUCCESS) {
            rc = aclrtMapMem(c->va, n, 0, c->handle, 0);
            if (rc != ACL_SUCCESS) aclrtFreePhysical(c->handle);
        }
        if (rc != ACL_SUCCESS) aclrtReleaseMemAddress(c->va);
    }
    if (rc != ACL_SUCCESS) {
        free(c);
        return rc;
    }
    *p = c;
    return ACL_SUCCESS;
}

static int f_vmm(void *p) {
    struct vmm_chunk *c = p;
    int rc = aclrtUnmapMem(c->va);
    if (rc == ACL_SUCCESS) rc = aclrtFreePhysical(c->handle);
    if (rc == ACL_SUCCESS) rc = aclrtReleaseMemAddress(c->va);
    if (rc == ACL_SUCCESS) free(c);
    return rc;
}
static int f_rt(void *p) { return rtFree(p); }
static int f_rts(void *p) { return rtsFree(p); }
static int f_dvpp(void *p) { return rtDvppFree(p); }
static int f_managed(void *p) { return rtMemFreeManaged(p); }
static int f_physical(void *p) { return rtFreePhysical(p); }
static int f_rtsphysical(void *p) { return rtsMemFreePhysical(&p); }
static int f_devsync(void *p) { return rtFreeWithDevSync(p); }

static const struct alloc_api ALLOC_APIS[] = {
    {"acl", a_acl, f_acl},                    /* aclrtMalloc / aclrtFree -> rtMalloc / rtFree */
    {"align32", a_align32, f_acl},            /* aclrtMallocAlign32 */
    {"cached", a_cached, f_acl},              /* aclrtMallocCached -> rtMallocCached */
    {"rt", a_rt, f_rt},                       /* rtMalloc / rtFree */
    {"rt-devsync", a_rt, f_devsync},          /* rtMalloc / rtFreeWithDevSync */
    {"rts", a_rts, f_rts},                    /* rtsMalloc / rtsFree */
    {"memalloc", a_memalloc, f_rt},           /* rtMemAlloc / rtFree */
    {"dvpp", a_dvpp, f_dvpp},                 /* rtDvppMalloc / rtDvppFree */
    {"managed", a_managed, f_managed},        /* rtMemAllocManaged / rtMemFreeManaged */
    {"physical", a_physical, f_physical},     /* rtMallocPhysical / rtFreePhysical */
    {"rtsphysical", a_rtsphysical, f_rtsphysical}, /* rtsMemMallocPhysical / rtsMemFreePhysical */
    {"acl-vmm", a_vmm, f_vmm}, /* aclrtReserveMemAddress + aclrtMallocPhysical + aclrtMapMem */
};

struct launch_api {
    const char *name;
    int (*launch)(rtStream_t stm, struct vnpu_sim_kernel_args *k);
};

static char kernel_stub[] = "npu-burn-kernel";

static rtArgsEx_t args_ex(struct vnpu_sim_kernel_args *k) {
    rtArgsEx_t ax;
    memset(&ax, 0, sizeof(ax));
    ax.args = k;
    ax.argsSize = sizeof(*k);
    return ax;
}

static rtAicpuArgsEx_t aicpu_args(struct vnpu_sim_kernel_args *k) {
    rtAicpuArgsEx_t cx;
    memset(&cx, 0, sizeof(cx));
    cx.args = k;
    cx.argsSize = sizeof(*k);
    return cx;
}

static int l_acl(rtStream_t s, struct vnpu_sim_kernel_args *k) { return aclrtLaunchKernel(kernel_stub, 1, k, sizeof(*k), s); }
static int l_acl_array(rtStream_t s, struct vnpu_sim_kernel_args *k) {
    void *args[1] = {k};
    return aclrtLaunchKernelWithArgsArray(kernel_stub, 1, s, NULL, args);
}
static int l_kl(rtStream_t s, struct vnpu_sim_kernel_args *k) { return rtKernelLaunch(kernel_stub, 1, k, sizeof(*k), NULL, s); }
static int l_flag(rtStream_t s, struct vnpu_sim_kernel_args *k) {
    rtArgsEx_t a = args_ex(k);
    return rtKernelLaunchWithFlag(kernel_stub, 1, &a, NULL, s, 0);
}
static int l_flag2(rtStream_t s, struct vnpu_sim_kernel_args *k) {
    rtArgsEx_t a = args_ex(k);
    return rtKernelLaunchWithFlagV2(kernel_stub, 1, &a, NULL, s, 0, NULL);
}
static int l_handle(rtStream_t s, struct vnpu_sim_kernel_args *k) {
    rtArgsEx_t a = args_ex(k);
    return rtKernelLaunchWithHandle(kernel_stub, 0, 1, &a, NULL, s, NULL);
}
static int l_handle2(rtStream_t s, struct vnpu_sim_kernel_args *k) {
    rtArgsEx_t a = args_ex(k);
    return rtKernelLaunchWithHandleV2(kernel_stub, 0, 1, &a, NULL, s, NULL);
}
static int l_ex(rtStream_t s, struct vnpu_sim_kernel_args *k) { return rtKernelLaunchEx(k, sizeof(*k), 0, s); }
static int l_fwk(rtStream_t s, struct vnpu_sim_kernel_args *k) { return rtKernelLaunchFwk(kernel_stub, k, sizeof(*k), 0, s); }
static int l_aicpu(rtStream_t s, struct vnpu_sim_kernel_args *k) {
    rtArgsEx_t a = args_ex(k);
    rtKernelLaunchNames_t names = {"libnpu_burn.so", kernel_stub, kernel_stub};
    return rtAicpuKernelLaunchWithFlag(&names, 1, &a, NULL, s, 0);
}
static int l_aicpu_ex(rtStream_t s, struct vnpu_sim_kernel_args *k) {
    rtAicpuArgsEx_t c = aicpu_args(k);
    return rtAicpuKernelLaunchExWithArgs(0, kernel_stub, 1, &c, NULL, s, 0);
}
static int l_cpu(rtStream_t s, struct vnpu_sim_kernel_args *k) {
    rtArgsEx_t a = args_ex(k);
    return rtCpuKernelLaunchWithFlag("libnpu_burn.so", kernel_stub, 1, &a, NULL, s, 0);
}
static int l_vec(rtStream_t s, struct vnpu_sim_kernel_args *k) {
    rtArgsEx_t a = args_ex(k);
    return rtVectorCoreKernelLaunch(kernel_stub, 1, &a, NULL, s, 0, NULL);
}
static int l_vec_handle(rtStream_t s, struct vnpu_sim_kernel_args *k) {
    rtArgsEx_t a = args_ex(k);
    return rtVectorCoreKernelLaunchWithHandle(kernel_stub, 0, 1, &a, NULL, s, NULL);
}
static int l_v3(rtStream_t s, struct vnpu_sim_kernel_args *k) {
    rtArgsEx_t a = args_ex(k);
    return rtLaunchKernelByFuncHandleV3(kernel_stub, 1, &a, s, NULL);
}
static int l_host_args(rtStream_t s, struct vnpu_sim_kernel_args *k) {
    return rtsLaunchKernelWithHostArgs(kernel_stub, 1, s, NULL, k, sizeof(*k), NULL, 0);
}
static int l_cpu_kernel(rtStream_t s, struct vnpu_sim_kernel_args *k) {
    rtCpuKernelArgs_t c;
    memset(&c, 0, sizeof(c));
    c.baseArgs = aicpu_args(k);
    return rtsLaunchCpuKernel(kernel_stub, 1, s, NULL, &c);
}
static int l_args_array(rtStream_t s, struct vnpu_sim_kernel_args *k) {
    void *args[1] = {k};
    return rtLaunchKernelWithArgsArray(kernel_stub, 1, s, NULL, args);
}

static const struct launch_api LAUNCH_APIS[] = {
    {"acl", l_acl}, /* aclrtLaunchKernel -> rtLaunchKernelByFuncHandleV3 */
    {"aclrtLaunchKernelWithArgsArray", l_acl_array},
    {"rtKernelLaunch", l_kl},
    {"rtKernelLaunchWithFlag", l_flag},
    {"rtKernelLaunchWithFlagV2", l_flag2},
    {"rtKernelLaunchWithHandle", l_handle},
    {"rtKernelLaunchWithHandleV2", l_handle2},
    {"rtKernelLaunchEx", l_ex},
    {"rtKernelLaunchFwk", l_fwk},
    {"rtAicpuKernelLaunchWithFlag", l_aicpu},
    {"rtAicpuKernelLaunchExWithArgs", l_aicpu_ex},
    {"rtCpuKernelLaunchWithFlag", l_cpu},
    {"rtVectorCoreKernelLaunch", l_vec},
    {"rtVectorCoreKernelLaunchWithHandle", l_vec_handle},
    {"rtLaunchKernelByFuncHandleV3", l_v3},
    {"rtsLaunchKernelWithHostArgs", l_host_args},
    {"rtsLaunchCpuKernel", l_cpu_kernel},
    {"rtLaunchKernelWithArgsArray", l_args_array},
};

static const char USAGE[] =
    "usage: npu-burn [options] STEP...\n"
    "options:\n"
    "  --device N          logic ID to use (default 0)\n"
    "  --alloc-via API     allocation/free pair (default acl = aclrtMalloc/aclrtFree), one of the list below\n"
    "  --launch-via API    launch entry point (default acl = aclrtLaunchKernel), one of the list below\n"
    "  --meminfo-via API   acl (aclrtGetMemInfo, default) | rtMemGetInfoEx | rtMemGetInfo | rtsMemGetInfo\n"
    "                      | rtMemGetInfoByType (HBM_SIZE or DDR_SIZE from ATTR)\n"
    "  --threads N         run the steps in N threads at once (default 1)\n"
    "  --procs N           run the steps in N processes at once (default 1)\n"
    "  --repeat N          run the steps N times (default 1)\n"
    "  --hold-ms N         sleep N ms after the steps, before releasing and exiting\n"
    "  --until-fail        make every 'alloc' repeat until it fails\n"
    "  --seconds S         run the steps again and again until S seconds have passed (after --repeat)\n"
    "  --seed N            seed of 'churn' (default: the PID)\n"
    "steps (sizes take K, M, G, T suffixes, powers of 1024):\n"
    "  alloc SIZE          -> alloc ok size= ptr=   | alloc fail code= size=\n"
    "  alloc-until-fail SIZE -> alloc-until-fail done count= bytes= code=\n"
    "  free INDEX|last|all -> free ok size= ptr=    | free fail code=\n"
    "  free-unknown        rtFree of an address never allocated -> free fail code=\n"
    "  meminfo [ATTR]      aclrtGetMemInfo (ATTR number, default 1 = HBM) -> meminfo ok free= total=\n"
    "  launch US COUNT     COUNT kernels of US microseconds on one stream, then synchronise\n"
    "                      -> launch done kernels= kernel_ns= busy_ns= wall_ns= event_ns= submit_ns=\n"
    "  burn US SECONDS     kernels of US microseconds for SECONDS of wall time, then synchronise\n"
    "                      -> burn done (same keys as launch)\n"
    "  model TASKS US COUNT  load a model of TASKS tasks of US microseconds, execute it COUNT times\n"
    "                      -> model done executions= busy_ns= wall_ns=\n"
    "  graph TASKS US COUNT  capture TASKS launches of US microseconds on a stream (aclmdlRICaptureBegin/\n"
    "                      End, through --launch-via), replay COUNT times with aclmdlRIExecuteAsync\n"
    "                      -> graph done executions= busy_ns= wall_ns= event_ns=\n"
    "  graph-sync TASKS US COUNT  the same, replayed with aclmdlRIExecute (rtsModelExecute)\n"
    "  sleep MS            sleep MS milliseconds\n"
    "  await PATH          wait until PATH exists (a test's signal; at most 120 s, then exit 1)\n"
    "                      -> await ok path=\n"
    "  device N            switch the current device\n"
    "  fork                from here on, run the rest in a parent and a child process (role=)\n"
    "  churn SECONDS MIN MAX  for SECONDS, allocate random sizes in [MIN, MAX] and free random live\n"
    "                      allocations (at most 64 live), keep the survivors\n"
    "                      -> churn done allocs= frees= fails= fail_code= live= live_bytes=\n"
    "  kill-self           SIGKILL this process (crash tests)\n"
    "every line ends with pid= and thread=; exit status 0, 1 if a runtime call failed unexpectedly,\n"
    "2 on bad arguments.\n";

static void print_usage(FILE *f) {
    fputs(USAGE, f);
    fputs("--alloc-via:", f);
    for (size_t i = 0; i < sizeof(ALLOC_APIS) / sizeof(ALLOC_APIS[0]); i++) fprintf(f, " %s", ALLOC_APIS[i].name);
    fputs("\n--launch-via:", f);
    for (size_t i = 0; i < sizeof(LAUNCH_APIS) / sizeof(LAUNCH_APIS[0]); i++) fprintf(f, " %s", LAUNCH_APIS[i].name);
    fputs("\n", f);
}

enum step_kind {
    S_ALLOC, S_ALLOC_UNTIL_FAIL, S_FREE, S_FREE_UNKNOWN, S_MEMINFO, S_LAUNCH, S_BURN, S_MODEL, S_SLEEP,
    S_DEVICE, S_FORK, S_KILL_SELF, S_CHURN, S_GRAPH, S_GRAPH_SYNC, S_AWAIT
};

struct step {
    enum step_kind kind;
    uint64_t a, b, c;
    int free_mode; /* 0 index, 1 last, 2 all */
    const char *path; /* await */
};

struct options {
    int device;
    const struct alloc_api *alloc_via;
    const struct launch_api *launch_via;
    const char *meminfo_via;
    int threads, procs, repeat;
    long hold_ms;
    int until_fail;
    long seconds;
    unsigned long long seed;
    struct step steps[MAX_STEPS];
    int nsteps;
};

struct live {
    void *ptr;
    uint64_t size;
};

struct worker {
    const struct options *opt;
    int index;
    const char *role;
    int device;
    struct live *live;
    size_t nlive;
    int failed;
};

static void die_usage(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "npu-burn: ");
    vfprintf(stderr, fmt, ap);
    /* one line naming what was wrong, as every vnpu command does; the full text is on --help */
    fprintf(stderr, " (see 'npu-burn --help')\n");
    va_end(ap);
    exit(2);
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(uint64_t ms) {
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static uint64_t parse_u64(const char *what, const char *s, int allow_suffix) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s || s[0] == '-') die_usage("bad %s '%s': expected a number", what, s);
    uint64_t mul = 1;
    if (allow_suffix && *end != '\0') {
        switch (*end) {
        case 'K': case 'k': mul = 1ULL << 10; break;
        case 'M': case 'm': mul = 1ULL << 20; break;
        case 'G': case 'g': mul = 1ULL << 30; break;
        case 'T': case 't': mul = 1ULL << 40; break;
        default: die_usage("bad %s '%s': unknown suffix '%s' (K, M, G, T)", what, s, end);
        }
        end++;
        if (*end == 'B' || *end == 'b') end++;
    }
    if (*end != '\0') die_usage("bad %s '%s': trailing '%s'", what, s, end);
    if (v != 0 && mul > UINT64_MAX / v) die_usage("bad %s '%s': too large", what, s);
    return (uint64_t)v * mul;
}

static const struct alloc_api *find_alloc_api(const char *name) {
    for (size_t i = 0; i < sizeof(ALLOC_APIS) / sizeof(ALLOC_APIS[0]); i++)
        if (strcmp(ALLOC_APIS[i].name, name) == 0) return &ALLOC_APIS[i];
    die_usage("unknown --alloc-via '%s'", name);
    return NULL;
}

static const struct launch_api *find_launch_api(const char *name) {
    for (size_t i = 0; i < sizeof(LAUNCH_APIS) / sizeof(LAUNCH_APIS[0]); i++)
        if (strcmp(LAUNCH_APIS[i].name, name) == 0) return &LAUNCH_APIS[i];
    die_usage("unknown --launch-via '%s'", name);
    return NULL;
}

static const char *need(int argc, char **argv, int *i, const char *what) {
    if (*i + 1 >= argc) die_usage("%s needs %s", argv[*i], what);
    return argv[++*i];
}

static void parse(int argc, char **argv, struct options *o) {
    memset(o, 0, sizeof(*o));
    o->alloc_via = &ALLOC_APIS[0];
    o->launch_via = &LAUNCH_APIS[0];
    o->meminfo_via = "acl";
    o->threads = o->procs = o->repeat = 1;
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--device") == 0) o->device = (int)parse_u64("--device", need(argc, argv, &i, "a logic ID"), 0);
        else if (strcmp(a, "--alloc-via") == 0) o->alloc_via = find_alloc_api(need(argc, argv, &i, "an API name"));
        else if (strcmp(a, "--launch-via") == 0) o->launch_via = find_launch_api(need(argc, argv, &i, "an API name"));
        else if (strcmp(a, "--meminfo-via") == 0) o->meminfo_via = need(argc, argv, &i, "an API name");
        else if (strcmp(a, "--threads") == 0) o->threads = (int)parse_u64("--threads", need(argc, argv, &i, "a count"), 0);
        else if (strcmp(a, "--procs") == 0) o->procs = (int)parse_u64("--procs", need(argc, argv, &i, "a count"), 0);
        else if (strcmp(a, "--repeat") == 0) o->repeat = (int)parse_u64("--repeat", need(argc, argv, &i, "a count"), 0);
        else if (strcmp(a, "--hold-ms") == 0) o->hold_ms = (long)parse_u64("--hold-ms", need(argc, argv, &i, "milliseconds"), 0);
        else if (strcmp(a, "--until-fail") == 0) o->until_fail = 1;
        else if (strcmp(a, "--seconds") == 0) o->seconds = (long)parse_u64("--seconds", need(argc, argv, &i, "seconds"), 0);
        else if (strcmp(a, "--seed") == 0) o->seed = parse_u64("--seed", need(argc, argv, &i, "a number"), 0);
        else if (strcmp(a, "--help") == 0) {
            print_usage(stdout);
            exit(0);
        } else die_usage("unknown option '%s'", a);
    }
    const char *infos[] = {"acl", "rtMemGetInfoEx", "rtMemGetInfo", "rtsMemGetInfo", "rtMemGetInfoByType"};
    int known = 0;
    for (size_t k = 0; k < sizeof(infos) / sizeof(infos[0]); k++) known |= strcmp(o->meminfo_via, infos[k]) == 0;
    if (!known) die_usage("unknown --meminfo-via '%s'", o->meminfo_via);
    if (o->threads < 1 || o->threads > 256) die_usage("--threads = %d: must be 1..256", o->threads);
    if (o->procs < 1 || o->procs > 256) die_usage("--procs = %d: must be 1..256", o->procs);
    if (o->repeat < 1) die_usage("--repeat = %d: must be at least 1", o->repeat);
    if (i >= argc) die_usage("no step given");
    for (; i < argc; i++) {
        if (o->nsteps == MAX_STEPS) die_usage("too many steps (max %d)", MAX_STEPS);
        struct step *s = &o->steps[o->nsteps++];
        const char *w = argv[i];
        if (strcmp(w, "alloc") == 0) {
            s->kind = o->until_fail ? S_ALLOC_UNTIL_FAIL : S_ALLOC;
            s->a = parse_u64("size", need(argc, argv, &i, "a size"), 1);
        } else if (strcmp(w, "alloc-until-fail") == 0) {
            s->kind = S_ALLOC_UNTIL_FAIL;
            s->a = parse_u64("size", need(argc, argv, &i, "a size"), 1);
        } else if (strcmp(w, "free") == 0) {
            s->kind = S_FREE;
            const char *v = need(argc, argv, &i, "an index, 'last' or 'all'");
            if (strcmp(v, "last") == 0) s->free_mode = 1;
            else if (strcmp(v, "all") == 0) s->free_mode = 2;
            else s->a = parse_u64("free index", v, 0);
        } else if (strcmp(w, "free-unknown") == 0) {
            s->kind = S_FREE_UNKNOWN;
        } else if (strcmp(w, "meminfo") == 0) {
            s->kind = S_MEMINFO;
            s->a = ACL_HBM_MEM;
            if (i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9') s->a = parse_u64("attr", argv[++i], 0);
        } else if (strcmp(w, "launch") == 0 || strcmp(w, "burn") == 0) {
            s->kind = w[0] == 'l' ? S_LAUNCH : S_BURN;
            s->a = parse_u64("kernel microseconds", need(argc, argv, &i, "kernel microseconds"), 0);
            s->b = parse_u64(w[0] == 'l' ? "count" : "seconds", need(argc, argv, &i, "a count"), 0);
            if (s->a * 1000ULL > VNPU_SIM_MAX_KERNEL_NS) die_usage("kernel of %" PRIu64 " us is longer than 10 s", s->a);
        } else if (strcmp(w, "model") == 0) {
            s->kind = S_MODEL;
            s->a = parse_u64("tasks", need(argc, argv, &i, "a task count"), 0);
            s->b = parse_u64("task microseconds", need(argc, argv, &i, "task microseconds"), 0);
            s->c = parse_u64("executions", need(argc, argv, &i, "an execution count"), 0);
            if (s->a == 0 || s->a > UINT32_MAX) die_usage("model needs 1..4294967295 tasks");
        } else if (strcmp(w, "sleep") == 0) {
            s->kind = S_SLEEP;
            s->a = parse_u64("milliseconds", need(argc, argv, &i, "milliseconds"), 0);
        } else if (strcmp(w, "await") == 0) {
            s->kind = S_AWAIT;
            s->path = need(argc, argv, &i, "a path");
        } else if (strcmp(w, "device") == 0) {
            s->kind = S_DEVICE;
            s->a = parse_u64("device", need(argc, argv, &i, "a logic ID"), 0);
        } else if (strcmp(w, "fork") == 0) {
            s->kind = S_FORK;
        } else if (strcmp(w, "graph") == 0 || strcmp(w, "graph-sync") == 0) {
            s->kind = strcmp(w, "graph") == 0 ? S_GRAPH : S_GRAPH_SYNC;
            s->a = parse_u64("tasks", need(argc, argv, &i, "a task count"), 0);
            s->b = parse_u64("task microseconds", need(argc, argv, &i, "task microseconds"), 0);
            s->c = parse_u64("executions", need(argc, argv, &i, "an execution count"), 0);
            if (s->b * 1000ULL > VNPU_SIM_MAX_KERNEL_NS) die_usage("task of %" PRIu64 " us is longer than 10 s", s->b);
        } else if (strcmp(w, "churn") == 0) {
            s->kind = S_CHURN;
            s->a = parse_u64("seconds", need(argc, argv, &i, "seconds"), 0);
            s->b = parse_u64("size", need(argc, argv, &i, "a minimum size"), 1);
            s->c = parse_u64("size", need(argc, argv, &i, "a maximum size"), 1);
            if (s->b == 0 || s->c < s->b) die_usage("churn needs 0 < MIN <= MAX");
        } else if (strcmp(w, "kill-self") == 0) {
            s->kind = S_KILL_SELF;
        } else {
            die_usage("unknown step '%s'", w);
        }
    }
}

static void out(struct worker *w, const char *fmt, ...) {
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    printf("%s pid=%d thread=%d%s%s\n", line, (int)getpid(), w->index, w->role ? " role=" : "", w->role ? w->role : "");
    fflush(stdout);
}

static void note_error(struct worker *w, const char *call, int rc) {
    out(w, "error call=%s code=%d", call, rc);
    w->failed = 1;
}

/* a test's signal between steps: bounded, a missing signal fails the run instead of hanging it */
static void await_step(struct worker *w, const char *path) {
    for (int i = 0; i < 120000 / 5; i++) {
        if (access(path, F_OK) == 0) {
            out(w, "await ok path=%s", path);
            return;
        }
        sleep_ms(5);
    }
    out(w, "await fail path=%s", path);
    w->failed = 1;
}

static int do_alloc(struct worker *w, uint64_t size, void **p) { return w->opt->alloc_via->alloc(w->device, size, p); }

static int do_free(struct worker *w, void *p) { return w->opt->alloc_via->release(p); }

static void alloc_step(struct worker *w, uint64_t size, int until_fail) {
    uint64_t count = 0, bytes = 0;
    for (;;) {
        void *p = NULL;
        int rc = w->nlive == MAX_LIVE ? ACL_ERROR_BAD_ALLOC : do_alloc(w, size, &p);
        if (rc != ACL_SUCCESS) {
            if (until_fail) out(w, "alloc-until-fail done count=%" PRIu64 " bytes=%" PRIu64 " code=%d size=%" PRIu64,
                                count, bytes, rc, size);
            else out(w, "alloc fail code=%d size=%" PRIu64, rc, size);
            return;
        }
        w->live[w->nlive++] = (struct live){p, size};
        count++;
        bytes += size;
        if (!until_fail) {
            out(w, "alloc ok size=%" PRIu64 " ptr=%p", size, p);
            return;
        }
    }
}

static void free_one(struct worker *w, size_t idx) {
    struct live l = w->live[idx];
    int rc = do_free(w, l.ptr);
    if (rc != ACL_SUCCESS) {
        out(w, "free fail code=%d ptr=%p", rc, l.ptr);
        return;
    }
    memmove(&w->live[idx], &w->live[idx + 1], (w->nlive - idx - 1) * sizeof(w->live[0]));
    w->nlive--;
    out(w, "free ok size=%" PRIu64 " ptr=%p", l.size, l.ptr);
}

static void free_step(struct worker *w, const struct step *s) {
    if (s->free_mode == 2) {
        while (w->nlive > 0) free_one(w, w->nlive - 1);
    } else if (w->nlive == 0 || (s->free_mode == 0 && s->a >= w->nlive)) {
        out(w, "free fail code=none reason=no-such-allocation live=%zu", w->nlive);
    } else {
        free_one(w, s->free_mode == 1 ? w->nlive - 1 : (size_t)s->a);
    }
}

/* Launches until `count` kernels or `until_ns` of wall time, synchronises and reports. */
static void launch_step(struct worker *w, const char *name, uint64_t us, uint64_t count, uint64_t until_ns) {
    aclrtStream stm = NULL;
    aclrtEvent start = NULL, end = NULL;
    int rc = aclrtCreateStream(&stm);
    if (rc == ACL_SUCCESS) rc = aclrtCreateEvent(&start);
    if (rc == ACL_SUCCESS) rc = aclrtCreateEvent(&end);
    if (rc != ACL_SUCCESS) {
        note_error(w, "aclrtCreateStream/aclrtCreateEvent", rc);
        goto done;
    }
    struct vnpu_sim_kernel_args k = {VNPU_SIM_KERNEL_MAGIC, us * 1000ULL};
    uint64_t t0 = now_ns(), n = 0;
    rc = aclrtRecordEvent(start, stm);
    while (rc == ACL_SUCCESS && (until_ns != 0 ? now_ns() < until_ns : n < count)) {
        rc = w->opt->launch_via->launch(stm, &k);
        if (rc == ACL_SUCCESS) n++;
    }
    if (rc != ACL_SUCCESS) {
        note_error(w, w->opt->launch_via->name, rc);
        goto done;
    }
    uint64_t submitted = now_ns();
    rc = aclrtRecordEvent(end, stm);
    if (rc == ACL_SUCCESS) rc = aclrtSynchronizeStream(stm);
    uint64_t t1 = now_ns();
    float ms = 0;
    if (rc == ACL_SUCCESS) rc = aclrtEventElapsedTime(&ms, start, end);
    if (rc != ACL_SUCCESS) {
        note_error(w, "aclrtSynchronizeStream/aclrtEventElapsedTime", rc);
        goto done;
    }
    out(w, "%s done kernels=%" PRIu64 " kernel_ns=%" PRIu64 " busy_ns=%" PRIu64 " wall_ns=%" PRIu64
           " event_ns=%" PRIu64 " submit_ns=%" PRIu64,
        name, n, us * 1000ULL, n * us * 1000ULL, t1 - t0, (uint64_t)((double)ms * 1e6), submitted - t0);
done:
    if (end != NULL) aclrtDestroyEvent(end);
    if (start != NULL) aclrtDestroyEvent(start);
    if (stm != NULL) aclrtDestroyStream(stm);
}

static void model_step(struct worker *w, const struct step *s) {
    struct vnpu_sim_model_blob blob = {VNPU_SIM_MODEL_MAGIC, (uint32_t)s->a, 0, s->b * 1000ULL};
    uint32_t id = 0;
    int rc = aclmdlLoadFromMem(&blob, sizeof(blob), &id);
    if (rc != ACL_SUCCESS) {
        note_error(w, "aclmdlLoadFromMem", rc);
        return;
    }
    aclmdlDataset *in = aclmdlCreateDataset(), *outp = aclmdlCreateDataset();
    uint64_t t0 = now_ns(), n = 0;
    for (; rc == ACL_SUCCESS && n < s->c; n++) rc = aclmdlExecute(id, in, outp);
    uint64_t t1 = now_ns();
    if (rc != ACL_SUCCESS) note_error(w, "aclmdlExecute", rc);
    else out(w, "model done executions=%" PRIu64 " busy_ns=%" PRIu64 " wall_ns=%" PRIu64, n, n * s->a * s->b * 1000ULL,
             t1 - t0);
    aclmdlDestroyDataset(in);
    aclmdlDestroyDataset(outp);
    aclmdlUnload(id);
}

static int mem_info(struct worker *w, int attr, size_t *f, size_t *t) {
    const char *via = w->opt->meminfo_via;
    if (strcmp(via, "acl") == 0) return aclrtGetMemInfo((aclrtMemAttr)attr, f, t);
    if (strcmp(via, "rtMemGetInfoEx") == 0) return rtMemGetInfoEx((rtMemInfoType_t)attr, f, t);
    if (strcmp(via, "rtMemGetInfo") == 0) return rtMemGetInfo(f, t);
    if (strcmp(via, "rtsMemGetInfo") == 0) return rtsMemGetInfo((rtMemInfoType)attr, f, t);
    rtMemInfo_t info;
    memset(&info, 0, sizeof(info));
    int rc = rtMemGetInfoByType(w->device, attr == ACL_DDR_MEM ? RT_MEM_INFO_TYPE_DDR_SIZE : RT_MEM_INFO_TYPE_HBM_SIZE,
                                &info);
    *f = (size_t)info.phyInfo.free;
    *t = (size_t)info.phyInfo.total;
    return rc;
}

/* xorshift64*: reproducible with --seed */
static uint64_t next_random(uint64_t *state) {
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

#define CHURN_MAX_LIVE 64

static void churn_step(struct worker *w, const struct step *s) {
    uint64_t rng = (w->opt->seed != 0 ? w->opt->seed : (uint64_t)getpid()) * 2654435761ULL + (uint64_t)w->index + 1;
    uint64_t until = now_ns() + s->a * 1000000000ULL;
    uint64_t allocs = 0, frees = 0, fails = 0;
    int fail_code = 0;
    size_t base = w->nlive; /* allocations made before the churn are left alone */
    while (now_ns() < until) {
        size_t mine = w->nlive - base;
        int do_alloc_now = mine == 0 || (mine < CHURN_MAX_LIVE && next_random(&rng) % 2 == 0);
        if (do_alloc_now && w->nlive < MAX_LIVE) {
            uint64_t size = s->b + next_random(&rng) % (s->c - s->b + 1);
            void *p = NULL;
            int rc = do_alloc(w, size, &p);
            if (rc == ACL_SUCCESS) {
                w->live[w->nlive++] = (struct live){p, size};
                allocs++;
            } else {
                fails++;
                fail_code = rc;
            }
        } else if (mine > 0) {
            size_t idx = base + (size_t)(next_random(&rng) % mine);
            int rc = do_free(w, w->live[idx].ptr);
            if (rc != ACL_SUCCESS) {
                note_error(w, "free", rc);
                return;
            }
            w->live[idx] = w->live[--w->nlive];
            frees++;
        }
    }
    uint64_t live_bytes = 0;
    for (size_t i = base; i < w->nlive; i++) live_bytes += w->live[i].size;
    out(w, "churn done allocs=%" PRIu64 " frees=%" PRIu64 " fails=%" PRIu64 " fail_code=%d live=%zu live_bytes=%" PRIu64,
        allocs, frees, fails, fail_code, w->nlive - base, live_bytes);
}

static void graph_step(struct worker *w, const struct step *s, int sync) {
    aclrtStream stm = NULL;
    aclrtEvent start = NULL, end = NULL;
    aclmdlRI ri = NULL;
    int rc = aclrtCreateStream(&stm);
    if (rc == ACL_SUCCESS) rc = aclrtCreateEvent(&start);
    if (rc == ACL_SUCCESS) rc = aclrtCreateEvent(&end);
    if (rc == ACL_SUCCESS) rc = aclmdlRICaptureBegin(stm, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
    struct vnpu_sim_kernel_args k = {VNPU_SIM_KERNEL_MAGIC, s->b * 1000ULL};
    for (uint64_t i = 0; rc == ACL_SUCCESS && i < s->a; i++) rc = w->opt->launch_via->launch(stm, &k);
    if (rc == ACL_SUCCESS) rc = aclmdlRICaptureEnd(stm, &ri);
    if (rc != ACL_SUCCESS) {
        note_error(w, "capture", rc);
        goto done;
    }
    uint64_t t0 = now_ns(), n = 0;
    rc = aclrtRecordEvent(start, stm);
    for (; rc == ACL_SUCCESS && n < s->c; n++) rc = sync ? aclmdlRIExecute(ri, -1) : aclmdlRIExecuteAsync(ri, stm);
    if (rc == ACL_SUCCESS) rc = aclrtRecordEvent(end, stm);
    if (rc == ACL_SUCCESS) rc = aclrtSynchronizeStream(stm);
    float ms = 0;
    if (rc == ACL_SUCCESS) rc = aclrtEventElapsedTime(&ms, start, end);
    if (rc != ACL_SUCCESS) {
        note_error(w, sync ? "aclmdlRIExecute" : "aclmdlRIExecuteAsync", rc);
        goto done;
    }
    out(w, "%s done executions=%" PRIu64 " busy_ns=%" PRIu64 " wall_ns=%" PRIu64 " event_ns=%" PRIu64,
        sync ? "graph-sync" : "graph", n, n * s->a * s->b * 1000ULL, now_ns() - t0, (uint64_t)((double)ms * 1e6));
done:
    if (ri != NULL) aclmdlRIDestroy(ri);
    if (end != NULL) aclrtDestroyEvent(end);
    if (start != NULL) aclrtDestroyEvent(start);
    if (stm != NULL) aclrtDestroyStream(stm);
}

static void run_steps(struct worker *w, int from);

static void fork_step(struct worker *w, int next) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        note_error(w, "fork", errno);
        return;
    }
    if (pid == 0) {
        w->role = "child";
        /* a forked child starts without a device context, as with the real runtime */
        int rc = aclrtSetDevice(w->device);
        if (rc != ACL_SUCCESS) note_error(w, "aclrtSetDevice", rc);
        w->nlive = 0;
        run_steps(w, next);
        if (w->opt->hold_ms > 0) sleep_ms((uint64_t)w->opt->hold_ms);
        while (w->nlive > 0) do_free(w, w->live[--w->nlive].ptr);
        fflush(stdout);
        exit(w->failed); /* exit, not _exit: the runtime releases the child's device context */
    }
    w->role = "parent";
    run_steps(w, next);
    int st = 0;
    waitpid(pid, &st, 0);
    out(w, "child done child=%d exit=%d", (int)pid, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) w->failed = 1;
}

static void run_steps(struct worker *w, int from) {
    const struct options *o = w->opt;
    for (int i = from; i < o->nsteps; i++) {
        const struct step *s = &o->steps[i];
        int rc;
        size_t f = 0, t = 0;
        switch (s->kind) {
        case S_ALLOC: alloc_step(w, s->a, 0); break;
        case S_ALLOC_UNTIL_FAIL: alloc_step(w, s->a, 1); break;
        case S_FREE: free_step(w, s); break;
        case S_FREE_UNKNOWN:
            rc = rtFree((void *)(uintptr_t)0xdead0000ULL);
            out(w, "free %s code=%d ptr=0xdead0000", rc == ACL_SUCCESS ? "ok" : "fail", rc);
            break;
        case S_MEMINFO:
            rc = mem_info(w, (int)s->a, &f, &t);
            if (rc == ACL_SUCCESS) out(w, "meminfo ok free=%zu total=%zu attr=%" PRIu64, f, t, s->a);
            else out(w, "meminfo fail code=%d attr=%" PRIu64, rc, s->a);
            break;
        case S_LAUNCH: launch_step(w, "launch", s->a, s->b, 0); break;
        case S_BURN: launch_step(w, "burn", s->a, 0, now_ns() + s->b * 1000000000ULL); break;
        case S_MODEL: model_step(w, s); break;
        case S_SLEEP: sleep_ms(s->a); break;
        case S_AWAIT: await_step(w, s->path); break;
        case S_DEVICE:
            rc = aclrtSetDevice((int32_t)s->a);
            if (rc != ACL_SUCCESS) note_error(w, "aclrtSetDevice", rc);
            else w->device = (int)s->a;
            break;
        case S_FORK: fork_step(w, i + 1); return;
        case S_CHURN: churn_step(w, s); break;
        case S_GRAPH: graph_step(w, s, 0); break;
        case S_GRAPH_SYNC: graph_step(w, s, 1); break;
        case S_KILL_SELF:
            fflush(stdout);
            raise(SIGKILL);
            break;
        }
    }
}

static void *worker_main(void *arg) {
    struct worker *w = arg;
    w->device = w->opt->device;
    int rc = aclrtSetDevice(w->device);
    if (rc != ACL_SUCCESS) {
        note_error(w, "aclrtSetDevice", rc);
        return NULL;
    }
    for (int r = 0; r < w->opt->repeat && !w->failed; r++) run_steps(w, 0);
    uint64_t until = now_ns() + (uint64_t)w->opt->seconds * 1000000000ULL;
    while (w->opt->seconds > 0 && !w->failed && now_ns() < until) run_steps(w, 0);
    if (w->opt->hold_ms > 0) sleep_ms((uint64_t)w->opt->hold_ms);
    while (w->nlive > 0) {
        struct live l = w->live[--w->nlive];
        do_free(w, l.ptr);
    }
    return NULL;
}

static int run_process(const struct options *o) {
    struct worker *ws = calloc((size_t)o->threads, sizeof(*ws));
    pthread_t *tids = calloc((size_t)o->threads, sizeof(*tids));
    if (ws == NULL || tids == NULL) {
        fprintf(stderr, "npu-burn: out of memory\n");
        return 1;
    }
    for (int t = 0; t < o->threads; t++) {
        ws[t] = (struct worker){.opt = o, .index = t};
        ws[t].live = calloc(MAX_LIVE, sizeof(struct live));
        if (ws[t].live == NULL) {
            fprintf(stderr, "npu-burn: out of memory\n");
            return 1;
        }
    }
    if (o->threads == 1) {
        worker_main(&ws[0]);
    } else {
        for (int t = 0; t < o->threads; t++) pthread_create(&tids[t], NULL, worker_main, &ws[t]);
        for (int t = 0; t < o->threads; t++) pthread_join(tids[t], NULL);
    }
    int failed = 0;
    for (int t = 0; t < o->threads; t++) {
        failed |= ws[t].failed;
        free(ws[t].live);
    }
    free(ws);
    free(tids);
    return failed;
}

int main(int argc, char **argv) {
    static struct options o;
    parse(argc, argv, &o);
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = aclInit(NULL);
    if (rc != ACL_SUCCESS) {
        fprintf(stderr, "npu-burn: aclInit failed: %d\n", rc);
        return 1;
    }
    int failed = 0;
    if (o.procs == 1) {
        failed = run_process(&o);
    } else {
        pid_t *kids = calloc((size_t)o.procs, sizeof(pid_t));
        if (kids == NULL) return 1;
        fflush(stdout);
        for (int p = 0; p < o.procs; p++) {
            kids[p] = fork();
            if (kids[p] == 0) exit(run_process(&o));
            if (kids[p] < 0) failed = 1;
        }
        for (int p = 0; p < o.procs; p++) {
            int st = 0;
            if (kids[p] > 0 && (waitpid(kids[p], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)) failed = 1;
        }
        free(kids);
    }
    aclFinalize();
    return failed;
}
