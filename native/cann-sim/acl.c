/*
 * Simulated libascendcl.so: every entry point is a thin layer over libruntime.so, reached through the
 * PLT (this library is linked with -lruntime and not -Bsymbolic), so that a limiter preloaded at the
 * rt* level sees the calls ACL makes, exactly as with the real ACL -> runtime layering.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "cann_sim/cann_sim.h"
#include "runtime/rt.h"

#define ACL_ALIGN 32U
#define ACL_PADDING 32U
#define APP_MODULE_ID 33U /* moduleId passed for application allocations (informational only) */
#define MAX_MODELS 1024U

struct acl_state {
    pthread_mutex_t lock;
    int initialized;
    rtModel_t models[MAX_MODELS]; /* index = model ID - 1 */
};

static struct acl_state acl = {.lock = PTHREAD_MUTEX_INITIALIZER};

aclError aclInit(const char *configPath) {
    (void)configPath;
    pthread_mutex_lock(&acl.lock);
    aclError rc = acl.initialized ? ACL_ERROR_REPEAT_INITIALIZE : ACL_SUCCESS;
    acl.initialized = 1;
    pthread_mutex_unlock(&acl.lock);
    return rc;
}

aclError aclFinalize(void) {
    pthread_mutex_lock(&acl.lock);
    aclError rc = acl.initialized ? ACL_SUCCESS : ACL_ERROR_UNINITIALIZE;
    acl.initialized = 0;
    pthread_mutex_unlock(&acl.lock);
    return rc;
}

aclError aclrtSetDevice(int32_t deviceId) { return rtSetDevice(deviceId); }
aclError aclrtGetDevice(int32_t *deviceId) { return deviceId == NULL ? ACL_ERROR_INVALID_PARAM : rtGetDevice(deviceId); }
aclError aclrtResetDevice(int32_t deviceId) { return rtDeviceReset(deviceId); }
aclError aclrtResetDeviceForce(int32_t deviceId) { return rtDeviceResetForce(deviceId); }
aclError aclrtSynchronizeDevice(void) { return rtDeviceSynchronize(); }

aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId) {
    return context == NULL ? ACL_ERROR_INVALID_PARAM : rtCtxCreateEx(context, RT_CTX_NORMAL_MODE, deviceId);
}

aclError aclrtDestroyContext(aclrtContext context) {
    return context == NULL ? ACL_ERROR_INVALID_PARAM : rtCtxDestroyEx(context);
}

aclError aclrtSetCurrentContext(aclrtContext context) {
    return context == NULL ? ACL_ERROR_INVALID_PARAM : rtCtxSetCurrent(context);
}

aclError aclrtGetCurrentContext(aclrtContext *context) {
    return context == NULL ? ACL_ERROR_INVALID_PARAM : rtCtxGetCurrent(context);
}

aclError aclrtGetDeviceCount(uint32_t *count) {
    if (count == NULL) return ACL_ERROR_INVALID_PARAM;
    int32_t n = 0;
    aclError rc = rtGetDeviceCount(&n);
    if (rc == ACL_SUCCESS) *count = (uint32_t)n;
    return rc;
}

/* Page policy bits ACL adds to RT_MEMORY_DEFAULT for each aclrtMemMallocPolicy. */
static rtMemType_t policy_flags(aclrtMemMallocPolicy policy) {
    switch (policy) {
    case ACL_MEM_MALLOC_HUGE_FIRST: return RT_MEMORY_POLICY_HUGE_PAGE_FIRST;
    case ACL_MEM_MALLOC_HUGE_ONLY: return RT_MEMORY_POLICY_HUGE_PAGE_ONLY;
    case ACL_MEM_MALLOC_NORMAL_ONLY: return RT_MEMORY_POLICY_DEFAULT_PAGE_ONLY;
    case ACL_MEM_MALLOC_HUGE_FIRST_P2P: return RT_MEMORY_POLICY_HUGE_PAGE_FIRST_P2P;
    case ACL_MEM_MALLOC_HUGE_ONLY_P2P: return RT_MEMORY_POLICY_HUGE_PAGE_ONLY_P2P;
    case ACL_MEM_MALLOC_NORMAL_ONLY_P2P: return RT_MEMORY_POLICY_DEFAULT_PAGE_ONLY_P2P;
    case ACL_MEM_MALLOC_HUGE1G_ONLY: return RT_MEMORY_POLICY_HUGE1G_PAGE_ONLY;
    case ACL_MEM_MALLOC_HUGE1G_ONLY_P2P: return RT_MEMORY_POLICY_HUGE1G_PAGE_ONLY_P2P;
    default: return RT_MEMORY_DEFAULT;
    }
}

