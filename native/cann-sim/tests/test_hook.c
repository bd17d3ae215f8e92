/*
 * A minimal rt*-level interposer, preloaded by test_npu_burn.sh to prove the layering the limiter
 * relies on: ACL calls made by the workload reach libruntime.so through the PLT, so a preloaded
 * definition of an rt* symbol sees them. Counts calls and writes them to $VNPU_TEST_HOOK_OUT at exit.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/rt.h"

static unsigned long n_malloc, n_free, n_info, n_launch_v3, n_launch, n_model;

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

rtError_t rtMalloc(void **devPtr, uint64_t size, rtMemType_t type, const uint16_t moduleId) {
    __atomic_fetch_add(&n_malloc, 1, __ATOMIC_RELAXED);
    return REAL(rtMalloc)(devPtr, size, type, moduleId);
}

rtError_t rtFree(void *devPtr) {
    __atomic_fetch_add(&n_free, 1, __ATOMIC_RELAXED);
    return REAL(rtFree)(devPtr);
}

rtError_t rtMemGetInfoEx(rtMemInfoType_t memInfoType, size_t *freeSize, size_t *totalSize) {
    __atomic_fetch_add(&n_info, 1, __ATOMIC_RELAXED);
    return REAL(rtMemGetInfoEx)(memInfoType, freeSize, totalSize);
}

rtError_t rtLaunchKernelByFuncHandleV3(rtFuncHandle funcHandle, uint32_t numBlocks, const rtArgsEx_t *const argsInfo,
                                       rtStream_t stm, const rtTaskCfgInfo_t *const cfgInfo) {
    __atomic_fetch_add(&n_launch_v3, 1, __ATOMIC_RELAXED);
    return REAL(rtLaunchKernelByFuncHandleV3)(funcHandle, numBlocks, argsInfo, stm, cfgInfo);
}

rtError_t rtKernelLaunch(const void *stubFunc, uint32_t numBlocks, void *args, uint32_t argsSize, rtSmDesc_t *smDesc,
                         rtStream_t stm) {
    __atomic_fetch_add(&n_launch, 1, __ATOMIC_RELAXED);
    return REAL(rtKernelLaunch)(stubFunc, numBlocks, args, argsSize, smDesc, stm);
}

rtError_t rtModelExecute(rtModel_t mdl, rtStream_t stm, uint32_t flag) {
    __atomic_fetch_add(&n_model, 1, __ATOMIC_RELAXED);
    return REAL(rtModelExecute)(mdl, stm, flag);
}

__attribute__((destructor)) static void report(void) {
    const char *path = getenv("VNPU_TEST_HOOK_OUT");
    if (path == NULL) return;
    FILE *f = fopen(path, "a");
    if (f == NULL) return;
    fprintf(f, "hook rtMalloc=%lu rtFree=%lu rtMemGetInfoEx=%lu rtLaunchKernelByFuncHandleV3=%lu rtKernelLaunch=%lu "
               "rtModelExecute=%lu\n",
            n_malloc, n_free, n_info, n_launch_v3, n_launch, n_model);
    fclose(f);
}
