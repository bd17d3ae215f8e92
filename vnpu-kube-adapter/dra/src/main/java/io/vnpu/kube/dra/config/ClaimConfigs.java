package io.vnpu.kube.dra.config;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfiguration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The opaque configurations of this driver in a claim's {@code status.allocation.devices.config},
 * decoded, and the effective one per request. DRA rules: class configurations ({@code source:
 * FromClass}) apply first, then the claim's ({@code FromClaim}), each in its order (the allocator
 * already lists them so; entries are ordered by source here as well, as the example driver does);
 * an entry applies to the requests it lists (all when it lists none; a sub-request {@code main/sub}
 * is matched by {@code main} as well); for a field set by several applicable entries the later one
 * wins.
 */
public final class ClaimConfigs {

  private record Entry(List<String> requests, NpuConfig config, boolean fromClass) {}

  private final List<Entry> entries;

  private ClaimConfigs(List<Entry> entries) {
    this.entries = List.copyOf(entries);
  }

  /** No configuration. */
  public static final ClaimConfigs NONE = new ClaimConfigs(List.of());

  /**
   * Decodes the entries of {@code driverName}; entries of other drivers are theirs and skipped.
   *
   * @param where prefix of error messages, e.g. {@code ResourceClaim demo/c}
   * @throws ConfigDecodeException naming the entry, field and value; also for an entry with no
   *     opaque configuration (a configuration kind newer than this build: refusing is safer than
   *     ignoring it)
   */
  public static ClaimConfigs decode(
      List<DeviceAllocationConfiguration> config,
      String driverName,
      String where,
      NpuConfigDecoder decoder)
      throws ConfigDecodeException {
    List<Entry> fromClass = new ArrayList<>();
    List<Entry> fromClaim = new ArrayList<>();
    for (int i = 0; i < config.size(); i++) {
      DeviceAllocationConfiguration c = config.get(i);
      String at = where + ": status.allocation.devices.config[" + i + "]";
      if (c.getOpaque() == null) {
        throw new ConfigDecodeException(
            at + ": no opaque configuration (unsupported" + " configuration kind)");
      }
      if (!driverName.equals(c.getOpaque().getDriver())) {
        continue;
      }
      boolean admin = "FromClass".equals(c.getSource());
      Entry e =
          new Entry(
              c.getRequests() == null ? List.of() : c.getRequests(),
              decoder.decode(c.getOpaque().getParameters(), at + ".opaque.parameters"),
              admin);
      (admin ? fromClass : fromClaim).add(e);
    }
    fromClass.addAll(fromClaim);
    return new ClaimConfigs(fromClass);
  }

  /** The effective configuration of allocation result request {@code request}. */
  public NpuConfig forRequest(String request) {
    return effective(request, false);
  }

  /**
   * The configuration of {@code request} from DeviceClass entries ({@code FromClass}) only: the
   * administrator's, which may grant what a claim's own configuration may not (high priority).
   */
  public NpuConfig fromClassForRequest(String request) {
    return effective(request, true);
  }

  private NpuConfig effective(String request, boolean classOnly) {
    Objects.requireNonNull(request, "request");
    int slash = request.indexOf('/');
    String main = slash < 0 ? request : request.substring(0, slash);
    NpuConfig out = NpuConfig.EMPTY;
    for (Entry e : entries) {
      if (classOnly && !e.fromClass) continue;
      if (e.requests.isEmpty() || e.requests.contains(request) || e.requests.contains(main)) {
        out = out.overriddenBy(e.config);
      }
    }
    return out;
  }
}
