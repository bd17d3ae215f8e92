package io.vnpu.dcmi;

/**
 * A chip's super-pod membership ({@code dcmi_spod_info}) as MindCluster reports it in
 * {@code DeviceInfoCfg} ({@code SuperPodID}, {@code ServerIndex}) and the node annotations.
 *
 * @param superPodId  the super-pod ID; -1 not in a super-pod (the driver said 0xFFFFFFFF); -2 unknown
 *                    (the query is unsupported or failed)
 * @param serverIndex the server's index in its super-pod, with the same -1 / -2
 * @param sdid        the chip's super device ID (0 when unknown)
 */
public record SuperPodInfo(int superPodId, int serverIndex, int sdid) {
  /** The query is unsupported (chips other than A3/A5) or failed. */
  public static final SuperPodInfo UNKNOWN = new SuperPodInfo(-2, -2, 0);
}
