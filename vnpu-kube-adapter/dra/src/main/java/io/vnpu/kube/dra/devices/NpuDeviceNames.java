package io.vnpu.kube.dra.devices;

import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * ResourceSlice device names of NPUs: {@code npu-<phy ID>}, and {@code npu-<phy ID>-soft} for the
 * soft-share device of a chip that is offered in two sharing modes at once (kept exclusive by
 * shared counters, see {@code ChipCounters}). Named after the phy ID (the {@code N} of {@code
 * /dev/davinciN}), never the logic ID or the enumeration order, so when a chip disappears the
 * others keep their names and existing allocations stay valid.
 */
public final class NpuDeviceNames {
  private static final Pattern NAME = Pattern.compile("npu-(0|[1-9][0-9]{0,8})(-soft)?");

  /** Suffix of a chip's soft-share device when the chip is also offered in another mode. */
  public static final String SOFT_SUFFIX = "-soft";

  private NpuDeviceNames() {}

  /** {@code npu-3} for phy ID 3. */
  public static String of(int phyId) {
    if (phyId < 0) {
      throw new IllegalArgumentException("phy ID must be >= 0, got " + phyId);
    }
    return "npu-" + phyId;
  }

  /** {@code npu-3-soft} for phy ID 3: the chip's soft-share device next to {@link #of}. */
  public static String soft(int phyId) {
    return of(phyId) + SOFT_SUFFIX;
  }

  /** Whether {@code deviceName} is a chip's second, soft-share device ({@link #soft}). */
  public static boolean isSoft(String deviceName) {
    Matcher m = NAME.matcher(deviceName);
    return m.matches() && m.group(2) != null;
  }

  /** The phy ID a device name ({@link #of} or {@link #soft}) denotes, empty for other names. */
  public static OptionalInt phyIdOf(String deviceName) {
    Matcher m = NAME.matcher(deviceName);
    return m.matches() ? OptionalInt.of(Integer.parseInt(m.group(1))) : OptionalInt.empty();
  }
}
