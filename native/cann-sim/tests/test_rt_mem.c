/*
 * Memory behaviour of the simulated runtime: accounting against the profile's HBM, the real OOM and
 * invalid-free codes, memory info, physical/host memory, device reset, and sharing of the simulated
 * HBM between processes (fork, normal exit, SIGKILL reclaimed by the next allocation).
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/rt.h"
#include "test_util.h"

#define GIB (1024ULL * 1024ULL * 1024ULL)
#define HBM_910B3 (65536ULL * 1024ULL * 1024ULL)

static uint64_t hbm_file_used(int dev) {
    char path[600];
    snprintf(path, sizeof(path), "%s/hbm.bin", getenv("VNPU_SIM_ROOT"));
    uint64_t v[16] = {0};
    int fd = open(path, O_RDONLY);
    if (fd < 0 || pread(fd, v, sizeof(v), 0) != (ssize_t)sizeof(v)) {
        fprintf(stderr, "cannot read %s\n", path);
        test_failures++;
    }
    if (fd >= 0) close(fd);
    return v[dev];
}

static size_t free_now(void) {
    size_t f = 0, t = 0;
    CHECK_EQ(rtMemGetInfoEx(RT_MEMORYINFO_HBM, &f, &t), RT_ERROR_NONE);
    CHECK_EQ(t, HBM_910B3);
    return f;
}

static void test_no_context(void) {
    void *p = NULL;
    size_t f, t;
    CHECK_EQ(rtMalloc(&p, 64, RT_MEMORY_HBM, 0), ACL_ERROR_RT_CONTEXT_NULL);
    CHECK_EQ(rtMemGetInfoEx(RT_MEMORYINFO_HBM, &f, &t), ACL_ERROR_RT_CONTEXT_NULL);
    int32_t dev = 5;
    CHECK_EQ(rtGetDevice(&dev), ACL_ERROR_RT_CONTEXT_NULL);
    CHECK_EQ(rtSetDevice(8), ACL_ERROR_RT_INVALID_DEVICEID);
    CHECK_EQ(rtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
    int32_t n = 0;
    CHECK_EQ(rtGetDeviceCount(&n), RT_ERROR_NONE);
    CHECK_EQ(n, 8);
}

static void test_accounting_and_oom(void) {
    CHECK_EQ(rtSetDevice(0), RT_ERROR_NONE);
    int32_t dev = -1;
    CHECK_EQ(rtGetDevice(&dev), RT_ERROR_NONE);
    CHECK_EQ(dev, 0);
    CHECK_EQ(free_now(), HBM_910B3);

    void *a = NULL, *b = NULL, *c = NULL;
    CHECK_EQ(rtMalloc(&a, 1000, RT_MEMORY_HBM, 0), RT_ERROR_NONE);
    CHECK(a != NULL);
    CHECK_EQ(free_now(), HBM_910B3 - 1000);
    CHECK_EQ(hbm_file_used(0), 1000);

    /* one byte more than what is left: the real out-of-memory code, nothing charged */
    CHECK_EQ(rtMalloc(&b, HBM_910B3 - 1000 + 1, RT_MEMORY_HBM, 0), ACL_ERROR_RT_MEMORY_ALLOCATION);
    CHECK_EQ(free_now(), HBM_910B3 - 1000);
    /* exactly what is left fits */
    CHECK_EQ(rtMalloc(&b, HBM_910B3 - 1000, RT_MEMORY_HBM | RT_MEMORY_POLICY_HUGE_PAGE_FIRST, 0), RT_ERROR_NONE);
    CHECK_EQ(free_now(), 0);
    CHECK_EQ(rtMallocCached(&c, 1, RT_MEMORY_DEFAULT, 0), ACL_ERROR_RT_MEMORY_ALLOCATION);
    CHECK(a != b);

    /* unknown, double and NULL frees change nothing */
    CHECK_EQ(rtFree((void *)(uintptr_t)0x1234000ULL), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(rtFree((char *)a + 8), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(rtFree(NULL), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(free_now(), 0);
    CHECK_EQ(rtFree(b), RT_ERROR_NONE);
    CHECK_EQ(rtFree(b), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(free_now(), HBM_910B3 - 1000);
    CHECK_EQ(rtsFree(a), RT_ERROR_NONE);
    CHECK_EQ(free_now(), HBM_910B3);
    CHECK_EQ(hbm_file_used(0), 0);

    CHECK_EQ(rtMalloc(&a, 0, RT_MEMORY_HBM, 0), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(rtMalloc(NULL, 64, RT_MEMORY_HBM, 0), ACL_ERROR_RT_PARAM_INVALID);
}

static void test_other_allocators(void) {
    CHECK_EQ(rtSetDevice(0), RT_ERROR_NONE);
    void *p = NULL, *d = NULL, *m = NULL, *s = NULL;
    rtMallocAttribute_t attr = {.attr = RT_MEM_MALLOC_ATTR_DEVICE_ID, .value.deviceId = 2};
    rtMallocConfig_t cfg = {&attr, 1};
    CHECK_EQ(rtsMalloc(&s, 3 * GIB, RT_MEM_MALLOC_HUGE_FIRST, RT_MEM_ADVISE_NONE, &cfg), RT_ERROR_NONE);
    CHECK_EQ(hbm_file_used(2), 3 * GIB); /* charged to the device named in the config */
    CHECK_EQ(free_now(), HBM_910B3);
    CHECK_EQ(rtFree(s), RT_ERROR_NONE);
    CHECK_EQ(hbm_file_used(2), 0);

    CHECK_EQ(rtDvppMalloc(&d, 4096, 0), RT_ERROR_NONE);
    CHECK_EQ(rtMemAllocManaged(&m, 8192, 0, 0), RT_ERROR_NONE);
    CHECK_EQ(free_now(), HBM_910B3 - 4096 - 8192);
    CHECK_EQ(rtDvppFree(d), RT_ERROR_NONE);
    CHECK_EQ(rtMemFreeManaged(m), RT_ERROR_NONE);

    rtDrvMemProp_t prop = {1, 1, 0, 0, 0, 0}; /* side 1: device memory of logic ID 1 */
    rtDrvMemHandle h = NULL;
    CHECK_EQ(rtMallocPhysical(&h, 2 * GIB, &prop, 0), RT_ERROR_NONE);
    CHECK_EQ(hbm_file_used(1), 2 * GIB);
    CHECK_EQ(rtFree(h), ACL_ERROR_RT_PARAM_INVALID); /* a handle is not an address */
    CHECK_EQ(rtFreePhysical(h), RT_ERROR_NONE);
    CHECK_EQ(rtFreePhysical(h), ACL_ERROR_RT_INVALID_HANDLE);
    CHECK_EQ(hbm_file_used(1), 0);
    rtMemHandle mh = NULL;
    CHECK_EQ(rtsMemMallocPhysical(&mh, GIB, RT_MEM_MALLOC_HUGE_ONLY, NULL), RT_ERROR_NONE);
    CHECK_EQ(free_now(), HBM_910B3 - GIB);
    CHECK_EQ(rtsMemFreePhysical(&mh), RT_ERROR_NONE);
    CHECK_EQ(free_now(), HBM_910B3);

    /* host memory is real and never charged to the device */
    CHECK_EQ(rtMallocHost(&p, 4096, 0), RT_ERROR_NONE);
    memset(p, 0xab, 4096);
    CHECK_EQ(free_now(), HBM_910B3);
    CHECK_EQ(rtFree(p), RT_ERROR_NONE);
    CHECK_EQ(rtMalloc(&p, 128, RT_MEMORY_HOST, 0), RT_ERROR_NONE);
    memset(p, 0, 128);
    CHECK_EQ(free_now(), HBM_910B3);
    CHECK_EQ(rtFreeHost(p), RT_ERROR_NONE);
    CHECK_EQ(rtFreeHost(p), ACL_ERROR_RT_PARAM_INVALID);
}

static void test_virtual_memory(void) {
    CHECK_EQ(rtSetDevice(0), RT_ERROR_NONE);
    rtDrvMemProp_t dev_prop = {1, 0, 0, 1, 0, 0}, host_prop = {0, 0, 0, 0, 0, 0};
    size_t gran = 0;
    CHECK_EQ(rtMemGetAllocationGranularity(&dev_prop, RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, &gran), RT_ERROR_NONE);
    CHECK_EQ(gran, 2 * 1024 * 1024);
    void *va = NULL;
    CHECK_EQ(rtReserveMemAddress(&va, 8 * GIB, 0, NULL, 0), RT_ERROR_NONE);
    CHECK_EQ(free_now(), HBM_910B3); /* address space costs no device memory */
    rtDrvMemHandle h = NULL, hh = NULL;
    CHECK_EQ(rtMallocPhysical(&h, 2 * GIB, &dev_prop, 0), RT_ERROR_NONE);
    CHECK_EQ(rtMallocPhysical(&hh, 2 * GIB, &host_prop, 0), RT_ERROR_NONE); /* side 0: host memory */
    CHECK_EQ(free_now(), HBM_910B3 - 2 * GIB);
    CHECK_EQ(rtMapMem(va, 2 * GIB, 0, h, 0), RT_ERROR_NONE);
    CHECK_EQ(rtMapMem((char *)va + 7 * GIB, 2 * GIB, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID); /* past the range */
    CHECK_EQ(rtMapMem(va, 2 * GIB, 0, va, 0), ACL_ERROR_RT_PARAM_INVALID);                    /* not a handle */
    CHECK_EQ(free_now(), HBM_910B3 - 2 * GIB); /* mapping charges nothing more */
    CHECK_EQ(rtUnmapMem(va), RT_ERROR_NONE);
    CHECK_EQ(rtFreePhysical(h), RT_ERROR_NONE);
    CHECK_EQ(rtFreePhysical(hh), RT_ERROR_NONE);
    CHECK_EQ(rtFree(va), ACL_ERROR_RT_PARAM_INVALID); /* a reservation is released, not freed */
    CHECK_EQ(rtReleaseMemAddress(va), RT_ERROR_NONE);
    CHECK_EQ(rtReleaseMemAddress(va), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(free_now(), HBM_910B3);
}

static void test_mem_info_variants(void) {
    CHECK_EQ(rtSetDevice(0), RT_ERROR_NONE);
    void *p = NULL;
    CHECK_EQ(rtMalloc(&p, GIB, RT_MEMORY_HBM, 0), RT_ERROR_NONE);
    size_t f = 1, t = 1;
    CHECK_EQ(rtMemGetInfoEx(RT_MEMORYINFO_DDR, &f, &t), RT_ERROR_NONE); /* 910B has no DDR */
    CHECK_EQ(f, 0);
    CHECK_EQ(t, 0);
    CHECK_EQ(rtMemGetInfoEx(RT_MEMORYINFO_HBM_HUGE, &f, &t), RT_ERROR_NONE);
    CHECK_EQ(f, HBM_910B3 - GIB);
    CHECK_EQ(rtsMemGetInfo(RT_MEMORYINFO_HUGE, &f, &t), RT_ERROR_NONE);
    CHECK_EQ(t, HBM_910B3);
    CHECK_EQ(rtMemGetInfo(&f, &t), RT_ERROR_NONE);
    CHECK_EQ(f, HBM_910B3 - GIB);
    CHECK_EQ(rtMemGetInfoEx((rtMemInfoType_t)99, &f, &t), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(rtMemGetInfoEx(RT_MEMORYINFO_HBM, NULL, &t), ACL_ERROR_RT_PARAM_INVALID);
    rtMemInfo_t info;
    memset(&info, 0xff, sizeof(info));
    CHECK_EQ(rtMemGetInfoByType(0, RT_MEM_INFO_TYPE_HBM_SIZE, &info), RT_ERROR_NONE);
    CHECK_EQ(info.phyInfo.total, HBM_910B3);
    CHECK_EQ(info.phyInfo.free, HBM_910B3 - GIB);
    CHECK_EQ(rtMemGetInfoByType(9, RT_MEM_INFO_TYPE_HBM_SIZE, &info), ACL_ERROR_RT_INVALID_DEVICEID);
    rtMemUsageInfo_t usage[2];
    size_t n = 0;
    CHECK_EQ(rtGetMemUsageInfo(0, usage, 2, &n), RT_ERROR_NONE);
    CHECK_EQ(n, 1);
    CHECK_EQ(usage[0].curMemSize, GIB);
    /* copies are validated against live allocations */
    char host[64] = {1};
    CHECK_EQ(rtMemcpy(p, GIB, host, sizeof(host), RT_MEMCPY_HOST_TO_DEVICE), RT_ERROR_NONE);
    CHECK_EQ(rtMemcpy(host, sizeof(host), p, sizeof(host), RT_MEMCPY_DEVICE_TO_HOST), RT_ERROR_NONE);
    CHECK_EQ(host[0], 0);
    CHECK_EQ(rtMemcpy((char *)p + GIB - 8, 64, host, 64, RT_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(rtFree(p), RT_ERROR_NONE);
}

static void test_device_reset_releases(void) {
    CHECK_EQ(rtSetDevice(3), RT_ERROR_NONE);
    void *p = NULL, *q = NULL;
    CHECK_EQ(rtMalloc(&p, 5 * GIB, RT_MEMORY_HBM, 0), RT_ERROR_NONE);
    CHECK_EQ(rtMalloc(&q, 7, RT_MEMORY_HBM, 0), RT_ERROR_NONE);
    CHECK_EQ(hbm_file_used(3), 5 * GIB + 7);
    CHECK_EQ(rtDeviceReset(3), RT_ERROR_NONE);
    CHECK_EQ(hbm_file_used(3), 0);
    CHECK_EQ(rtFree(p), ACL_ERROR_RT_PARAM_INVALID);
    int32_t dev;
    CHECK_EQ(rtGetDevice(&dev), ACL_ERROR_RT_CONTEXT_NULL);
    /* the process's device references: two rtSetDevice need two resets; the force variant needs one */
    CHECK_EQ(rtSetDevice(3), RT_ERROR_NONE);
    CHECK_EQ(rtSetDevice(3), RT_ERROR_NONE);
    CHECK_EQ(rtMalloc(&p, GIB, RT_MEMORY_HBM, 0), RT_ERROR_NONE);
    CHECK_EQ(rtDeviceReset(3), RT_ERROR_NONE);
    CHECK_EQ(hbm_file_used(3), GIB);
    CHECK_EQ(rtDeviceReset(3), RT_ERROR_NONE);
    CHECK_EQ(hbm_file_used(3), 0);
    CHECK_EQ(rtSetDevice(3), RT_ERROR_NONE);
    CHECK_EQ(rtSetDevice(3), RT_ERROR_NONE);
    CHECK_EQ(rtMalloc(&p, GIB, RT_MEMORY_HBM, 0), RT_ERROR_NONE);
    CHECK_EQ(rtDeviceResetForce(3), RT_ERROR_NONE);
    CHECK_EQ(hbm_file_used(3), 0);
}

/* Runs fn in a child process and returns its exit status (or 128+signal). */
static int in_child(void (*fn)(int), int fd) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        test_failures = 0; /* report only the child's own failures */
        fn(fd);
        exit(test_failures == 0 ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void *parent_ptr;

static void child_allocates_and_reports(int fd) {
    CHECK_EQ(rtSetDevice(0), RT_ERROR_NONE);
    /* the parent's allocation belongs to the parent's context */
    CHECK_EQ(rtFree(parent_ptr), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(free_now(), HBM_910B3 - GIB); /* the parent's gigabyte is visible to everybody */
    void *p = NULL;
    CHECK_EQ(rtMalloc(&p, 2 * GIB, RT_MEMORY_HBM, 0), RT_ERROR_NONE);
    char c = 'x';
    CHECK_EQ(write(fd, &c, 1), 1);
    /* exit without freeing: the runtime gives the memory back at exit */
}

static void child_allocates_then_dies(int fd) {
    (void)fd;
    CHECK_EQ(rtSetDevice(0), RT_ERROR_NONE);
    void *p = NULL;
    CHECK_EQ(rtMalloc(&p, 10 * GIB, RT_MEMORY_HBM, 0), RT_ERROR_NONE);
    raise(SIGKILL);
}

static void child_fills_device(int fd) {
    (void)fd;
    CHECK_EQ(rtSetDevice(0), RT_ERROR_NONE);
    void *p = NULL;
    CHECK_EQ(rtMalloc(&p, HBM_910B3 - GIB, RT_MEMORY_HBM, 0), RT_ERROR_NONE);
    raise(SIGKILL);
}

static void test_cross_process(void) {
    CHECK_EQ(rtSetDevice(0), RT_ERROR_NONE);
    CHECK_EQ(rtMalloc(&parent_ptr, GIB, RT_MEMORY_HBM, 0), RT_ERROR_NONE);
    int fds[2];
    CHECK_EQ(pipe(fds), 0);
    CHECK_EQ(in_child(child_allocates_and_reports, fds[1]), 0);
    char c = 0;
    CHECK_EQ(read(fds[0], &c, 1), 1);
    close(fds[0]);
    close(fds[1]);
    CHECK_EQ(free_now(), HBM_910B3 - GIB); /* the child exited: its 2 GiB came back */

    CHECK_EQ(in_child(child_allocates_then_dies, -1), 128 + SIGKILL);
    CHECK_EQ(hbm_file_used(0), 11 * GIB); /* nobody has reaped yet */
    CHECK_EQ(free_now(), HBM_910B3 - GIB);  /* memory info reclaims what dead processes held */
    CHECK_EQ(hbm_file_used(0), GIB);

    /* a dead process that filled the device: the next allocation reclaims and succeeds */
    CHECK_EQ(in_child(child_fills_device, -1), 128 + SIGKILL);
    CHECK_EQ(hbm_file_used(0), HBM_910B3);
    void *p = NULL;
    CHECK_EQ(rtMalloc(&p, 4 * GIB, RT_MEMORY_HBM, 0), RT_ERROR_NONE);
    CHECK_EQ(hbm_file_used(0), 5 * GIB);
    CHECK_EQ(rtFree(p), RT_ERROR_NONE);
    CHECK_EQ(rtFree(parent_ptr), RT_ERROR_NONE);
    CHECK_EQ(hbm_file_used(0), 0);
}

static void *worker_uses_context(void *arg) {
    void *p = NULL;
    CHECK_EQ(rtMalloc(&p, 64, RT_MEMORY_HBM, 0), ACL_ERROR_RT_CONTEXT_NULL); /* a new thread has none */
    rtContext_t none = NULL;
    CHECK_EQ(rtCtxGetCurrent(&none), ACL_ERROR_RT_CONTEXT_NULL);
    CHECK_EQ(rtCtxSetCurrent(arg), RT_ERROR_NONE);
    int32_t dev = -1;
    CHECK_EQ(rtGetDevice(&dev), RT_ERROR_NONE);
    CHECK_EQ(dev, 6);
    CHECK_EQ(rtMalloc(&p, 4096, RT_MEMORY_HBM, 0), RT_ERROR_NONE);
    CHECK_EQ(hbm_file_used(6), 4096);
    CHECK_EQ(rtFree(p), RT_ERROR_NONE);
    return NULL;
}

static void test_contexts(void) {
    rtContext_t ctx = NULL, cur = NULL;
    CHECK_EQ(rtCtxCreateEx(&ctx, RT_CTX_NORMAL_MODE, 9), ACL_ERROR_RT_INVALID_DEVICEID);
    CHECK_EQ(rtCtxCreateEx(&ctx, RT_CTX_NORMAL_MODE, 6), RT_ERROR_NONE);
    CHECK_EQ(rtCtxGetCurrent(&cur), RT_ERROR_NONE);
    CHECK(cur == ctx);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, worker_uses_context, ctx), 0);
    pthread_join(t, NULL);
    CHECK_EQ(rtSetDevice(0), RT_ERROR_NONE); /* back to device 0's primary context */
    CHECK_EQ(rtCtxGetCurrent(&cur), RT_ERROR_NONE);
    CHECK(cur != ctx);
    CHECK_EQ(rtCtxDestroy(ctx), RT_ERROR_NONE);
    CHECK_EQ(rtCtxSetCurrent(ctx), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(rtCtxDestroy(ctx), ACL_ERROR_RT_CONTEXT_NULL); /* CANN: a destroyed context is no user context */
}

int main(void) {
    test_fresh_host("test_rt_mem");
    setenv("VNPU_SIM_QUIET", "1", 1);
    test_no_context();
    test_accounting_and_oom();
    test_other_allocators();
    test_mem_info_variants();
    test_virtual_memory();
    test_device_reset_releases();
    test_contexts();
    test_cross_process();
    TEST_DONE("test_rt_mem");
}
