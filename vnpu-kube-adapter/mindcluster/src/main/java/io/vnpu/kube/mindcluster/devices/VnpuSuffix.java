package io.vnpu.kube.mindcluster.devices;

import java.util.Map;
import java.util.Optional;

/**
 * The vNPU type suffix MindCluster derives from a template name (spec section 2, upstream {@code
 * GetTemplateName2DeviceTypeMap}); it forms static vNPU resource and device names.
 */
public final class VnpuSuffix {
  private static final Map<String, String> SUFFIX =
      Map.ofEntries(
          Map.entry("vir01", "1c"),
          Map.entry("vir02", "2c"),
          Map.entry("vir04", "4c"),
          Map.entry("vir08", "8c"),
          Map.entry("vir16", "16c"),
          Map.entry("vir02_1c", "2c.1cpu"),
          Map.entry("vir04_3c", "4c.3cpu"),
          Map.entry("vir04_3c_ndvpp", "4c.3cpu.ndvpp"),
          Map.entry("vir04_4c_dvpp", "4c.4cpu.dvpp"),
          Map.entry("vir03_1c_8g", "3c.1cpu.8g"),
          Map.entry("vir05_1c_8g", "5c.1cpu.8g"),
          Map.entry("vir05_1c_16g", "5c.1cpu.16g"),
          Map.entry("vir06_1c_16g", "6c.1cpu.16g"),
          Map.entry("vir10_3c_16g", "10c.3cpu.16g"),
          Map.entry("vir10_3c_16g_nm", "10c.3cpu.16g.ndvpp"),
          Map.entry("vir10_3c_32g", "10c.3cpu.32g"),
          Map.entry("vir10_4c_16g_m", "10c.4cpu.16g.dvpp"),
          Map.entry("vir12_3c_32g", "12c.3cpu.32g"));

  private VnpuSuffix() {}

  /**
   * The suffix of a template, e.g. {@code vir12_3c_32g} → {@code 12c.3cpu.32g}; empty when unknown.
   */
  public static Optional<String> of(String template) {
    return Optional.ofNullable(SUFFIX.get(template));
  }

  /**
   * AI Cores of a template: the integer after {@code vir} before the first {@code _} ({@code
   * vir10_3c_32g} → 10).
   *
   * @throws IllegalArgumentException when the name is not of the form {@code virNN[_...]}
   */
  public static int aiCores(String template) {
    String head = template.contains("_") ? template.substring(0, template.indexOf('_')) : template;
    if (!head.startsWith("vir") || head.length() == 3) {
      throw new IllegalArgumentException(
          "template " + template + " is not of the form virNN[_...]");
    }
    try {
      return Integer.parseInt(head.substring(3));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "template " + template + " is not of the form virNN[_...]", e);
    }
  }
}