/* ACL rounds to 32 bytes and, unless asked not to, adds 32 bytes of padding: the runtime (and any
 * rt-level hook) sees the padded size. */
static aclError acl_malloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy, int padding, int cached) {
    if (devPtr == NULL || size == 0) return ACL_ERROR_INVALID_PARAM;
    int huge1g = policy == ACL_MEM_MALLOC_HUGE1G_ONLY || policy == ACL_MEM_MALLOC_HUGE1G_ONLY_P2P;
    size_t append = ACL_ALIGN + (padding && !huge1g ? ACL_PADDING : 0);
    if (size + append < size) return ACL_ERROR_INVALID_PARAM;
    size_t aligned = (size + append - 1) / ACL_ALIGN * ACL_ALIGN;
    rtMemType_t flags = RT_MEMORY_DEFAULT | policy_flags(policy);
    return cached ? rtMallocCached(devPtr, aligned, flags, APP_MODULE_ID)
                  : rtMalloc(devPtr, aligned, flags, APP_MODULE_ID);
}

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
    return acl_malloc(devPtr, size, policy, 1, 0);
}

aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
    return acl_malloc(devPtr, size, policy, 0, 0);
}

aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
    return acl_malloc(devPtr, size, policy, 1, 1);
}

aclError aclrtFree(void *devPtr) { return devPtr == NULL ? ACL_ERROR_INVALID_PARAM : rtFree(devPtr); }

aclError aclrtMallocHost(void **hostPtr, size_t size) {
    if (hostPtr == NULL || size == 0) return ACL_ERROR_INVALID_PARAM;
    return rtMallocHost(hostPtr, size, APP_MODULE_ID);
}

aclError aclrtFreeHost(void *hostPtr) { return hostPtr == NULL ? ACL_ERROR_INVALID_PARAM : rtFreeHost(hostPtr); }

aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total) {
    if (free == NULL || total == NULL) return ACL_ERROR_INVALID_PARAM;
    return rtMemGetInfoEx((rtMemInfoType_t)attr, free, total);
}

/* ---- virtual memory management (torch_npu expandable segments) ---- */

aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr, uint64_t flags) {
    if (virPtr == NULL || size == 0) return ACL_ERROR_INVALID_PARAM;
    return rtReserveMemAddress(virPtr, size, alignment, expectPtr, flags);
}

aclError aclrtReleaseMemAddress(void *virPtr) {
    return virPtr == NULL ? ACL_ERROR_INVALID_PARAM : rtReleaseMemAddress(virPtr);
}

static int is_huge(aclrtMemAttr a) {
    return a == ACL_HBM_MEM_HUGE || a == ACL_DDR_MEM_HUGE || a == ACL_HBM_MEM_P2P_HUGE || a == ACL_DDR_MEM_P2P_HUGE;
}

