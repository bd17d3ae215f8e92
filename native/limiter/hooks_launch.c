/*
 * Launch hooks of libvnpu.so: every entry point of limiter-design.md 5.3 that enqueues device work on
 * a stream, with the exact CANN prototypes (include/runtime/rt.h). Each forwards to the runtime's own
 * function after vnpu_compute_before and hands the result to vnpu_compute_after; the hook never
 * changes arguments or return codes. A hook whose real function the loaded runtime lacks returns
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT (207000) and logs that once.
 *
 * Also hooked, to keep capture and model building out of the accounting: rtModelBindStream,
 * rtModelUnbindStream, rtStreamBeginCapture, rtStreamEndCapture (launches on such streams are
 * recorded into a model, not run; the model's rtModelExecute is what gets charged). And what frees
 * streams, whose handles the runtime may hand out again for another device's: rtStreamDestroy,
 * rtModelDestroy, rtCtxDestroy, rtCtxDestroyEx and rtsCtxDestroy (a context owns its streams and
 * models; aclrtDestroyContext calls the Ex form, the RTS layer's form calls it inside the runtime,
 * where the call may bind locally); device resets are in hooks.c. And rtStreamCreate (what
 * aclrtCreateStream calls): a new stream is never bound or captured, whatever the limiter missed
 * of how the old stream at that address went.
 */
#include <stddef.h>
#include <time.h>

#include "compute.h"

#define FEATURE_NOT_SUPPORT 207000
/* libvnpu.so is built with -fvisibility=hidden: only the hooks are exported */
#define EXPORT __attribute__((visibility("default")))

static void *real_fn[VNPU_SYM_COUNT];

static void *real_get(int sym)
{
    void *p = __atomic_load_n(&real_fn[sym], __ATOMIC_ACQUIRE);
    if (__builtin_expect(p != NULL, 1))
        return p;
    p = vnpu_rt_resolve(vnpu_launch_symbol_names[sym]);
    if (p)
        __atomic_store_n(&real_fn[sym], p, __ATOMIC_RELEASE);
    return p;
}

/*
 * With compute limiting off (vnpu_compute_off, compute.h) a hook is a load of the real function, a
 * load and compare of the state and a tail call: the bracket lives in a separate function so that
 * the hook itself saves no register and builds no frame (issue 29: launch <= +10 ns).
 */
