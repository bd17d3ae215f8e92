/*
 * The subset of the CANN runtime API (libruntime.so, "rt*" / "rts*" symbols) that vnpu uses: the
 * entry points a limiter hooks (limiter-design.md section 5.3) and those a workload or the limiter
 * calls (devices, streams, events, models).
 *
 * Written from the public CANN runtime documentation and headers (hicann/runtime, pkg_inc/runtime):
 * same symbol names, C prototypes, constants, error codes and struct layouts (LP64), so code built
 * against this header runs unchanged against a real libruntime.so. Only what vnpu touches is
 * declared; structs whose fields nobody reads here are left incomplete (passed by pointer only).
 */
#ifndef VNPU_CANN_RUNTIME_RT_H
#define VNPU_CANN_RUNTIME_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t rtError_t;
typedef char char_t;
typedef float float32_t;

typedef void *rtStream_t;
typedef void *rtEvent_t;
typedef void *rtModel_t;
typedef void *rtContext_t;
typedef void *rtFuncHandle;
typedef void *rtLaunchArgsHandle;
typedef void *rtArgsHandle;
typedef void *rtBinHandle;
typedef void *rtMemHandle;
typedef void *rtDrvMemHandle;

/* ---- error codes (external values, as returned by the public rt* entry points) ---- */
#define RT_ERROR_NONE 0
#define ACL_RT_SUCCESS 0
#define ACL_ERROR_RT_PARAM_INVALID 107000
#define ACL_ERROR_RT_INVALID_DEVICEID 107001
#define ACL_ERROR_RT_CONTEXT_NULL 107002
#define ACL_ERROR_RT_STREAM_CONTEXT 107003
#define ACL_ERROR_RT_MODEL_CONTEXT 107004
#define ACL_ERROR_RT_STREAM_MODEL 107005
#define ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID 107006
#define ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL 107007
#define ACL_ERROR_RT_INVALID_MEMORY_TYPE 107016
#define ACL_ERROR_RT_INVALID_HANDLE 107017
#define ACL_ERROR_RT_WAIT_TIMEOUT 107019
#define ACL_ERROR_RT_STREAM_CAPTURED 107027
#define ACL_ERROR_RT_STREAM_NOT_CAPTURED 107029
#define ACL_ERROR_RT_FEATURE_NOT_SUPPORT 207000
#define ACL_ERROR_RT_MEMORY_ALLOCATION 207001 /* out of device memory (only) */
#define ACL_ERROR_RT_MEMORY_FREE 207002
#define ACL_ERROR_RT_NO_DEVICE 207004
#define ACL_ERROR_RT_RESOURCE_ALLOC_FAIL 207005
#define ACL_ERROR_RT_NO_EVENT_RESOURCE 207007
#define ACL_ERROR_RT_NO_STREAM_RESOURCE 207008
#define ACL_ERROR_RT_NO_MODEL_RESOURCE 207010
#define ACL_ERROR_RT_INTERNAL_ERROR 507000
#define ACL_ERROR_RT_STREAM_NOT_COMPLETE 507004
#define ACL_ERROR_RT_EVENT_NOT_COMPLETE 507006
#define ACL_ERROR_RT_MODEL_EXECUTE 507011
#define ACL_ERROR_RT_STREAM_SYNC_TIMEOUT 507046
#define ACL_ERROR_RT_EVENT_SYNC_TIMEOUT 507047

/* ---- memory ---- */
typedef uint32_t rtMemType_t; /* kind (low bits) | page policy | attribute */

#define RT_MEMORY_DEFAULT 0x0U
#define RT_MEMORY_HBM 0x2U
#define RT_MEMORY_RDMA_HBM 0x3U
#define RT_MEMORY_DDR 0x4U
#define RT_MEMORY_SPM 0x8U
#define RT_MEMORY_P2P_HBM 0x10U
#define RT_MEMORY_P2P_DDR 0x11U
#define RT_MEMORY_DDR_NC 0x20U
#define RT_MEMORY_TS 0x40U
#define RT_MEMORY_HOST 0x81U
#define RT_MEMORY_SVM 0x90U
#define RT_MEMORY_HOST_SVM 0x90U

