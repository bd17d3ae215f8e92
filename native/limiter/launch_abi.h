/*
 * The slice of the CANN runtime ABI (libruntime.so, CANN 8.x) the compute limiter hooks or calls:
 * launch entry points of limiter-design.md 5.3, events, devices, model binding and capture. Declared
 * here so that the limiter builds without any CANN or simulator header and runs unchanged on a real
 * Ascend host. Argument structures are only passed through, never read, so they stay incomplete;
 * handles are void pointers as in the CANN headers.
 */
#ifndef VNPU_LIMITER_LAUNCH_ABI_H
#define VNPU_LIMITER_LAUNCH_ABI_H

#include <stdint.h>

typedef int32_t rtError_t;
typedef char char_t;
typedef void *rtStream_t;
typedef void *rtEvent_t;
typedef void *rtModel_t;
typedef void *rtContext_t;
typedef void *rtFuncHandle;
typedef void *rtLaunchArgsHandle;
typedef void *rtArgsHandle;

typedef struct tagRtArgsEx rtArgsEx_t;
typedef struct tagRtAicpuArgsEx rtAicpuArgsEx_t;
typedef struct rtKernelLaunchNames rtKernelLaunchNames_t;
typedef struct tagRtSmCtrl rtSmDesc_t;
typedef struct tagRtTaskCfgInfo rtTaskCfgInfo_t;
/* the CANN names of these three differ between releases; pointers to them are all alike */
typedef struct vnpu_rtKernelLaunchCfg rtKernelLaunchCfg_t;
typedef struct vnpu_rtCpuKernelArgs rtCpuKernelArgs_t;
typedef struct vnpu_rtPlaceHolderInfo rtPlaceHolderInfo_t;
typedef int rtStreamCaptureMode; /* enum tagRtStreamCaptureMode */

#define VNPU_ACL_ERROR_RT_FEATURE_NOT_SUPPORT_ 207000

#endif
