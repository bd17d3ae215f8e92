/*
 * The slice of the CANN runtime ABI (libruntime.so, CANN 8.x) the memory limiter hooks or calls,
 * declared here from limiter-design.md 5.3 so that the limiter builds without any CANN or simulator
 * header and runs unchanged on a real Ascend host. Types and layouts follow the CANN headers.
 */
#ifndef VNPU_LIMITER_CANN_ABI_H
#define VNPU_LIMITER_CANN_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef int32_t rtError_t;
typedef uint32_t rtMemType_t; /* kind in the low byte | page policy bits | attributes */
typedef void *rtDrvMemHandle;
typedef void *rtMemHandle;
typedef int rtMemInfoType_t;  /* enum tagRtMemInfoType */
typedef int rtMallocPolicy;   /* enum */
typedef int rtMallocAdvise;   /* enum */

#define VNPU_RT_ERROR_NONE 0
#define VNPU_RT_MEMORY_KIND_MASK 0xFFu
#define VNPU_RT_MEMORY_HOST 0x81u
#define VNPU_RT_MEMORY_SVM 0x90u

/* rtMemInfoType_t values that describe host-side DDR: passed through, never virtualised */
#define VNPU_RT_MEMORYINFO_DDR 0
#define VNPU_RT_MEMORYINFO_HBM 1
#define VNPU_RT_MEMORYINFO_DDR_HUGE 2
#define VNPU_RT_MEMORYINFO_DDR_NORMAL 3
#define VNPU_RT_MEMORYINFO_DDR_P2P_HUGE 6
#define VNPU_RT_MEMORYINFO_DDR_P2P_NORMAL 7

/* rtMemGetInfoByType type values */
#define VNPU_RT_MEM_INFO_TYPE_HBM_SIZE 0x2u
#define VNPU_RT_MEM_INFO_TYPE_HBM_P2P_SIZE 0x4u

#define VNPU_RT_MEM_MALLOC_ATTR_DEVICE_ID 2

typedef union {
    uint16_t moduleId;
    uint32_t deviceId;
    uint32_t vaFlag;
    uint8_t rsv[8];
} vnpu_rtMallocAttrValue;

typedef struct {
    int attr; /* rtMallocAttr */
    vnpu_rtMallocAttrValue value;
} vnpu_rtMallocAttribute_t;

typedef struct {
    vnpu_rtMallocAttribute_t *attrs;
    size_t numAttrs;
} rtMallocConfig_t;

typedef struct {
    uint32_t side;
    uint32_t devid;
    uint32_t module_id;
    uint32_t pg_type;
    uint32_t mem_type;
    uint64_t reserve;
} rtDrvMemProp_t;

typedef struct { /* first member of the rtMemInfo_t union */
    uint64_t total;
    uint64_t free;
    uint64_t hugeTotal;
    uint64_t hugeFree;
    uint64_t giantHugeTotal;
    uint64_t giantHugeFree;
} vnpu_rtMemPhyInfo_t;
typedef struct rtMemInfo rtMemInfo_t; /* opaque; phyInfo at offset 0 */

/* hooked: allocate */
rtError_t rtMalloc(void **devPtr, uint64_t size, rtMemType_t type, const uint16_t moduleId);
rtError_t rtMallocCached(void **devPtr, uint64_t size, rtMemType_t type, const uint16_t moduleId);
rtError_t rtsMalloc(void **devPtr, uint64_t size, rtMallocPolicy policy, rtMallocAdvise advise, rtMallocConfig_t *cfg);
rtError_t rtMemAlloc(void **devPtr, uint64_t size, rtMallocPolicy policy, rtMallocAdvise advise, rtMallocConfig_t *cfg);
rtError_t rtDvppMalloc(void **devPtr, uint64_t size, const uint16_t moduleId);
rtError_t rtDvppMallocWithFlag(void **devPtr, uint64_t size, uint32_t flag, const uint16_t moduleId);
rtError_t rtMemAllocManaged(void **ptr, uint64_t size, uint32_t flag, const uint16_t moduleId);
rtError_t rtMallocPhysical(rtDrvMemHandle *handle, size_t size, rtDrvMemProp_t *prop, uint64_t flags);
rtError_t rtsMemMallocPhysical(rtMemHandle *handle, size_t size, rtMallocPolicy policy, rtMallocConfig_t *cfg);
/* hooked: release */
rtError_t rtFree(void *devPtr);
rtError_t rtFreeWithDevSync(void *devPtr);
rtError_t rtsFree(void *devPtr);
rtError_t rtDvppFree(void *devPtr);
rtError_t rtMemFreeManaged(void *ptr);
rtError_t rtFreePhysical(rtDrvMemHandle handle);
rtError_t rtsMemFreePhysical(rtMemHandle *handle);
/* hooked: memory information */
rtError_t rtMemGetInfoEx(rtMemInfoType_t memInfoType, size_t *freeSize, size_t *totalSize);
rtError_t rtMemGetInfo(size_t *freeSize, size_t *totalSize);
rtError_t rtsMemGetInfo(rtMemInfoType_t memInfoType, size_t *freeSize, size_t *totalSize);
rtError_t rtMemGetInfoByType(const int32_t devId, const rtMemType_t type, rtMemInfo_t *const info);
/* called, not hooked */
rtError_t rtGetDevice(int32_t *devId);
rtError_t rtSetDevice(int32_t devId);
rtError_t rtDeviceReset(int32_t devId);
rtError_t rtDeviceResetForce(int32_t devId);
rtError_t rtGetDevicePhyIdByIndex(uint32_t devIndex, uint32_t *phyId);

#endif
