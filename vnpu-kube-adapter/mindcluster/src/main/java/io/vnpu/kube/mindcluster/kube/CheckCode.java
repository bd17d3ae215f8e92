package io.vnpu.kube.mindcluster.kube;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * MindCluster's {@code CheckCode}: the lower-case hex SHA-256 of the UTF-8 bytes of the JSON it
 * guards, as {@code DeviceInfoCfg} (of {@code DeviceInfo}), {@code SwitchInfoCfg} (of the object
 * without it) and {@code reset-config-<job>} (of {@code reset.json}) carry it. A reader recomputes
 * it over the same bytes, so each caller hashes exactly the text it writes.
 */
public final class CheckCode {
  private CheckCode() {}

  /** The check code of {@code json}: 64 lower-case hex digits. */
  public static String of(String json) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(json.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }
}