/* Same checks and prop translation as ACL: location type becomes `side`, location id `devid`. */
static aclError to_rt_prop(const aclrtPhysicalMemProp *prop, rtDrvMemProp_t *rt) {
    if (prop->handleType != ACL_MEM_HANDLE_TYPE_NONE || prop->allocationType != ACL_MEM_ALLOCATION_TYPE_PINNED ||
        prop->location.type == ACL_MEM_LOCATION_TYPE_UNREGISTERED || prop->location.type == ACL_MEM_LOCATION_TYPE_MANAGED)
        return ACL_ERROR_INVALID_PARAM;
    int ddr = prop->memAttr == ACL_DDR_MEM_HUGE || prop->memAttr == ACL_DDR_MEM_NORMAL ||
              prop->memAttr == ACL_DDR_MEM_P2P_HUGE || prop->memAttr == ACL_DDR_MEM_P2P_NORMAL;
    if (prop->location.type == ACL_MEM_LOCATION_TYPE_DEVICE && ddr) return ACL_ERROR_INVALID_PARAM;
    memset(rt, 0, sizeof(*rt));
    rt->side = (uint32_t)prop->location.type;
    rt->devid = prop->location.id;
    rt->module_id = APP_MODULE_ID;
    rt->pg_type = prop->memAttr == ACL_HBM_MEM_HUGE1G || prop->memAttr == ACL_HBM_MEM_P2P_HUGE1G ? 2U
                  : is_huge(prop->memAttr)                                                       ? 1U
                                                                                                 : 0U;
    rt->reserve = prop->reserve;
    return ACL_SUCCESS;
}

aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size, const aclrtPhysicalMemProp *prop, uint64_t flags) {
    if (handle == NULL || prop == NULL || size == 0 || flags != 0) return ACL_ERROR_INVALID_PARAM;
    rtDrvMemProp_t rt;
    aclError rc = to_rt_prop(prop, &rt);
    return rc != ACL_SUCCESS ? rc : rtMallocPhysical(handle, size, &rt, flags);
}

aclError aclrtFreePhysical(aclrtDrvMemHandle handle) {
    return handle == NULL ? ACL_ERROR_INVALID_PARAM : rtFreePhysical(handle);
}

aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, uint64_t flags) {
    if (virPtr == NULL || handle == NULL || size == 0 || flags != 0) return ACL_ERROR_INVALID_PARAM;
    return rtMapMem(virPtr, size, offset, handle, flags);
}

aclError aclrtUnmapMem(void *virPtr) { return virPtr == NULL ? ACL_ERROR_INVALID_PARAM : rtUnmapMem(virPtr); }

aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop, aclrtMemGranularityOptions option,
                                          size_t *granularity) {
    if (prop == NULL || granularity == NULL || option == ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF)
        return ACL_ERROR_INVALID_PARAM;
    rtDrvMemProp_t rt;
    aclError rc = to_rt_prop(prop, &rt);
    return rc != ACL_SUCCESS ? rc : rtMemGetAllocationGranularity(&rt, (rtDrvMemGranularityOptions)option, granularity);
}

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind) {
    if (dst == NULL || src == NULL) return ACL_ERROR_INVALID_PARAM;
    return rtMemcpy(dst, destMax, src, count, (rtMemcpyKind_t)kind);
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count) {
    if (devPtr == NULL) return ACL_ERROR_INVALID_PARAM;
    return rtMemset(devPtr, maxCount, (uint32_t)value, count);
}

aclError aclrtCreateStream(aclrtStream *stream) {
    return stream == NULL ? ACL_ERROR_INVALID_PARAM : rtStreamCreate(stream, 0);
}

aclError aclrtDestroyStream(aclrtStream stream) {
    return stream == NULL ? ACL_ERROR_INVALID_PARAM : rtStreamDestroy(stream);
}

aclError aclrtSynchronizeStream(aclrtStream stream) { return rtStreamSynchronize(stream); }

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
    return timeout < -1 ? ACL_ERROR_INVALID_PARAM : rtStreamSynchronizeWithTimeout(stream, timeout);
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
    return event == NULL ? ACL_ERROR_INVALID_PARAM : rtStreamWaitEvent(stream, event);
}

aclError aclrtCreateEvent(aclrtEvent *event) { return event == NULL ? ACL_ERROR_INVALID_PARAM : rtEventCreate(event); }

aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag) {
    return event == NULL ? ACL_ERROR_INVALID_PARAM : rtEventCreateWithFlag(event, flag);
}

aclError aclrtDestroyEvent(aclrtEvent event) { return event == NULL ? ACL_ERROR_INVALID_PARAM : rtEventDestroy(event); }

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
    return event == NULL ? ACL_ERROR_INVALID_PARAM : rtEventRecord(event, stream);
}

aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status) {
    if (event == NULL || status == NULL) return ACL_ERROR_INVALID_PARAM;
    rtEventStatus_t st;
    aclError rc = rtEventQueryStatus(event, &st);
    if (rc == ACL_SUCCESS)
        *status = st == RT_EVENT_RECORDED ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    return rc;
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
    return event == NULL ? ACL_ERROR_INVALID_PARAM : rtEventSynchronize(event);
}

aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent) {
    if (ms == NULL || startEvent == NULL || endEvent == NULL) return ACL_ERROR_INVALID_PARAM;
    return rtEventElapsedTime(ms, startEvent, endEvent);
}

aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData, size_t argsSize,
                           aclrtStream stream) {
    if (funcHandle == NULL || argsData == NULL) return ACL_ERROR_INVALID_PARAM;
    rtArgsEx_t info;
    memset(&info, 0, sizeof(info));
    info.args = (void *)(uintptr_t)argsData;
    info.argsSize = (uint32_t)argsSize;
    info.isNoNeedH2DCopy = 1;
    return rtLaunchKernelByFuncHandleV3(funcHandle, numBlocks, &info, stream, NULL);
}

aclError aclrtLaunchKernelWithArgsArray(void *func, uint32_t numBlocks, aclrtStream stream,
                                        aclrtLaunchKernelCfg *cfg, void **args) {
    if (func == NULL || args == NULL) return ACL_ERROR_INVALID_PARAM;
    return rtLaunchKernelWithArgsArray(func, numBlocks, stream, (rtKernelLaunchCfg_t *)(void *)cfg, args);
}

/* ---- graph capture ---- */

aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode) {
    return rtStreamBeginCapture(stream, (rtStreamCaptureMode)mode);
}

aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status, aclmdlRI *modelRI) {
    if (status == NULL) return ACL_ERROR_INVALID_PARAM;
    rtStreamCaptureStatus st = RT_STREAM_CAPTURE_STATUS_NONE;
    aclError rc = rtStreamGetCaptureInfo(stream, &st, modelRI);
    if (rc == ACL_SUCCESS) *status = (aclmdlRICaptureStatus)st;
    return rc;
}

aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI) {
    return modelRI == NULL ? ACL_ERROR_INVALID_PARAM : rtStreamEndCapture(stream, modelRI);
}

aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream) {
    return modelRI == NULL ? ACL_ERROR_INVALID_PARAM : rtModelExecute(modelRI, stream, 0);
}

aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout) {
    return modelRI == NULL ? ACL_ERROR_INVALID_PARAM : rtsModelExecute(modelRI, timeout);
}

aclError aclmdlRIDestroy(aclmdlRI modelRI) { return modelRI == NULL ? ACL_ERROR_INVALID_PARAM : rtModelDestroy(modelRI); }

/* ---- models ---- */

struct aclmdlDataset {
    int reserved;
};

aclmdlDataset *aclmdlCreateDataset(void) { return calloc(1, sizeof(aclmdlDataset)); }

aclError aclmdlDestroyDataset(const aclmdlDataset *dataset) {
    if (dataset == NULL) return ACL_ERROR_INVALID_PARAM;
    free((void *)(uintptr_t)dataset);
    return ACL_SUCCESS;
}

static const char KERNEL_STUB[] = "vnpu-sim-model-task";