#define RT_MEMORY_POLICY_NONE 0x0U
#define RT_MEMORY_POLICY_HUGE_PAGE_FIRST 0x400U
#define RT_MEMORY_POLICY_HUGE_PAGE_ONLY 0x800U
#define RT_MEMORY_POLICY_DEFAULT_PAGE_ONLY 0x1000U
#define RT_MEMORY_POLICY_HUGE_PAGE_FIRST_P2P 0x2000U
#define RT_MEMORY_POLICY_HUGE_PAGE_ONLY_P2P 0x4000U
#define RT_MEMORY_POLICY_DEFAULT_PAGE_ONLY_P2P 0x8000U
#define RT_MEMORY_POLICY_HUGE1G_PAGE_ONLY 0x10000U
#define RT_MEMORY_POLICY_HUGE1G_PAGE_ONLY_P2P 0x20000U

/* `type` of rtMemGetInfoByType */
#define RT_MEM_INFO_TYPE_DDR_SIZE 0x1U
#define RT_MEM_INFO_TYPE_HBM_SIZE 0x2U
#define RT_MEM_INFO_TYPE_DDR_P2P_SIZE 0x3U
#define RT_MEM_INFO_TYPE_HBM_P2P_SIZE 0x4U

typedef enum tagRtMemInfoType {
    RT_MEMORYINFO_DDR,
    RT_MEMORYINFO_HBM,
    RT_MEMORYINFO_DDR_HUGE,
    RT_MEMORYINFO_DDR_NORMAL,
    RT_MEMORYINFO_HBM_HUGE,
    RT_MEMORYINFO_HBM_NORMAL,
    RT_MEMORYINFO_DDR_P2P_HUGE,
    RT_MEMORYINFO_DDR_P2P_NORMAL,
    RT_MEMORYINFO_HBM_P2P_HUGE,
    RT_MEMORYINFO_HBM_P2P_NORMAL,
    RT_MEMORYINFO_HBM_HUGE1G,
    RT_MEMORYINFO_HBM_P2P_HUGE1G,
    RT_MEMORYINFO_NORMAL,
    RT_MEMORYINFO_HUGE,
    RT_MEMORYINFO_HUGE1G,
    RT_MEMORYINFO_P2P_NORMAL,
    RT_MEMORYINFO_P2P_HUGE,
    RT_MEMORYINFO_P2P_HUGE1G,
} rtMemInfoType_t;
typedef rtMemInfoType_t rtMemInfoType;

typedef enum {
    RT_MEM_MALLOC_HUGE_FIRST,
    RT_MEM_MALLOC_HUGE_ONLY,
    RT_MEM_MALLOC_NORMAL_ONLY,
    RT_MEM_MALLOC_HUGE_FIRST_P2P,
    RT_MEM_MALLOC_HUGE_ONLY_P2P,
    RT_MEM_MALLOC_NORMAL_ONLY_P2P,
    RT_MEM_MALLOC_HUGE1G_ONLY,
    RT_MEM_MALLOC_HUGE1G_ONLY_P2P,
    RT_MEM_TYPE_LOW_BAND_WIDTH = 0x0100,
    RT_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000,
    RT_MEM_ACCESS_USER_SPACE_READONLY = 0x100000,
} rtMallocPolicy;

typedef enum {
    RT_MEM_ADVISE_NONE = 0,
    RT_MEM_ADVISE_DVPP,
    RT_MEM_ADVISE_TS,
    RT_MEM_ADVISE_CACHED,
} rtMallocAdvise;

typedef enum {
    RT_MEM_MALLOC_ATTR_RSV = 0,
    RT_MEM_MALLOC_ATTR_MODULE_ID,
    RT_MEM_MALLOC_ATTR_DEVICE_ID,
    RT_MEM_MALLOC_ATTR_VA_FLAG,
    RT_MEM_MALLOC_ATTR_MAX
} rtMallocAttr;

typedef union {
    uint16_t moduleId;
    uint32_t deviceId;
    uint32_t vaFlag;
    uint8_t rsv[8];
} rtMallocAttrValue;

typedef struct {
    rtMallocAttr attr;
    rtMallocAttrValue value;
} rtMallocAttribute_t;

typedef struct {
    rtMallocAttribute_t *attrs;
    size_t numAttrs;
} rtMallocConfig_t;

typedef struct DrvMemProp {
    uint32_t side;
    uint32_t devid;
    uint32_t module_id;
    uint32_t pg_type;
    uint32_t mem_type;
    uint64_t reserve;
} rtDrvMemProp_t;

typedef struct {
    uint64_t total;
    uint64_t free;
    uint64_t hugeTotal;
    uint64_t hugeFree;
    uint64_t giantHugeTotal;
    uint64_t giantHugeFree;
} rtMemPhyInfo_t;