#define FAST_PATH(SYM, FNTYPE, ...)                                                              \
    do {                                                                                         \
        FNTYPE real_ = (FNTYPE)__atomic_load_n(&real_fn[VNPU_SYM_##SYM], __ATOMIC_ACQUIRE);      \
        if (__builtin_expect(real_ != NULL && vnpu_compute_off(), 1))                            \
            return real_(__VA_ARGS__);                                                           \
    } while (0)

/* LAUNCH(sym, key-fn, key-tiling, key-blocks, stream, call-args...) inside a hook body */
#define LAUNCH(SYM, FNTYPE, KFN, KTILING, KBLOCKS, STM, ...)                                    \
    do {                                                                                         \
        FNTYPE real = (FNTYPE)real_get(VNPU_SYM_##SYM);                                          \
        if (!real) {                                                                             \
            vnpu_compute_missing_symbol(VNPU_SYM_##SYM);                                         \
            return FEATURE_NOT_SUPPORT;                                                          \
        }                                                                                        \
        struct vnpu_launch l;                                                                    \
        vnpu_compute_before(&l, VNPU_SYM_##SYM, vnpu_kernel_key(VNPU_SYM_##SYM, (KFN), (KTILING), (KBLOCKS)), (STM)); \
        rtError_t rc = real(__VA_ARGS__);                                                        \
        vnpu_compute_after(&l, rc);                                                              \
        return rc;                                                                               \
    } while (0)

static __attribute__((noinline)) rtError_t
rtKernelLaunch_bracketed(const void *stubFunc, uint32_t numBlocks, void *args, uint32_t argsSize,
                         rtSmDesc_t *smDesc, rtStream_t stm)
{
    typedef rtError_t (*fn)(const void *, uint32_t, void *, uint32_t, rtSmDesc_t *, rtStream_t);
    LAUNCH(rtKernelLaunch, fn, stubFunc, 0, numBlocks, stm, stubFunc, numBlocks, args, argsSize, smDesc, stm);
}

EXPORT rtError_t rtKernelLaunch(const void *stubFunc, uint32_t numBlocks, void *args, uint32_t argsSize,
                         rtSmDesc_t *smDesc, rtStream_t stm)
{
    typedef rtError_t (*fn)(const void *, uint32_t, void *, uint32_t, rtSmDesc_t *, rtStream_t);
    FAST_PATH(rtKernelLaunch, fn, stubFunc, numBlocks, args, argsSize, smDesc, stm);
    return rtKernelLaunch_bracketed(stubFunc, numBlocks, args, argsSize, smDesc, stm);
}

static __attribute__((noinline)) rtError_t
rtKernelLaunchWithFlag_bracketed(const void *stubFunc, uint32_t numBlocks, rtArgsEx_t *argsInfo,
                                 rtSmDesc_t *smDesc, rtStream_t stm, uint32_t flags)
{
    typedef rtError_t (*fn)(const void *, uint32_t, rtArgsEx_t *, rtSmDesc_t *, rtStream_t, uint32_t);
    LAUNCH(rtKernelLaunchWithFlag, fn, stubFunc, 0, numBlocks, stm, stubFunc, numBlocks, argsInfo, smDesc, stm,
           flags);
}

EXPORT rtError_t rtKernelLaunchWithFlag(const void *stubFunc, uint32_t numBlocks, rtArgsEx_t *argsInfo,
                                 rtSmDesc_t *smDesc, rtStream_t stm, uint32_t flags)
{
    typedef rtError_t (*fn)(const void *, uint32_t, rtArgsEx_t *, rtSmDesc_t *, rtStream_t, uint32_t);
    FAST_PATH(rtKernelLaunchWithFlag, fn, stubFunc, numBlocks, argsInfo, smDesc, stm, flags);
    return rtKernelLaunchWithFlag_bracketed(stubFunc, numBlocks, argsInfo, smDesc, stm, flags);
}

static __attribute__((noinline)) rtError_t
rtKernelLaunchWithFlagV2_bracketed(const void *stubFunc, uint32_t numBlocks, rtArgsEx_t *argsInfo,
                                   rtSmDesc_t *smDesc, rtStream_t stm, uint32_t flags,
                                   const rtTaskCfgInfo_t *cfgInfo)
{
    typedef rtError_t (*fn)(const void *, uint32_t, rtArgsEx_t *, rtSmDesc_t *, rtStream_t, uint32_t,
                            const rtTaskCfgInfo_t *);
    LAUNCH(rtKernelLaunchWithFlagV2, fn, stubFunc, 0, numBlocks, stm, stubFunc, numBlocks, argsInfo, smDesc,
           stm, flags, cfgInfo);
}

EXPORT rtError_t rtKernelLaunchWithFlagV2(const void *stubFunc, uint32_t numBlocks, rtArgsEx_t *argsInfo,
                                   rtSmDesc_t *smDesc, rtStream_t stm, uint32_t flags,
                                   const rtTaskCfgInfo_t *cfgInfo)
{
    typedef rtError_t (*fn)(const void *, uint32_t, rtArgsEx_t *, rtSmDesc_t *, rtStream_t, uint32_t,
                            const rtTaskCfgInfo_t *);
    FAST_PATH(rtKernelLaunchWithFlagV2, fn, stubFunc, numBlocks, argsInfo, smDesc, stm, flags, cfgInfo);
    return rtKernelLaunchWithFlagV2_bracketed(stubFunc, numBlocks, argsInfo, smDesc, stm, flags, cfgInfo);
}

static __attribute__((noinline)) rtError_t
rtKernelLaunchWithHandle_bracketed(void *hdl, const uint64_t tilingKey, uint32_t numBlocks,
                                   rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                   const void *kernelInfo)
{
    typedef rtError_t (*fn)(void *, uint64_t, uint32_t, rtArgsEx_t *, rtSmDesc_t *, rtStream_t, const void *);
    LAUNCH(rtKernelLaunchWithHandle, fn, hdl, tilingKey, numBlocks, stm, hdl, tilingKey, numBlocks, argsInfo,
           smDesc, stm, kernelInfo);
}

EXPORT rtError_t rtKernelLaunchWithHandle(void *hdl, const uint64_t tilingKey, uint32_t numBlocks,
                                   rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                   const void *kernelInfo)
{
    typedef rtError_t (*fn)(void *, uint64_t, uint32_t, rtArgsEx_t *, rtSmDesc_t *, rtStream_t, const void *);
    FAST_PATH(rtKernelLaunchWithHandle, fn, hdl, tilingKey, numBlocks, argsInfo, smDesc, stm, kernelInfo);
    return rtKernelLaunchWithHandle_bracketed(hdl, tilingKey, numBlocks, argsInfo, smDesc, stm, kernelInfo);
}

static __attribute__((noinline)) rtError_t
rtKernelLaunchWithHandleV2_bracketed(void *hdl, const uint64_t tilingKey, uint32_t numBlocks,
                                     rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                     const rtTaskCfgInfo_t *cfgInfo)
{
    typedef rtError_t (*fn)(void *, uint64_t, uint32_t, rtArgsEx_t *, rtSmDesc_t *, rtStream_t,
                            const rtTaskCfgInfo_t *);
    LAUNCH(rtKernelLaunchWithHandleV2, fn, hdl, tilingKey, numBlocks, stm, hdl, tilingKey, numBlocks, argsInfo,
           smDesc, stm, cfgInfo);
}

EXPORT rtError_t rtKernelLaunchWithHandleV2(void *hdl, const uint64_t tilingKey, uint32_t numBlocks,
                                     rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                     const rtTaskCfgInfo_t *cfgInfo)
{
    typedef rtError_t (*fn)(void *, uint64_t, uint32_t, rtArgsEx_t *, rtSmDesc_t *, rtStream_t,
                            const rtTaskCfgInfo_t *);
    FAST_PATH(rtKernelLaunchWithHandleV2, fn, hdl, tilingKey, numBlocks, argsInfo, smDesc, stm, cfgInfo);
    return rtKernelLaunchWithHandleV2_bracketed(hdl, tilingKey, numBlocks, argsInfo, smDesc, stm, cfgInfo);
}

static __attribute__((noinline)) rtError_t
rtKernelLaunchEx_bracketed(void *args, uint32_t argsSize, uint32_t flags, rtStream_t stm)
{
    typedef rtError_t (*fn)(void *, uint32_t, uint32_t, rtStream_t);
    /* no function handle: the argument size tells kernels apart */
    LAUNCH(rtKernelLaunchEx, fn, NULL, argsSize, flags, stm, args, argsSize, flags, stm);
}

EXPORT rtError_t rtKernelLaunchEx(void *args, uint32_t argsSize, uint32_t flags, rtStream_t stm)
{
    typedef rtError_t (*fn)(void *, uint32_t, uint32_t, rtStream_t);
    FAST_PATH(rtKernelLaunchEx, fn, args, argsSize, flags, stm);
    return rtKernelLaunchEx_bracketed(args, argsSize, flags, stm);
}

static __attribute__((noinline)) rtError_t
rtKernelLaunchFwk_bracketed(const char_t *opName, void *args, uint32_t argsSize, uint32_t flags,
                            rtStream_t rtStream)
{
    typedef rtError_t (*fn)(const char_t *, void *, uint32_t, uint32_t, rtStream_t);
    LAUNCH(rtKernelLaunchFwk, fn, opName, argsSize, flags, rtStream, opName, args, argsSize, flags, rtStream);
}

EXPORT rtError_t rtKernelLaunchFwk(const char_t *opName, void *args, uint32_t argsSize, uint32_t flags,
                            rtStream_t rtStream)
{
    typedef rtError_t (*fn)(const char_t *, void *, uint32_t, uint32_t, rtStream_t);
    FAST_PATH(rtKernelLaunchFwk, fn, opName, args, argsSize, flags, rtStream);
    return rtKernelLaunchFwk_bracketed(opName, args, argsSize, flags, rtStream);
}

static __attribute__((noinline)) rtError_t
rtAicpuKernelLaunchWithFlag_bracketed(const rtKernelLaunchNames_t *launchNames, uint32_t numBlocks,
                                      const rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                      uint32_t flags)
{
    typedef rtError_t (*fn)(const rtKernelLaunchNames_t *, uint32_t, const rtArgsEx_t *, rtSmDesc_t *,
                            rtStream_t, uint32_t);
    LAUNCH(rtAicpuKernelLaunchWithFlag, fn, NULL, 0, /* the names block is often on the caller's stack */
           numBlocks, stm, launchNames, numBlocks, argsInfo, smDesc, stm, flags);
}

EXPORT rtError_t rtAicpuKernelLaunchWithFlag(const rtKernelLaunchNames_t *launchNames, uint32_t numBlocks,
                                      const rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                      uint32_t flags)
{
    typedef rtError_t (*fn)(const rtKernelLaunchNames_t *, uint32_t, const rtArgsEx_t *, rtSmDesc_t *,
                            rtStream_t, uint32_t);
    FAST_PATH(rtAicpuKernelLaunchWithFlag, fn, launchNames, numBlocks, argsInfo, smDesc, stm, flags);
    return rtAicpuKernelLaunchWithFlag_bracketed(launchNames, numBlocks, argsInfo, smDesc, stm, flags);
}

static __attribute__((noinline)) rtError_t
rtAicpuKernelLaunchExWithArgs_bracketed(const uint32_t kernelType, const char_t *const opName,
                                        const uint32_t numBlocks, const rtAicpuArgsEx_t *argsInfo,
                                        rtSmDesc_t *const smDesc, const rtStream_t stm, const uint32_t flags)
{
    typedef rtError_t (*fn)(uint32_t, const char_t *, uint32_t, const rtAicpuArgsEx_t *, rtSmDesc_t *,
                            rtStream_t, uint32_t);
    LAUNCH(rtAicpuKernelLaunchExWithArgs, fn, opName, kernelType, numBlocks, stm, kernelType, opName, numBlocks,
           argsInfo, smDesc, stm, flags);
}

EXPORT rtError_t rtAicpuKernelLaunchExWithArgs(const uint32_t kernelType, const char_t *const opName,
                                        const uint32_t numBlocks, const rtAicpuArgsEx_t *argsInfo,
                                        rtSmDesc_t *const smDesc, const rtStream_t stm, const uint32_t flags)
{
    typedef rtError_t (*fn)(uint32_t, const char_t *, uint32_t, const rtAicpuArgsEx_t *, rtSmDesc_t *,
                            rtStream_t, uint32_t);
    FAST_PATH(rtAicpuKernelLaunchExWithArgs, fn, kernelType, opName, numBlocks, argsInfo, smDesc, stm, flags);
    return rtAicpuKernelLaunchExWithArgs_bracketed(kernelType, opName, numBlocks, argsInfo, smDesc, stm, flags);
}

static __attribute__((noinline)) rtError_t
rtCpuKernelLaunchWithFlag_bracketed(const void *soName, const void *kernelName, uint32_t numBlocks,
                                    const rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                    uint32_t flags)
{
    typedef rtError_t (*fn)(const void *, const void *, uint32_t, const rtArgsEx_t *, rtSmDesc_t *, rtStream_t,
                            uint32_t);
    LAUNCH(rtCpuKernelLaunchWithFlag, fn, kernelName, 0, numBlocks, stm, soName, kernelName, numBlocks, argsInfo,
           smDesc, stm, flags);
}

EXPORT rtError_t rtCpuKernelLaunchWithFlag(const void *soName, const void *kernelName, uint32_t numBlocks,
                                    const rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                    uint32_t flags)
{
    typedef rtError_t (*fn)(const void *, const void *, uint32_t, const rtArgsEx_t *, rtSmDesc_t *, rtStream_t,
                            uint32_t);
    FAST_PATH(rtCpuKernelLaunchWithFlag, fn, soName, kernelName, numBlocks, argsInfo, smDesc, stm, flags);
    return rtCpuKernelLaunchWithFlag_bracketed(soName, kernelName, numBlocks, argsInfo, smDesc, stm, flags);
}

static __attribute__((noinline)) rtError_t
rtVectorCoreKernelLaunch_bracketed(const void *stubFunc, uint32_t numBlocks, rtArgsEx_t *argsInfo,
                                   rtSmDesc_t *smDesc, rtStream_t stm, uint32_t flags,
                                   const rtTaskCfgInfo_t *cfgInfo)
{
    typedef rtError_t (*fn)(const void *, uint32_t, rtArgsEx_t *, rtSmDesc_t *, rtStream_t, uint32_t,
                            const rtTaskCfgInfo_t *);
    LAUNCH(rtVectorCoreKernelLaunch, fn, stubFunc, 0, numBlocks, stm, stubFunc, numBlocks, argsInfo, smDesc, stm,
           flags, cfgInfo);
}

EXPORT rtError_t rtVectorCoreKernelLaunch(const void *stubFunc, uint32_t numBlocks, rtArgsEx_t *argsInfo,
                                   rtSmDesc_t *smDesc, rtStream_t stm, uint32_t flags,
                                   const rtTaskCfgInfo_t *cfgInfo)
{
    typedef rtError_t (*fn)(const void *, uint32_t, rtArgsEx_t *, rtSmDesc_t *, rtStream_t, uint32_t,
                            const rtTaskCfgInfo_t *);
    FAST_PATH(rtVectorCoreKernelLaunch, fn, stubFunc, numBlocks, argsInfo, smDesc, stm, flags, cfgInfo);
    return rtVectorCoreKernelLaunch_bracketed(stubFunc, numBlocks, argsInfo, smDesc, stm, flags, cfgInfo);
}

static __attribute__((noinline)) rtError_t
rtVectorCoreKernelLaunchWithHandle_bracketed(void *hdl, const uint64_t tilingKey, uint32_t numBlocks,
                                             rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                             const rtTaskCfgInfo_t *cfgInfo)
{
    typedef rtError_t (*fn)(void *, uint64_t, uint32_t, rtArgsEx_t *, rtSmDesc_t *, rtStream_t,
                            const rtTaskCfgInfo_t *);
    LAUNCH(rtVectorCoreKernelLaunchWithHandle, fn, hdl, tilingKey, numBlocks, stm, hdl, tilingKey, numBlocks,
           argsInfo, smDesc, stm, cfgInfo);
}

EXPORT rtError_t rtVectorCoreKernelLaunchWithHandle(void *hdl, const uint64_t tilingKey, uint32_t numBlocks,
                                             rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                             const rtTaskCfgInfo_t *cfgInfo)
{
    typedef rtError_t (*fn)(void *, uint64_t, uint32_t, rtArgsEx_t *, rtSmDesc_t *, rtStream_t,
                            const rtTaskCfgInfo_t *);
    FAST_PATH(rtVectorCoreKernelLaunchWithHandle, fn, hdl, tilingKey, numBlocks, argsInfo, smDesc, stm, cfgInfo);
    return rtVectorCoreKernelLaunchWithHandle_bracketed(hdl, tilingKey, numBlocks, argsInfo, smDesc, stm, cfgInfo);
}

static __attribute__((noinline)) rtError_t
rtLaunchKernelByFuncHandle_bracketed(rtFuncHandle funcHandle, uint32_t numBlocks, rtLaunchArgsHandle argsHandle,
                                     rtStream_t stm)
{
    typedef rtError_t (*fn)(rtFuncHandle, uint32_t, rtLaunchArgsHandle, rtStream_t);
    LAUNCH(rtLaunchKernelByFuncHandle, fn, funcHandle, 0, numBlocks, stm, funcHandle, numBlocks, argsHandle, stm);
}

EXPORT rtError_t rtLaunchKernelByFuncHandle(rtFuncHandle funcHandle, uint32_t numBlocks, rtLaunchArgsHandle argsHandle,
                                     rtStream_t stm)
{
    typedef rtError_t (*fn)(rtFuncHandle, uint32_t, rtLaunchArgsHandle, rtStream_t);
    FAST_PATH(rtLaunchKernelByFuncHandle, fn, funcHandle, numBlocks, argsHandle, stm);
    return rtLaunchKernelByFuncHandle_bracketed(funcHandle, numBlocks, argsHandle, stm);
}

static __attribute__((noinline)) rtError_t
rtLaunchKernelByFuncHandleV2_bracketed(rtFuncHandle funcHandle, uint32_t numBlocks,
                                       rtLaunchArgsHandle argsHandle, rtStream_t stm,
                                       const rtTaskCfgInfo_t *cfgInfo)
{
    typedef rtError_t (*fn)(rtFuncHandle, uint32_t, rtLaunchArgsHandle, rtStream_t, const rtTaskCfgInfo_t *);
    LAUNCH(rtLaunchKernelByFuncHandleV2, fn, funcHandle, 0, numBlocks, stm, funcHandle, numBlocks, argsHandle,
           stm, cfgInfo);
}

EXPORT rtError_t rtLaunchKernelByFuncHandleV2(rtFuncHandle funcHandle, uint32_t numBlocks,
                                       rtLaunchArgsHandle argsHandle, rtStream_t stm,
                                       const rtTaskCfgInfo_t *cfgInfo)
{
    typedef rtError_t (*fn)(rtFuncHandle, uint32_t, rtLaunchArgsHandle, rtStream_t, const rtTaskCfgInfo_t *);
    FAST_PATH(rtLaunchKernelByFuncHandleV2, fn, funcHandle, numBlocks, argsHandle, stm, cfgInfo);
    return rtLaunchKernelByFuncHandleV2_bracketed(funcHandle, numBlocks, argsHandle, stm, cfgInfo);
}

static __attribute__((noinline)) rtError_t
rtLaunchKernelByFuncHandleV3_bracketed(rtFuncHandle funcHandle, uint32_t numBlocks,
                                       const rtArgsEx_t *const argsInfo, rtStream_t stm,
                                       const rtTaskCfgInfo_t *const cfgInfo)
{
    typedef rtError_t (*fn)(rtFuncHandle, uint32_t, const rtArgsEx_t *, rtStream_t, const rtTaskCfgInfo_t *);
    LAUNCH(rtLaunchKernelByFuncHandleV3, fn, funcHandle, 0, numBlocks, stm, funcHandle, numBlocks, argsInfo, stm,
           cfgInfo);
}

EXPORT rtError_t rtLaunchKernelByFuncHandleV3(rtFuncHandle funcHandle, uint32_t numBlocks,
                                       const rtArgsEx_t *const argsInfo, rtStream_t stm,
                                       const rtTaskCfgInfo_t *const cfgInfo)
{
    typedef rtError_t (*fn)(rtFuncHandle, uint32_t, const rtArgsEx_t *, rtStream_t, const rtTaskCfgInfo_t *);
    FAST_PATH(rtLaunchKernelByFuncHandleV3, fn, funcHandle, numBlocks, argsInfo, stm, cfgInfo);
    return rtLaunchKernelByFuncHandleV3_bracketed(funcHandle, numBlocks, argsInfo, stm, cfgInfo);
}

static __attribute__((noinline)) rtError_t
rtsLaunchKernelWithConfig_bracketed(rtFuncHandle funcHandle, uint32_t numBlocks, rtStream_t stm,
                                    rtKernelLaunchCfg_t *cfg, rtArgsHandle argsHandle, void *reserve)
{
    typedef rtError_t (*fn)(rtFuncHandle, uint32_t, rtStream_t, rtKernelLaunchCfg_t *, rtArgsHandle, void *);
    LAUNCH(rtsLaunchKernelWithConfig, fn, funcHandle, 0, numBlocks, stm, funcHandle, numBlocks, stm, cfg,
           argsHandle, reserve);
}

EXPORT rtError_t rtsLaunchKernelWithConfig(rtFuncHandle funcHandle, uint32_t numBlocks, rtStream_t stm,
                                    rtKernelLaunchCfg_t *cfg, rtArgsHandle argsHandle, void *reserve)
{
    typedef rtError_t (*fn)(rtFuncHandle, uint32_t, rtStream_t, rtKernelLaunchCfg_t *, rtArgsHandle, void *);
    FAST_PATH(rtsLaunchKernelWithConfig, fn, funcHandle, numBlocks, stm, cfg, argsHandle, reserve);
    return rtsLaunchKernelWithConfig_bracketed(funcHandle, numBlocks, stm, cfg, argsHandle, reserve);
}

static __attribute__((noinline)) rtError_t
rtsLaunchKernelWithDevArgs_bracketed(rtFuncHandle funcHandle, uint32_t numBlocks, rtStream_t stm,
                                     rtKernelLaunchCfg_t *cfg, const void *args, uint32_t argsSize,
                                     void *reserve)
{
    typedef rtError_t (*fn)(rtFuncHandle, uint32_t, rtStream_t, rtKernelLaunchCfg_t *, const void *, uint32_t,
                            void *);
    LAUNCH(rtsLaunchKernelWithDevArgs, fn, funcHandle, 0, numBlocks, stm, funcHandle, numBlocks, stm, cfg, args,
           argsSize, reserve);
}

EXPORT rtError_t rtsLaunchKernelWithDevArgs(rtFuncHandle funcHandle, uint32_t numBlocks, rtStream_t stm,
                                     rtKernelLaunchCfg_t *cfg, const void *args, uint32_t argsSize,
                                     void *reserve)
{
    typedef rtError_t (*fn)(rtFuncHandle, uint32_t, rtStream_t, rtKernelLaunchCfg_t *, const void *, uint32_t,
                            void *);
    FAST_PATH(rtsLaunchKernelWithDevArgs, fn, funcHandle, numBlocks, stm, cfg, args, argsSize, reserve);
    return rtsLaunchKernelWithDevArgs_bracketed(funcHandle, numBlocks, stm, cfg, args, argsSize, reserve);
}

static __attribute__((noinline)) rtError_t
rtsLaunchKernelWithHostArgs_bracketed(rtFuncHandle funcHandle, uint32_t numBlocks, rtStream_t stm,
                                      rtKernelLaunchCfg_t *cfg, void *hostArgs, uint32_t argsSize,
                                      rtPlaceHolderInfo_t *placeHolderArray, uint32_t placeHolderNum)
{
    typedef rtError_t (*fn)(rtFuncHandle, uint32_t, rtStream_t, rtKernelLaunchCfg_t *, void *, uint32_t,
                            rtPlaceHolderInfo_t *, uint32_t);
    LAUNCH(rtsLaunchKernelWithHostArgs, fn, funcHandle, 0, numBlocks, stm, funcHandle, numBlocks, stm, cfg,
           hostArgs, argsSize, placeHolderArray, placeHolderNum);
}

EXPORT rtError_t rtsLaunchKernelWithHostArgs(rtFuncHandle funcHandle, uint32_t numBlocks, rtStream_t stm,
                                      rtKernelLaunchCfg_t *cfg, void *hostArgs, uint32_t argsSize,
                                      rtPlaceHolderInfo_t *placeHolderArray, uint32_t placeHolderNum)
{
    typedef rtError_t (*fn)(rtFuncHandle, uint32_t, rtStream_t, rtKernelLaunchCfg_t *, void *, uint32_t,
                            rtPlaceHolderInfo_t *, uint32_t);
    FAST_PATH(rtsLaunchKernelWithHostArgs, fn, funcHandle, numBlocks, stm, cfg, hostArgs, argsSize, placeHolderArray,
              placeHolderNum);
    return rtsLaunchKernelWithHostArgs_bracketed(funcHandle, numBlocks, stm, cfg, hostArgs, argsSize,
                                                 placeHolderArray, placeHolderNum);
}

static __attribute__((noinline)) rtError_t
rtsLaunchCpuKernel_bracketed(const rtFuncHandle funcHandle, uint32_t numBlocks, rtStream_t stm,
                             const rtKernelLaunchCfg_t *cfg, rtCpuKernelArgs_t *argsInfo)
{
    typedef rtError_t (*fn)(rtFuncHandle, uint32_t, rtStream_t, const rtKernelLaunchCfg_t *, rtCpuKernelArgs_t *);
    LAUNCH(rtsLaunchCpuKernel, fn, funcHandle, 0, numBlocks, stm, funcHandle, numBlocks, stm, cfg, argsInfo);
}

EXPORT rtError_t rtsLaunchCpuKernel(const rtFuncHandle funcHandle, uint32_t numBlocks, rtStream_t stm,
                             const rtKernelLaunchCfg_t *cfg, rtCpuKernelArgs_t *argsInfo)
{
    typedef rtError_t (*fn)(rtFuncHandle, uint32_t, rtStream_t, const rtKernelLaunchCfg_t *, rtCpuKernelArgs_t *);
    FAST_PATH(rtsLaunchCpuKernel, fn, funcHandle, numBlocks, stm, cfg, argsInfo);
    return rtsLaunchCpuKernel_bracketed(funcHandle, numBlocks, stm, cfg, argsInfo);
}

static __attribute__((noinline)) rtError_t
rtLaunchKernelWithArgsArray_bracketed(void *func, uint32_t numBlocks, rtStream_t stm, rtKernelLaunchCfg_t *cfg,
                                      void **args)
{
    typedef rtError_t (*fn)(void *, uint32_t, rtStream_t, rtKernelLaunchCfg_t *, void **);
    LAUNCH(rtLaunchKernelWithArgsArray, fn, func, 0, numBlocks, stm, func, numBlocks, stm, cfg, args);
}

EXPORT rtError_t rtLaunchKernelWithArgsArray(void *func, uint32_t numBlocks, rtStream_t stm, rtKernelLaunchCfg_t *cfg,
                                      void **args)
{
    typedef rtError_t (*fn)(void *, uint32_t, rtStream_t, rtKernelLaunchCfg_t *, void **);
    FAST_PATH(rtLaunchKernelWithArgsArray, fn, func, numBlocks, stm, cfg, args);
    return rtLaunchKernelWithArgsArray_bracketed(func, numBlocks, stm, cfg, args);
}

static __attribute__((noinline)) rtError_t
rtModelExecute_bracketed(rtModel_t mdl, rtStream_t stm, uint32_t flag)
{
    typedef rtError_t (*fn)(rtModel_t, rtStream_t, uint32_t);
    /* one key per model: its measured cost is the whole graph's device time */
    LAUNCH(rtModelExecute, fn, mdl, 0, 0, stm, mdl, stm, flag);
}

EXPORT rtError_t rtModelExecute(rtModel_t mdl, rtStream_t stm, uint32_t flag)
{
    typedef rtError_t (*fn)(rtModel_t, rtStream_t, uint32_t);
    FAST_PATH(rtModelExecute, fn, mdl, stm, flag);
    return rtModelExecute_bracketed(mdl, stm, flag);
}

static __attribute__((noinline)) rtError_t
rtModelExecuteSync_bracketed(rtModel_t mdl, rtStream_t stm, uint32_t flag, int32_t timeout)
{
    typedef rtError_t (*fn)(rtModel_t, rtStream_t, uint32_t, int32_t);
    LAUNCH(rtModelExecuteSync, fn, mdl, 0, 0, stm, mdl, stm, flag, timeout);
}

EXPORT rtError_t rtModelExecuteSync(rtModel_t mdl, rtStream_t stm, uint32_t flag, int32_t timeout)
{
    typedef rtError_t (*fn)(rtModel_t, rtStream_t, uint32_t, int32_t);
    FAST_PATH(rtModelExecuteSync, fn, mdl, stm, flag, timeout);
    return rtModelExecuteSync_bracketed(mdl, stm, flag, timeout);
}

static __attribute__((noinline)) rtError_t
rtsModelExecute_bracketed(rtModel_t mdl, int32_t timeout)
{
    typedef rtError_t (*fn)(rtModel_t, int32_t);
    fn real = (fn)real_get(VNPU_SYM_rtsModelExecute);
    if (!real) {
        vnpu_compute_missing_symbol(VNPU_SYM_rtsModelExecute);
        return FEATURE_NOT_SUPPORT;
    }
    /* aclmdlRIExecute: the model runs on its own stream and the call waits; one key per model */
    struct vnpu_launch l;
    vnpu_compute_before_sync(&l, VNPU_SYM_rtsModelExecute, vnpu_kernel_key(VNPU_SYM_rtsModelExecute, mdl, 0, 0));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rtError_t rc = real(mdl, timeout);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    vnpu_compute_after_sync(&l, rc, (int64_t)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
    return rc;
}

EXPORT rtError_t rtsModelExecute(rtModel_t mdl, int32_t timeout)
{
    typedef rtError_t (*fn)(rtModel_t, int32_t);
    FAST_PATH(rtsModelExecute, fn, mdl, timeout);
    return rtsModelExecute_bracketed(mdl, timeout);
}

/* ---------- streams whose launches are recorded into a model ---------- */
static void *resolve_cached(void **slot, const char *name)
{
    void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!p) {
        p = vnpu_rt_resolve(name);
        __atomic_store_n(slot, p, __ATOMIC_RELEASE);
    }
    return p;
}

EXPORT rtError_t rtModelBindStream(rtModel_t mdl, rtStream_t stm, uint32_t flag)
{
    static void *slot;
    rtError_t (*real)(rtModel_t, rtStream_t, uint32_t) =
        (rtError_t(*)(rtModel_t, rtStream_t, uint32_t))resolve_cached(&slot, "rtModelBindStream");
    if (!real)
        return FEATURE_NOT_SUPPORT;
    rtError_t rc = real(mdl, stm, flag);
    if (rc == 0)
        vnpu_compute_stream_special(stm, mdl, 1);
    return rc;
}

EXPORT rtError_t rtModelUnbindStream(rtModel_t mdl, rtStream_t stm)
{
    static void *slot;
    rtError_t (*real)(rtModel_t, rtStream_t) = (rtError_t(*)(rtModel_t, rtStream_t))resolve_cached(&slot, "rtModelUnbindStream");
    if (!real)
        return FEATURE_NOT_SUPPORT;
    rtError_t rc = real(mdl, stm);
    if (rc == 0)
        vnpu_compute_stream_special(stm, mdl, 0);
    return rc;
}

EXPORT rtError_t rtStreamBeginCapture(rtStream_t stm, const rtStreamCaptureMode mode)
{
    static void *slot;
    rtError_t (*real)(rtStream_t, rtStreamCaptureMode) =
        (rtError_t(*)(rtStream_t, rtStreamCaptureMode))resolve_cached(&slot, "rtStreamBeginCapture");
    if (!real)
        return FEATURE_NOT_SUPPORT;
    rtError_t rc = real(stm, mode);
    if (rc == 0)
        vnpu_compute_stream_special(stm, NULL, 1);
    return rc;
}

EXPORT rtError_t rtStreamEndCapture(rtStream_t stm, rtModel_t *captureMdl)
{
    static void *slot;
    rtError_t (*real)(rtStream_t, rtModel_t *) = (rtError_t(*)(rtStream_t, rtModel_t *))resolve_cached(&slot, "rtStreamEndCapture");
    if (!real)
        return FEATURE_NOT_SUPPORT;
    rtError_t rc = real(stm, captureMdl);
    vnpu_compute_stream_special(stm, NULL, 0);
    return rc;
}

/* The runtime unbinds a destroyed model's streams, and a destroyed stream's address may be reused
 * by a new, ordinary stream: neither may stay exempt from throttling. */
EXPORT rtError_t rtModelDestroy(rtModel_t mdl)
{
    static void *slot;
    rtError_t (*real)(rtModel_t) = (rtError_t(*)(rtModel_t))resolve_cached(&slot, "rtModelDestroy");
    if (!real)
        return FEATURE_NOT_SUPPORT;
    rtError_t rc = real(mdl);
    if (rc == 0)
        vnpu_compute_forget(NULL, mdl);
    return rc;
}

EXPORT rtError_t rtStreamDestroy(rtStream_t stm)
{
    static void *slot;
    rtError_t (*real)(rtStream_t) = (rtError_t(*)(rtStream_t))resolve_cached(&slot, "rtStreamDestroy");
    if (!real)
        return FEATURE_NOT_SUPPORT;
    rtError_t rc = real(stm);
    if (rc == 0)
        vnpu_compute_forget(stm, NULL);
    return rc;
}

/* A stream handle the runtime hands out is a new stream: not bound, not captured, perhaps of another
 * device than a destroyed stream at the same address. Forgotten here too because a stream can go
 * with a context the limiter does not connect it with: CANN binds a stream of any context to a model
 * of the current one, and frees it with its own context (ctx-cross-bound, 99.99 % under a 10 % cap). */
EXPORT rtError_t rtStreamCreate(rtStream_t *stm, int32_t priority)
{
    static void *slot;
    rtError_t (*real)(rtStream_t *, int32_t) = (rtError_t(*)(rtStream_t *, int32_t))resolve_cached(&slot, "rtStreamCreate");
    if (!real)
        return FEATURE_NOT_SUPPORT;
    rtError_t rc = real(stm, priority);
    if (rc == 0 && stm && *stm)
        vnpu_compute_forget(*stm, NULL);
    return rc;
}

/* A destroyed context takes the streams and models it owns with it, with no rtStreamDestroy or
 * rtModelDestroy call (docs/compute-registry.md, "Streams, contexts and devices"). */
static rtError_t ctx_destroy(void **slot, const char *name, rtContext_t ctx)
{
    rtError_t (*real)(rtContext_t) = (rtError_t(*)(rtContext_t))resolve_cached(slot, name);
    if (!real)
        return FEATURE_NOT_SUPPORT;
    if (ctx)
        vnpu_compute_context_going(ctx);
    rtError_t rc = real(ctx);
    if (rc == 0 && ctx)
        vnpu_compute_context_gone(ctx, -1);
    return rc;
}

EXPORT rtError_t rtCtxDestroy(rtContext_t ctx)
{
    static void *slot;
    return ctx_destroy(&slot, "rtCtxDestroy", ctx);
}

EXPORT rtError_t rtCtxDestroyEx(rtContext_t ctx)
{
    static void *slot;
    return ctx_destroy(&slot, "rtCtxDestroyEx", ctx);
}

EXPORT rtError_t rtsCtxDestroy(rtContext_t ctx)
{
    static void *slot;
    return ctx_destroy(&slot, "rtsCtxDestroy", ctx);
}
