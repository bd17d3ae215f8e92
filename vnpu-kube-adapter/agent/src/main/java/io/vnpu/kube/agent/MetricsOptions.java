package io.vnpu.kube.agent;

import io.vnpu.kube.metrics.CompatNames;
import java.util.Objects;
import java.util.Set;

/**
 * The node agent's {@code /metrics}, {@code /livez} and {@code /readyz} endpoint.
 *
 * @param host address to bind ({@code --metrics-host}, default {@code 0.0.0.0})
 * @param port TCP port ({@code --metrics-port}, default {@value #DEFAULT_PORT} like HAMi's plugin);
 *     0 turns the endpoint off
 * @param compat name sets exported besides vnpu's own ({@code --metrics-compat=hami,npu-exporter})
 */
public record MetricsOptions(String host, int port, Set<CompatNames> compat) {
  /** HAMi's ascend-device-plugin metrics port. */
  public static final int DEFAULT_PORT = 9395;

  public MetricsOptions {
    Objects.requireNonNull(host, "host");
    compat = Set.copyOf(compat);
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException(
          "--metrics-port = " + port + ": not a TCP port (0 turns metrics off)");
    }
  }

  /** No endpoint (embedding and tests); metrics are still collected in the agent's registry. */
  public static MetricsOptions off() {
    return new MetricsOptions("0.0.0.0", 0, Set.of());
  }

  public boolean enabled() {
    return port != 0;
  }
}