typedef struct {
    uint64_t **addr;
    uint32_t cnt;
    uint32_t memType;
    uint32_t flag;
} rtMemAddrInfo_t;

typedef struct {
    uint32_t nodeCnt;
    int32_t nodeId[64];
} rtMemNumaInfo_t;

typedef struct {
    char name[32];
} rtMemSvmGrpInfo_t;

typedef struct {
    uint64_t va;
    uint64_t size;
    uint32_t tokenId;
    uint32_t tokenValue;
} rtMemUbTokenInfo_t;

typedef struct {
    union {
        rtMemPhyInfo_t phyInfo;
        rtMemAddrInfo_t addrInfo;
        rtMemNumaInfo_t numaInfo;
        rtMemSvmGrpInfo_t grpInfo;
        rtMemUbTokenInfo_t ubTokenInfo;
    };
} rtMemInfo_t;

#define RT_MEM_MODULE_NAME_LEN 32U
#define RT_MEM_USAGE_INFO_RSV 8U
typedef struct {
    char name[RT_MEM_MODULE_NAME_LEN];
    uint64_t curMemSize;
    uint64_t memPeakSize;
    size_t reserved[RT_MEM_USAGE_INFO_RSV];
} rtMemUsageInfo_t;

typedef enum tagRtMemcpyKind {
    RT_MEMCPY_HOST_TO_HOST = 0,
    RT_MEMCPY_HOST_TO_DEVICE,
    RT_MEMCPY_DEVICE_TO_HOST,
    RT_MEMCPY_DEVICE_TO_DEVICE,
    RT_MEMCPY_MANAGED,
    RT_MEMCPY_ADDR_DEVICE_TO_DEVICE,
    RT_MEMCPY_HOST_TO_DEVICE_EX,
    RT_MEMCPY_DEVICE_TO_HOST_EX,
    RT_MEMCPY_DEFAULT,
    RT_MEMCPY_RESERVED,
} rtMemcpyKind_t;

rtError_t rtMalloc(void **devPtr, uint64_t size, rtMemType_t type, const uint16_t moduleId);
rtError_t rtMallocCached(void **devPtr, uint64_t size, rtMemType_t type, const uint16_t moduleId);
rtError_t rtsMalloc(void **devPtr, uint64_t size, rtMallocPolicy policy, rtMallocAdvise advise,
                    rtMallocConfig_t *cfg);
rtError_t rtMemAlloc(void **devPtr, uint64_t size, rtMallocPolicy policy, rtMallocAdvise advise,
                     rtMallocConfig_t *cfg);
rtError_t rtDvppMalloc(void **devPtr, uint64_t size, const uint16_t moduleId);
rtError_t rtDvppMallocWithFlag(void **devPtr, uint64_t size, uint32_t flag, const uint16_t moduleId);
rtError_t rtMemAllocManaged(void **ptr, uint64_t size, uint32_t flag, const uint16_t moduleId);
rtError_t rtMallocPhysical(rtDrvMemHandle *handle, size_t size, rtDrvMemProp_t *prop, uint64_t flags);
rtError_t rtsMemMallocPhysical(rtMemHandle *handle, size_t size, rtMallocPolicy policy,
                               rtMallocConfig_t *cfg);

rtError_t rtFree(void *devPtr);
rtError_t rtFreeWithDevSync(void *devPtr);
rtError_t rtsFree(void *devPtr);
rtError_t rtDvppFree(void *devPtr);
rtError_t rtMemFreeManaged(void *ptr);
rtError_t rtFreePhysical(rtDrvMemHandle handle);
rtError_t rtsMemFreePhysical(rtMemHandle *handle);

/* Virtual memory management: VA reservations are not device memory; physical memory is charged when
 * created (rtMallocPhysical with side 1 = device), not when mapped. */
typedef enum {
    RT_MEM_ALLOC_GRANULARITY_MINIMUM,
    RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
    RT_MEM_ALLOC_GRANULARITY_INVALID,
} rtDrvMemGranularityOptions;

rtError_t rtReserveMemAddress(void **devPtr, size_t size, size_t alignment, void *devAddr, uint64_t flags);
rtError_t rtReleaseMemAddress(void *devPtr);
rtError_t rtMapMem(void *devPtr, size_t size, size_t offset, rtDrvMemHandle handle, uint64_t flags);
rtError_t rtUnmapMem(void *devPtr);
rtError_t rtMemGetAllocationGranularity(rtDrvMemProp_t *prop, rtDrvMemGranularityOptions option, size_t *granularity);

