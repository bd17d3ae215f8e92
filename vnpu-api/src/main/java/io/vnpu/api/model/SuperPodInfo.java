package io.vnpu.api.model;

/**
 * A chip's super-pod membership (DCMI {@code dcmi_get_device_info(CHIP_INF, 1)}, {@code
 * dcmi_spod_info}) in MindCluster's terms: {@code DeviceInfoCfg} {@code SuperPodID} / {@code
 * ServerIndex}, the node annotations {@code superPodID} / {@code serverIndex} / {@code
 * baseDeviceInfos.SuperDeviceID} and the HCCL rank table's {@code super_pod_id} / {@code
 * server_index} / {@code super_device_id}.
 *
 * @param superPodId the super-pod ID; -1 not in a super-pod (the driver said 0xFFFFFFFF); -2
 *     unknown (the query is unsupported, as on chips other than A3/A5, or failed)
 * @param serverIndex the server's index in its super-pod, with the same -1 / -2
 * @param sdid the chip's super device ID, its ID within the super-pod ({@code sdid}, an unsigned
 *     32-bit value; 0 when unknown, as MindCluster reports it then)
 */
public record SuperPodInfo(int superPodId, int serverIndex, int sdid) {
  /** The query is unsupported (chips other than A3/A5) or failed. */
  public static final SuperPodInfo UNKNOWN = new SuperPodInfo(-2, -2, 0);

  /** Whether the driver answered the query (the IDs are not -2). */
  public boolean known() {
    return superPodId != UNKNOWN.superPodId;
  }

  /** {@link #sdid()} as the unsigned value MindCluster writes. */
  public long superDeviceId() {
    return Integer.toUnsignedLong(sdid);
  }
}
