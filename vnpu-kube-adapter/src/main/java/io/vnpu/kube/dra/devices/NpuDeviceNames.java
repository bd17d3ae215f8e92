package io.vnpu.kube.dra.devices;

import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * ResourceSlice device names of whole NPUs: {@code npu-<phy ID>}. Named after the phy ID (the
 * {@code N} of {@code /dev/davinciN}), never the logic ID or the enumeration order, so when a chip
 * disappears the others keep their names and existing allocations stay valid.
 */
public final class NpuDeviceNames {
  private static final Pattern NAME = Pattern.compile("npu-(0|[1-9][0-9]{0,8})");

  private NpuDeviceNames() {}

  /** {@code npu-3} for phy ID 3. */
  public static String of(int phyId) {
    if (phyId < 0) {
      throw new IllegalArgumentException("phy ID must be >= 0, got " + phyId);
    }
    return "npu-" + phyId;
  }

  /** The phy ID a device name denotes, empty when it is not a whole-NPU name. */
  public static OptionalInt phyIdOf(String deviceName) {
    Matcher m = NAME.matcher(deviceName);
    return m.matches() ? OptionalInt.of(Integer.parseInt(m.group(1))) : OptionalInt.empty();
  }
}