rtError_t rtMallocHost(void **hostPtr, uint64_t size, const uint16_t moduleId);
rtError_t rtFreeHost(void *hostPtr);

rtError_t rtMemGetInfoEx(rtMemInfoType_t memInfoType, size_t *freeSize, size_t *totalSize);
rtError_t rtMemGetInfo(size_t *freeSize, size_t *totalSize);
rtError_t rtsMemGetInfo(rtMemInfoType memInfoType, size_t *freeSize, size_t *totalSize);
rtError_t rtMemGetInfoByType(const int32_t devId, const rtMemType_t type, rtMemInfo_t *const info);
rtError_t rtGetMemUsageInfo(uint32_t deviceId, rtMemUsageInfo_t *memUsageInfo, size_t inputNum,
                            size_t *outputNum);

rtError_t rtMemcpy(void *dst, uint64_t destMax, const void *src, uint64_t cnt, rtMemcpyKind_t kind);
rtError_t rtMemcpyAsync(void *dst, uint64_t destMax, const void *src, uint64_t cnt, rtMemcpyKind_t kind,
                        rtStream_t stm);
rtError_t rtMemset(void *devPtr, uint64_t destMax, uint32_t val, uint64_t cnt);

/* ---- devices ---- */
rtError_t rtSetDevice(int32_t devId);
rtError_t rtGetDevice(int32_t *devId);
rtError_t rtGetDeviceCount(int32_t *cnt);
/* phy ID of the device the process numbers devIndex (after ASCEND_RT_VISIBLE_DEVICES) */
rtError_t rtGetDevicePhyIdByIndex(uint32_t devIndex, uint32_t *phyId);
/* rtSetDevice takes a per-process reference on the device; rtDeviceReset drops one and, at zero,
 * frees the process's streams, events and memory on it; rtDeviceResetForce frees them at once. */
rtError_t rtDeviceReset(int32_t devId);
rtError_t rtDeviceResetForce(int32_t devId);
rtError_t rtDeviceSynchronize(void);
rtError_t rtDeviceSynchronizeWithTimeout(int32_t timeout);

/* ---- contexts (one current context per thread; rtSetDevice makes the device's primary one current) ---- */
typedef enum tagCtxMode {
    RT_CTX_NORMAL_MODE = 0,
    RT_CTX_GEN_MODE = 1,
} rtCtxMode_t;

rtError_t rtCtxCreate(rtContext_t *createCtx, uint32_t flags, int32_t devId);
rtError_t rtCtxCreateEx(rtContext_t *createCtx, uint32_t flags, int32_t devId);
rtError_t rtCtxDestroy(rtContext_t destroyCtx);
rtError_t rtCtxDestroyEx(rtContext_t destroyCtx);
rtError_t rtsCtxDestroy(rtContext_t destroyCtx); /* the RTS layer's (deprecated), calls rtCtxDestroyEx */
rtError_t rtCtxSetCurrent(rtContext_t currentCtx);
rtError_t rtCtxGetCurrent(rtContext_t *currentCtx);
rtError_t rtCtxGetDevice(int32_t *devId);

/* ---- streams ---- */
typedef enum tagRtStreamCaptureStatus {
    RT_STREAM_CAPTURE_STATUS_NONE = 0,
    RT_STREAM_CAPTURE_STATUS_ACTIVE = 1,
    RT_STREAM_CAPTURE_STATUS_INVALIDATED = 2,
    RT_STREAM_CAPTURE_STATUS_MAX
} rtStreamCaptureStatus;

typedef enum tagRtStreamCaptureMode {
    RT_STREAM_CAPTURE_MODE_GLOBAL = 0,
    RT_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
    RT_STREAM_CAPTURE_MODE_RELAXED = 2,
    RT_STREAM_CAPTURE_MODE_MAX
} rtStreamCaptureMode;

rtError_t rtStreamCreate(rtStream_t *stm, int32_t priority);
rtError_t rtStreamDestroy(rtStream_t stm);
rtError_t rtStreamSynchronize(rtStream_t stm);
rtError_t rtStreamSynchronizeWithTimeout(rtStream_t stm, int32_t timeout); /* ms, -1 forever */
rtError_t rtStreamQuery(rtStream_t stm);
rtError_t rtStreamWaitEvent(rtStream_t stm, rtEvent_t evt);
rtError_t rtStreamBeginCapture(rtStream_t stm, const rtStreamCaptureMode mode);
rtError_t rtStreamEndCapture(rtStream_t stm, rtModel_t *captureMdl);
rtError_t rtStreamGetCaptureInfo(rtStream_t stm, rtStreamCaptureStatus *const status, rtModel_t *captureMdl);