/* Builds the runtime model the way GE does: tasks launched on a stream bound to the model. */
aclError aclmdlLoadFromMem(const void *model, size_t modelSize, uint32_t *modelId) {
    if (model == NULL || modelId == NULL) return ACL_ERROR_INVALID_PARAM;
    struct vnpu_sim_model_blob blob;
    if (modelSize < sizeof(blob)) return ACL_ERROR_MODEL_SIZE_INVALID;
    memcpy(&blob, model, sizeof(blob));
    if (blob.magic != VNPU_SIM_MODEL_MAGIC || blob.kernels == 0 || blob.kernel_ns > VNPU_SIM_MAX_KERNEL_NS)
        return ACL_ERROR_PARSE_MODEL;
    rtModel_t mdl = NULL;
    rtStream_t stm = NULL;
    aclError rc = rtModelCreate(&mdl, 0);
    if (rc == ACL_SUCCESS) rc = rtStreamCreate(&stm, 0);
    if (rc == ACL_SUCCESS) rc = rtModelBindStream(mdl, stm, 0);
    struct vnpu_sim_kernel_args k = {VNPU_SIM_KERNEL_MAGIC, blob.kernel_ns};
    for (uint32_t i = 0; rc == ACL_SUCCESS && i < blob.kernels; i++)
        rc = rtKernelLaunch(KERNEL_STUB, 1, &k, sizeof(k), NULL, stm);
    if (rc == ACL_SUCCESS) rc = rtModelUnbindStream(mdl, stm);
    if (stm != NULL) rtStreamDestroy(stm);
    if (rc == ACL_SUCCESS) rc = rtModelLoadComplete(mdl);
    if (rc == ACL_SUCCESS) {
        pthread_mutex_lock(&acl.lock);
        rc = ACL_ERROR_BAD_ALLOC;
        for (uint32_t i = 0; i < MAX_MODELS; i++) {
            if (acl.models[i] == NULL) {
                acl.models[i] = mdl;
                *modelId = i + 1;
                rc = ACL_SUCCESS;
                break;
            }
        }
        pthread_mutex_unlock(&acl.lock);
    }
    if (rc != ACL_SUCCESS && mdl != NULL) rtModelDestroy(mdl);
    return rc;
}

static rtModel_t model_of(uint32_t modelId) {
    if (modelId == 0 || modelId > MAX_MODELS) return NULL;
    pthread_mutex_lock(&acl.lock);
    rtModel_t m = acl.models[modelId - 1];
    pthread_mutex_unlock(&acl.lock);
    return m;
}

aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset *input, aclmdlDataset *output,
                            aclrtStream stream) {
    if (input == NULL || output == NULL) return ACL_ERROR_INVALID_PARAM;
    rtModel_t m = model_of(modelId);
    if (m == NULL) return ACL_ERROR_INVALID_MODEL_ID;
    return rtModelExecute(m, stream, 0);
}

aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset *input, aclmdlDataset *output) {
    if (input == NULL || output == NULL) return ACL_ERROR_INVALID_PARAM;
    rtModel_t m = model_of(modelId);
    if (m == NULL) return ACL_ERROR_INVALID_MODEL_ID;
    rtStream_t stm = NULL;
    aclError rc = rtStreamCreate(&stm, 0);
    if (rc != ACL_SUCCESS) return rc;
    rc = rtModelExecute(m, stm, 0);
    if (rc == ACL_SUCCESS) rc = rtStreamSynchronize(stm);
    rtStreamDestroy(stm);
    return rc;
}

aclError aclmdlUnload(uint32_t modelId) {
    if (modelId == 0 || modelId > MAX_MODELS) return ACL_ERROR_INVALID_MODEL_ID;
    pthread_mutex_lock(&acl.lock);
    rtModel_t m = acl.models[modelId - 1];
    acl.models[modelId - 1] = NULL;
    pthread_mutex_unlock(&acl.lock);
    if (m == NULL) return ACL_ERROR_INVALID_MODEL_ID;
    return rtModelDestroy(m);
}
