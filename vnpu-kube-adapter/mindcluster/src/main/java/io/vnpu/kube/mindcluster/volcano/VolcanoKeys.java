package io.vnpu.kube.mindcluster.volcano;

/** Pod annotation keys and values of the Volcano handshake (spec sections 3.8, 3.10, 3.11). */
public final class VolcanoKeys {
  /**
   * UnixNano of Volcano's predicate; {@link #PREDICATE_TIME_CONSUMED} once a device plugin took the
   * pod.
   */
  public static final String PREDICATE_TIME = "predicate-time";

  /** The value of {@link #PREDICATE_TIME} that marks it consumed (max uint64). */
  public static final String PREDICATE_TIME_CONSUMED = "18446744073709551615";

  /** The real chips handed to the pod, comma-joined names. */
  public static final String ASCEND_REAL = "huawei.com/AscendReal";

  /** The kubelet's device IDs for the pod, comma-joined. */
  public static final String KLT_DEV = "huawei.com/kltDev";

  /** HCCL rank-table entry of the pod (910 family). */
  public static final String RANK_TABLE_910 =
      "ascend.kubectl.kubernetes.io/ascend-910-configuration";

  /** HCCL rank-table entry of the pod on Ascend 950. */
  public static final String RANK_TABLE_NPU =
      "ascend.kubectl.kubernetes.io/ascend-npu-configuration";

  private VolcanoKeys() {}
}
