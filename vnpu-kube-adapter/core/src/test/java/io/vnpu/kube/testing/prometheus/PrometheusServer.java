package io.vnpu.kube.testing.prometheus;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * A real Prometheus (the Debian {@code prometheus} package's server) for integration tests: on
 * loopback only, its TSDB in the test's directory, scraping the given targets every two seconds,
 * with optional rule files; queried through its HTTP API. Closed with SIGTERM, then killed.
 */
public final class PrometheusServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final int port;
  private final Path log;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private PrometheusServer(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /** The server binary, or empty when the Debian package is not installed. */
  public static Optional<Path> binary() {
    for (String d : (System.getenv().getOrDefault("PATH", "") + ":/usr/bin:/bin").split(":")) {
      Path p = Path.of(d, "prometheus");
      if (!d.isEmpty() && Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /**
   * Starts Prometheus scraping {@code targets} (job name → {@code host:port}) every 2 s and waits
   * (at most 60 s) until it is ready.
   */
  public static PrometheusServer start(Path work, Map<String, String> targets, List<Path> ruleFiles)
      throws IOException, InterruptedException {
    Path bin = binary().orElseThrow(() -> new IOException("prometheus is not installed"));
    int port = freePort();
    // every 2 s, each scrape allowed the whole interval: on a loaded 2-core machine a scrape of
    // the agent can take over a second, and a scrape cut short reads as the target down
    StringBuilder cfg =
        new StringBuilder(
            "global:\n  scrape_interval: 2s\n"
                + "  scrape_timeout: 2s\n  evaluation_interval: 2s\n");
    if (!ruleFiles.isEmpty()) {
      cfg.append("rule_files:\n");
      ruleFiles.forEach(f -> cfg.append("  - ").append(f).append('\n'));
    }
    cfg.append("scrape_configs:\n");
    targets.forEach(
        (job, target) ->
            cfg.append("  - job_name: ")
                .append(job)
                .append('\n')
                .append("    static_configs:\n      - targets: ['")
                .append(target)
                .append("']\n"));
    Path config = Files.writeString(work.resolve("prometheus.yml"), cfg.toString());
    Path log = work.resolve("prometheus.log");
    Process p =
        new ProcessBuilder(
                bin.toString(),
                "--config.file=" + config,
                "--storage.tsdb.path=" + Files.createDirectories(work.resolve("tsdb")),
                "--web.listen-address=127.0.0.1:" + port,
                "--storage.tsdb.retention.time=1h",
                "--log.level=warn")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    PrometheusServer s = new PrometheusServer(p, port, log);
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!s.ready()) {
      if (!p.isAlive() || System.nanoTime() > end) {
        s.close();
        throw new IOException("prometheus did not become ready: " + Files.readString(log));
      }
      Thread.sleep(100);
    }
    return s;
  }

  private boolean ready() {
    try {
      return http.send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/-/ready"))
                      .timeout(Duration.ofSeconds(2))
                      .build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode()
          == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** {@code /api/v1/query}: the result vector of an instant query (fails on an API error). */
  public List<JsonNode> query(String promql) throws IOException, InterruptedException {
    JsonNode body = get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
    List<JsonNode> out = new ArrayList<>();
    body.get("data").get("result").forEach(out::add);
    return out;
  }

  /** {@code /api/v1/label/__name__/values}: every metric name Prometheus has. */
  public List<String> metricNames() throws IOException, InterruptedException {
    List<String> out = new ArrayList<>();
    get("/api/v1/label/__name__/values").get("data").forEach(n -> out.add(n.asString()));
    return out;
  }

  /** {@code /api/v1/targets}: the health of each active target ("up", "down", "unknown"). */
  public JsonNode targets() throws IOException, InterruptedException {
    return get("/api/v1/targets").get("data").get("activeTargets");
  }

  /**
   * Polls {@code promql} until {@code done} holds for its result (at most {@code seconds}).
   *
   * @throws AssertionError naming the query and the last result otherwise
   */
  public List<JsonNode> await(String promql, Predicate<List<JsonNode>> done, long seconds)
      throws IOException, InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    List<JsonNode> last;
    while (!done.test(last = query(promql))) {
      if (System.nanoTime() > end) {
        throw new AssertionError(
            "PromQL " + promql + " after " + seconds + " s: " + last + "; targets: " + targets());
      }
      Thread.sleep(250);
    }
    return last;
  }

  private JsonNode get(String path) throws IOException, InterruptedException {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    JsonNode body = JSON.readTree(r.body());
    if (r.statusCode() != 200 || !"success".equals(body.get("status").asString())) {
      throw new AssertionError("prometheus " + path + ": HTTP " + r.statusCode() + " " + r.body());
    }
    return body;
  }

  /** A TCP port free on loopback now. */
  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** The server's log so far. */
  public String log() throws IOException {
    return Files.readString(log);
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