/* ---- events ---- */
typedef enum rtEventStatus {
    RT_EVENT_INIT = 0,
    RT_EVENT_RECORDED = 1,
} rtEventStatus_t;

rtError_t rtEventCreate(rtEvent_t *evt);
rtError_t rtEventCreateWithFlag(rtEvent_t *evt, uint32_t flag);
rtError_t rtEventDestroy(rtEvent_t evt);
rtError_t rtEventRecord(rtEvent_t evt, rtStream_t stm);
rtError_t rtEventQuery(rtEvent_t evt);
rtError_t rtEventQueryStatus(rtEvent_t evt, rtEventStatus_t *status);
rtError_t rtEventSynchronize(rtEvent_t evt);
rtError_t rtEventElapsedTime(float32_t *timeInterval, rtEvent_t startEvent, rtEvent_t endEvent);
rtError_t rtEventGetTimeStamp(uint64_t *timeStamp, rtEvent_t evt);

/* ---- kernel launch ---- */
typedef struct rtHostInputInfo {
    uint32_t addrOffset;
    uint32_t dataOffset;
} rtHostInputInfo_t;

typedef struct tagRtArgsEx {
    void *args;                          /* host address of the argument block */
    rtHostInputInfo_t *hostInputInfoPtr;
    uint32_t argsSize;
    uint32_t tilingAddrOffset;
    uint32_t tilingDataOffset;
    uint16_t hostInputInfoNum;
    uint8_t hasTiling;
    uint8_t isNoNeedH2DCopy;
    uint8_t reserved[4];
} rtArgsEx_t;

typedef struct tagRtAicpuArgsEx {
    void *args;
    rtHostInputInfo_t *hostInputInfoPtr;
    rtHostInputInfo_t *kernelOffsetInfoPtr;
    uint32_t argsSize;
    uint16_t hostInputInfoNum;
    uint16_t kernelOffsetInfoNum;
    uint32_t soNameAddrOffset;
    uint32_t kernelNameAddrOffset;
    bool isNoNeedH2DCopy;
    uint16_t timeout;
    uint8_t reserved;
} rtAicpuArgsEx_t;

typedef struct {
    rtAicpuArgsEx_t baseArgs;
    size_t cpuParamHeadOffset;
    uint32_t rsv[4];
} rtCpuKernelArgs_t;

typedef struct rtKernelLaunchNames {
    const char_t *soName;
    const char_t *kernelName;
    const char_t *opName;
} rtKernelLaunchNames_t;

typedef struct {
    uint32_t addrOffset;
    uint32_t dataOffset;
} rtPlaceHolderInfo_t;

/* Passed by pointer only; vnpu never reads them. */
typedef struct tagRtSmCtrl rtSmDesc_t;
typedef struct tagRtTaskCfgInfo rtTaskCfgInfo_t;
typedef struct rtKernelLaunchCfgOpaque rtKernelLaunchCfg_t;

rtError_t rtKernelLaunch(const void *stubFunc, uint32_t numBlocks, void *args, uint32_t argsSize,
                         rtSmDesc_t *smDesc, rtStream_t stm);
rtError_t rtKernelLaunchWithFlag(const void *stubFunc, uint32_t numBlocks, rtArgsEx_t *argsInfo,
                                 rtSmDesc_t *smDesc, rtStream_t stm, uint32_t flags);
rtError_t rtKernelLaunchWithFlagV2(const void *stubFunc, uint32_t numBlocks, rtArgsEx_t *argsInfo,
                                   rtSmDesc_t *smDesc, rtStream_t stm, uint32_t flags,
                                   const rtTaskCfgInfo_t *cfgInfo);
rtError_t rtKernelLaunchWithHandle(void *hdl, const uint64_t tilingKey, uint32_t numBlocks,
                                   rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                   const void *kernelInfo);
rtError_t rtKernelLaunchWithHandleV2(void *hdl, const uint64_t tilingKey, uint32_t numBlocks,
                                     rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                     const rtTaskCfgInfo_t *cfgInfo);
