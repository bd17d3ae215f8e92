package io.vnpu.kube.hami.codec;

import java.util.ArrayList;
import java.util.List;

/**
 * Codec for {@code hami.io/<cw>-devices-to-allocate} (protocol spec section 3.2): each device is
 * {@code <UUID>,<type>,<usedmem MiB>,<usedcores %>} terminated by {@code :}, each container is
 * terminated by {@code ;}, init containers first. A device with neither UUID nor type ({@code
 * ,,0,0}, written by HAMi schedulers before PR #1012 for containers that ask for nothing) is no
 * device: its container entry is empty.
 */
public final class DevicesToAllocateCodec {
  /** The decode error HAMi reports for a device with fewer than four fields. */
  public static final String MISSING_FIELDS =
      "pod annotation format error, missing fields, do not use nodeName in task spec";

  private final DecodeVariant variant;

  public DevicesToAllocateCodec(DecodeVariant variant) {
    this.variant = variant;
  }

  /** Encodes every container entry, including empty ones (as {@code ;}). */
  public static String encode(PodDevices pod) {
    StringBuilder out = new StringBuilder();
    for (List<ContainerDevice> container : pod.containers()) {
      for (ContainerDevice d : container) {
        out.append(d.uuid())
            .append(',')
            .append(d.type())
            .append(',')
            .append(d.usedMemMib())
            .append(',')
            .append(d.usedCores())
            .append(':');
      }
      out.append(';');
    }
    return out.toString();
  }

  /**
   * Decodes an annotation value.
   *
   * @throws HamiFormatException when a device has fewer than four fields ({@link #MISSING_FIELDS})
   *     or a number is not a base-10 int32; the message quotes the device text
   */
  public PodDevices decode(String value) throws HamiFormatException {
    String[] parts = value.split(";", -1);
    int n = parts.length;
    // a terminated value ends with ';': the text after it is not a container
    if (n > 0 && parts[n - 1].isEmpty()) n--;
    List<List<ContainerDevice>> containers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      List<ContainerDevice> devices = decodeContainer(parts[i]);
      if (devices.isEmpty() && variant == DecodeVariant.SKIP_EMPTY) continue;
      containers.add(devices);
    }
    return new PodDevices(containers);
  }

  private static List<ContainerDevice> decodeContainer(String text) throws HamiFormatException {
    List<ContainerDevice> out = new ArrayList<>();
    for (String dev : text.split(":", -1)) {
      if (!dev.contains(",")) continue;
      String[] f = dev.split(",", -1);
      if (f.length < 4) throw new HamiFormatException(MISSING_FIELDS + ": \"" + dev + "\"");
      // ",,0,0": what HAMi schedulers before their PR #1012 wrote for a container that asks for
      // nothing; upstream's plugin matches devices by type, so it is no device (else the pod's
      // bind would wait for an Allocate that never comes, holding the node lock)
      if (f[0].isEmpty() && f[1].isEmpty()) continue;
      out.add(
          new ContainerDevice(
              f[0], f[1], int32(f[2], "usedmem", dev), int32(f[3], "usedcores", dev)));
    }
    return out;
  }

  private static int int32(String s, String field, String dev) throws HamiFormatException {
    try {
      return Integer.parseInt(s, 10);
    } catch (NumberFormatException e) {
      throw new HamiFormatException(
          "pod annotation format error, "
              + field
              + " \""
              + s
              + "\" is not an int32 in \""
              + dev
              + "\"",
          e);
    }
  }
}
