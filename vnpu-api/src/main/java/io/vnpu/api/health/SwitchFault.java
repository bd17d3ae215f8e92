package io.vnpu.api.health;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One fault of a LingQu (HCCS) switch chip of an A3 server, as {@code liblingqu-dcmi.so} reports it
 * ({@code struct LqDcmiEvent}), and the code MindCluster's device plugin assembles from it for
 * {@code SwitchFaultCode.json} and the {@code SwitchInfoCfg} entry ({@link #assembledCode()}).
 *
 * @param eventType the driver's fault type ({@code HalReportFaultType}, 0..19)
 * @param subType its subtype
 * @param peerDevice what the faulty port connects to: 0 CPU, 1 NPU, 2 switch (L2), 0xFFFF nothing
 * @param peerPort the peer's port
 * @param chipId the switch chip, from 0
 * @param portId the switch port, from 0
 * @param severity 0 notice, 1 minor, 2 major, 3 critical
 * @param assertion 0 recovered, 1 occurred, 2 one-shot
 * @param raisedAt when the driver raised it
 */
public record SwitchFault(
    int eventType,
    int subType,
    int peerDevice,
    int peerPort,
    int chipId,
    int portId,
    int severity,
    int assertion,
    Instant raisedAt) {
  /**
   * Fault types whose code names the peer of the faulty port (invalid packet, unstable, fail,
   * timeouts).
   */
  private static final java.util.Set<Integer> PORT_LEVEL = java.util.Set.of(7, 8, 9, 18, 19);

  /** Switch port fault: its fault ID depends on the subtype. */
  private static final int PORT_FAULT = 5;

  /** Fault type → MindCluster fault ID. */
  private static final Map<Integer, Integer> FAULT_ID =
      Map.ofEntries(
          Map.entry(13, 155907),
          Map.entry(12, 155649),
          Map.entry(11, 155904),
          Map.entry(10, 132134),
          Map.entry(8, 155910),
          Map.entry(9, 155911),
          Map.entry(7, 155908),
          Map.entry(6, 155909),
          Map.entry(5, 155912),
          Map.entry(4, 155913),
          Map.entry(3, 155914));

  /** Fault ID → alarm ID. */
  private static final Map<Integer, String> ALARM =
      Map.ofEntries(
          Map.entry(155907, "0x00f103b0"),
          Map.entry(155649, "0x00f103b0"),
          Map.entry(155904, "0x00f103b0"),
          Map.entry(132134, "0x00f1ff06"),
          Map.entry(155910, "0x00f1ff06"),
          Map.entry(155911, "0x00f1ff06"),
          Map.entry(155908, "0x00f103b6"),
          Map.entry(155909, "0x00f103b6"),
          Map.entry(155912, "0x00f1ff09"),
          Map.entry(155913, "0x00f1ff09"),
          Map.entry(155914, "0x00f1ff09"),
          Map.entry(132332, "0x00f10509"),
          Map.entry(132333, "0x00f10509"));

  /**
   * Port lane-reduction subtypes of a port fault → their fault IDs (our reading of the driver's
   * table).
   */
  private static final Map<Integer, Integer> LANE_REDUCTION = Map.of(448, 132333, 449, 132332);

  public SwitchFault {
    Objects.requireNonNull(raisedAt, "raisedAt");
  }

  /** The fault is present (assertion 1). */
  public boolean occurred() {
    return assertion == 1;
  }

  /**
   * MindCluster's code for the fault: {@code [<alarm ID>,<fault ID>,<peer>,na]}, the peer being
   * {@code cpu}, {@code npu} or {@code L2} for a port-level fault and {@code na} otherwise, e.g.
   * {@code [0x00f1ff06,155911,npu,na]}; a fault type without a known fault ID gives {@code
   * [,<0>,…]} parts left empty, as the upstream plugin writes them.
   */
  public String assembledCode() {
    Integer faultId =
        eventType == PORT_FAULT
            ? LANE_REDUCTION.getOrDefault(subType, FAULT_ID.get(PORT_FAULT))
            : FAULT_ID.get(eventType);
    String alarm = faultId == null ? "" : ALARM.getOrDefault(faultId, "");
    String peer = "na";
    if (PORT_LEVEL.contains(eventType)) {
      peer =
          switch (peerDevice) {
            case 0 -> "cpu";
            case 1 -> "npu";
            case 2 -> "L2";
            default -> "na";
          };
    }
    return "[" + alarm + "," + (faultId == null ? "" : faultId) + "," + peer + ",na]";
  }

  /** {@code <assembled code>_<chip>_<port>}: the key of {@code FaultTimeAndLevelMap}. */
  public String key() {
    return assembledCode() + "_" + chipId + "_" + portId;
  }
}