rtError_t rtKernelLaunchEx(void *args, uint32_t argsSize, uint32_t flags, rtStream_t stm);
rtError_t rtKernelLaunchFwk(const char_t *opName, void *args, uint32_t argsSize, uint32_t flags,
                            rtStream_t rtStream);
rtError_t rtAicpuKernelLaunchWithFlag(const rtKernelLaunchNames_t *launchNames, uint32_t numBlocks,
                                      const rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                      uint32_t flags);
rtError_t rtAicpuKernelLaunchExWithArgs(const uint32_t kernelType, const char_t *const opName,
                                        const uint32_t numBlocks, const rtAicpuArgsEx_t *argsInfo,
                                        rtSmDesc_t *const smDesc, const rtStream_t stm,
                                        const uint32_t flags);
rtError_t rtCpuKernelLaunchWithFlag(const void *soName, const void *kernelName, uint32_t numBlocks,
                                    const rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                    uint32_t flags);
rtError_t rtVectorCoreKernelLaunch(const void *stubFunc, uint32_t numBlocks, rtArgsEx_t *argsInfo,
                                   rtSmDesc_t *smDesc, rtStream_t stm, uint32_t flags,
                                   const rtTaskCfgInfo_t *cfgInfo);
rtError_t rtVectorCoreKernelLaunchWithHandle(void *hdl, const uint64_t tilingKey, uint32_t numBlocks,
                                             rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                             const rtTaskCfgInfo_t *cfgInfo);
rtError_t rtLaunchKernelByFuncHandle(rtFuncHandle funcHandle, uint32_t numBlocks,
                                     rtLaunchArgsHandle argsHandle, rtStream_t stm);
rtError_t rtLaunchKernelByFuncHandleV2(rtFuncHandle funcHandle, uint32_t numBlocks,
                                       rtLaunchArgsHandle argsHandle, rtStream_t stm,
                                       const rtTaskCfgInfo_t *cfgInfo);
rtError_t rtLaunchKernelByFuncHandleV3(rtFuncHandle funcHandle, uint32_t numBlocks,
                                       const rtArgsEx_t *const argsInfo, rtStream_t stm,
                                       const rtTaskCfgInfo_t *const cfgInfo);
rtError_t rtsLaunchKernelWithConfig(rtFuncHandle funcHandle, uint32_t numBlocks, rtStream_t stm,
                                    rtKernelLaunchCfg_t *cfg, rtArgsHandle argsHandle, void *reserve);
rtError_t rtsLaunchKernelWithDevArgs(rtFuncHandle funcHandle, uint32_t numBlocks, rtStream_t stm,
                                     rtKernelLaunchCfg_t *cfg, const void *args, uint32_t argsSize,
                                     void *reserve);
rtError_t rtsLaunchKernelWithHostArgs(rtFuncHandle funcHandle, uint32_t numBlocks, rtStream_t stm,
                                      rtKernelLaunchCfg_t *cfg, void *hostArgs, uint32_t argsSize,
                                      rtPlaceHolderInfo_t *placeHolderArray, uint32_t placeHolderNum);
rtError_t rtsLaunchCpuKernel(const rtFuncHandle funcHandle, uint32_t numBlocks, rtStream_t stm,
                             const rtKernelLaunchCfg_t *cfg, rtCpuKernelArgs_t *argsInfo);
/* Target of aclrtLaunchKernelWithArgsArray (same argument list). */
rtError_t rtLaunchKernelWithArgsArray(void *func, uint32_t numBlocks, rtStream_t stm,
                                      rtKernelLaunchCfg_t *cfg, void **args);

/* ---- models ---- */
rtError_t rtModelCreate(rtModel_t *mdl, uint32_t flag);
rtError_t rtModelDestroy(rtModel_t mdl);
rtError_t rtModelBindStream(rtModel_t mdl, rtStream_t stm, uint32_t flag);
rtError_t rtModelUnbindStream(rtModel_t mdl, rtStream_t stm);
rtError_t rtModelLoadComplete(rtModel_t mdl);
rtError_t rtModelExecute(rtModel_t mdl, rtStream_t stm, uint32_t flag);
rtError_t rtModelExecuteSync(rtModel_t mdl, rtStream_t stm, uint32_t flag, int32_t timeout);
/* Target of aclmdlRIExecute: runs the model on its own stream and waits (timeout ms, -1 forever).
 * Not in the limiter's hook list of CANN 8.x symbols (limiter-design.md 5.3). */
rtError_t rtsModelExecute(rtModel_t mdl, int32_t timeout);

#ifdef __cplusplus
}
#endif

#endif
