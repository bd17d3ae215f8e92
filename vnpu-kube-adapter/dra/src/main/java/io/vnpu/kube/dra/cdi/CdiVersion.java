package io.vnpu.kube.dra.cdi;

/**
 * The lowest CDI spec version that can carry a spec's content, so that older runtimes (containerd
 * 1.7, CRI-O) read it. The content this plugin writes needs at most 0.5.0.
 *
 * <p>Rules (CDI spec 1.1.0, "version history"): 0.3.0 baseline; 0.4.0 when a mount has a {@code
 * type} (we never set one); 0.5.0 when a device node has a {@code hostPath} or a device name starts
 * with a digit (claim UIDs often do).
 */
public final class CdiVersion {
  public static final String V0_3_0 = "0.3.0";
  public static final String V0_5_0 = "0.5.0";

  private CdiVersion() {}

  /** The minimum version for {@code spec} (its own {@code cdiVersion} is ignored). */
  public static String minimumFor(CdiSpec spec) {
    boolean hostPath =
        spec.containerEdits().deviceNodes().stream().anyMatch(n -> n.hostPath() != null)
            || spec.devices().stream()
                .flatMap(d -> d.containerEdits().deviceNodes().stream())
                .anyMatch(n -> n.hostPath() != null);
    boolean digitName =
        spec.devices().stream().anyMatch(d -> Character.isDigit(d.name().charAt(0)));
    return hostPath || digitName ? V0_5_0 : V0_3_0;
  }
}
