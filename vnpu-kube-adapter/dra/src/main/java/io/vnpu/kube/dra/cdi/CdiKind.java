package io.vnpu.kube.dra.cdi;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A CDI kind {@code <vendor>/<class>} and the names derived from it: qualified device IDs {@code
 * <vendor>/<class>=<device>} and spec file names {@code <vendor>-<class>_<claimUID>.json}.
 *
 * @param vendor DNS-like, e.g. {@code npu.huawei.com} (the DRA driver name)
 * @param clazz e.g. {@code npu} (the device profile)
 */
public record CdiKind(String vendor, String clazz) {
  private static final Pattern VENDOR = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?");
  private static final Pattern CLASS = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9_-]*[A-Za-z0-9])?");
  private static final Pattern DEVICE =
      Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._:-]*[A-Za-z0-9])?");

  /** Extension of the spec files this plugin writes. */
  public static final String SPEC_SUFFIX = ".json";

  public CdiKind {
    Objects.requireNonNull(vendor, "vendor");
    Objects.requireNonNull(clazz, "clazz");
    if (!VENDOR.matcher(vendor).matches()) {
      throw new IllegalArgumentException("invalid CDI vendor '" + vendor + "'");
    }
    // a dot in the class would need CDI 0.6.0; the device profiles have none
    if (!CLASS.matcher(clazz).matches()) {
      throw new IllegalArgumentException("invalid CDI class '" + clazz + "'");
    }
  }

  /** The kind for a DRA driver name and device profile: {@code npu.huawei.com} + {@code npu}. */
  public static CdiKind of(String driverName, String deviceProfile) {
    return new CdiKind(driverName.toLowerCase(Locale.ROOT), deviceProfile);
  }

  /** {@code <vendor>/<class>}. */
  public String kind() {
    return vendor + "/" + clazz;
  }

  /** The fully qualified ID of a device of this kind. */
  public String qualify(String deviceName) {
    if (!isValidDeviceName(deviceName)) {
      throw new IllegalArgumentException("invalid CDI device name '" + deviceName + "'");
    }
    return kind() + "=" + deviceName;
  }

  /**
   * Name of the spec file of one claim; {@code /} in the UID (never in a real UID) becomes {@code
   * _} so the name stays one path element.
   */
  public String claimSpecFileName(String claimUid) {
    return vendor + "-" + clazz + "_" + claimUid.replace('/', '_') + SPEC_SUFFIX;
  }

  /** The claim UID of a spec file name written by {@link #claimSpecFileName}, or null. */
  public String claimUidOf(String fileName) {
    String prefix = vendor + "-" + clazz + "_";
    if (!fileName.startsWith(prefix)
        || !fileName.endsWith(SPEC_SUFFIX)
        || fileName.length() == prefix.length() + SPEC_SUFFIX.length()) {
      return null;
    }
    return fileName.substring(prefix.length(), fileName.length() - SPEC_SUFFIX.length());
  }

  /** Whether {@code name} is a valid CDI device name. */
  public static boolean isValidDeviceName(String name) {
    return DEVICE.matcher(name).matches();
  }
}
