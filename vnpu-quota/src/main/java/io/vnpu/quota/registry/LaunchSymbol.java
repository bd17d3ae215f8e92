package io.vnpu.quota.registry;

/**
 * The CANN runtime launch entry points the limiter throttles (limiter-design.md 5.3, plus
 * rtsModelExecute, the target of aclmdlRIExecute), in the order of the per-symbol launch counters
 * of a quota region ({@code VNPU_H_SYMBOL_LAUNCHES} ({@code enum vnpu_launch_symbol} in {@code
 * native/limiter/compute.h}; the conformance test compares the ordinals).
 */
public enum LaunchSymbol {
  rtKernelLaunch,
  rtKernelLaunchWithFlag,
  rtKernelLaunchWithFlagV2,
  rtKernelLaunchWithHandle,
  rtKernelLaunchWithHandleV2,
  rtKernelLaunchEx,
  rtKernelLaunchFwk,
  rtAicpuKernelLaunchWithFlag,
  rtAicpuKernelLaunchExWithArgs,
  rtCpuKernelLaunchWithFlag,
  rtVectorCoreKernelLaunch,
  rtVectorCoreKernelLaunchWithHandle,
  rtLaunchKernelByFuncHandle,
  rtLaunchKernelByFuncHandleV2,
  rtLaunchKernelByFuncHandleV3,
  rtsLaunchKernelWithConfig,
  rtsLaunchKernelWithDevArgs,
  rtsLaunchKernelWithHostArgs,
  rtsLaunchCpuKernel,
  rtLaunchKernelWithArgsArray,
  rtModelExecute,
  rtModelExecuteSync,
  rtsModelExecute
}
