package io.vnpu.kube.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vnpu.kube.observe.HealthCheck;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The HTTP endpoint an operator scrapes and probes: {@code /metrics} (Prometheus text and
 * OpenMetrics), {@code /livez} and {@code /readyz}. A probe answers 200 {@code ok} when every check
 * passes, else 503 with one line per failing check ({@code <name>: <problem>}). The node agent
 * serves it on {@code --metrics-port}; the DRA plugin can start its own with its registry and
 * checks.
 */
public final class OpsServer implements AutoCloseable {
  /** Liveness path. */
  public static final String LIVEZ = "/livez";

  /** Readiness path. */
  public static final String READYZ = "/readyz";

  private final HTTPServer server;

  private OpsServer(HTTPServer server) {
    this.server = server;
  }

  /**
   * Starts serving.
   *
   * @param host address to bind ({@code 0.0.0.0} for a pod port, {@code 127.0.0.1} in tests)
   * @param port TCP port, 0 for any free port
   * @param liveness named checks for {@code /livez}
   * @param readiness named checks for {@code /readyz}
   * @throws IOException when the port cannot be bound (the message names host and port)
   */
  public static OpsServer start(
      String host,
      int port,
      PrometheusRegistry registry,
      Map<String, HealthCheck> liveness,
      Map<String, HealthCheck> readiness)
      throws IOException {
    Objects.requireNonNull(registry, "registry");
    Map<String, HealthCheck> live = Map.copyOf(liveness);
    Map<String, HealthCheck> ready = Map.copyOf(readiness);
    HttpHandler probes =
        exchange -> {
          try (exchange) {
            String path = exchange.getRequestURI().getPath();
            if (path.equals(LIVEZ) || path.equals("/healthz")) {
              answer(exchange, live);
            } else if (path.equals(READYZ)) {
              answer(exchange, ready);
            } else {
              send(
                  exchange,
                  404,
                  "not found: " + path + " (try /metrics, " + LIVEZ + ", " + READYZ + ")\n");
            }
          }
        };
    try {
      return new OpsServer(
          HTTPServer.builder()
              .hostname(host)
              .port(port)
              .registry(registry)
              .registerHealthHandler(false)
              .defaultHandler(probes)
              .buildAndStart());
    } catch (IOException e) {
      throw new IOException("metrics endpoint " + host + ":" + port + ": " + e.getMessage(), e);
    }
  }

  /** The bound port. */
  public int port() {
    return server.getPort();
  }

  private static void answer(HttpExchange exchange, Map<String, HealthCheck> checks)
      throws IOException {
    List<String> problems = new ArrayList<>();
    checks.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            c -> {
              Optional<String> p;
              try {
                p = c.getValue().problem();
              } catch (RuntimeException e) {
                p = Optional.of("check failed: " + e.getMessage());
              }
              p.ifPresent(msg -> problems.add(c.getKey() + ": " + msg));
            });
    if (problems.isEmpty()) {
      send(exchange, 200, "ok\n");
    } else {
      send(exchange, 503, String.join("\n", problems) + "\n");
    }
  }

  private static void send(HttpExchange exchange, int status, String body) throws IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(status, b.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(b);
    }
  }

  @Override
  public void close() {
    server.close();
  }
}
