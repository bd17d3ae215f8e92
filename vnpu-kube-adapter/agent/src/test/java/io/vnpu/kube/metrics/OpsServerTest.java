package io.vnpu.kube.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vnpu.kube.limiter.LimiterFiles;
import io.vnpu.kube.limiter.LimiterFixture;
import io.vnpu.kube.limiter.LimiterVerifier;
import io.vnpu.kube.observe.HealthCheck;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Probes and gauges of the ops endpoint: readiness names what is missing, and follows the limiter.
 */
class OpsServerTest {
  @TempDir Path tmp;

  @Test
  void readinessFollowsRegistrationAndLimiterAndNamesTheProblem() throws Exception {
    LimiterFiles files = LimiterFixture.installInto(tmp.resolve("hami-vnpu-core"));
    LimiterVerifier limiter = LimiterVerifier.forThisMachine(files);
    AtomicBoolean registered = new AtomicBoolean(false);
    PrometheusRegistry registry = new PrometheusRegistry();
    StateGauges.registered(registry, "huawei.com/Ascend910B3", registered::get);
    StateGauges.limiterReady(registry, limiter::usable);
    Map<String, HealthCheck> ready =
        Map.of(
            "kubelet",
                () ->
                    registered.get()
                        ? Optional.empty()
                        : Optional.of("device plugin is WAITING_FOR_KUBELET"),
            "limiter", () -> limiter.usable() ? Optional.empty() : limiter.lastProblem());
    try (OpsServer s =
        OpsServer.start("127.0.0.1", 0, registry, Map.of("plugin", Optional::empty), ready)) {
      assertThat(get(s, "/readyz"))
          .isEqualTo("503 kubelet: device plugin is WAITING_FOR_KUBELET\n");
      assertThat(get(s, "/livez")).isEqualTo("200 ok\n");
      assertThat(get(s, "/metrics"))
          .contains("vnpu_plugin_registered{resource=\"huawei.com/Ascend910B3\"} 0.0")
          .contains("vnpu_limiter_ready 1.0");

      registered.set(true);
      assertThat(get(s, "/readyz")).isEqualTo("200 ok\n");

      Files.delete(files.library());
      assertThat(get(s, "/readyz"))
          .isEqualTo("503 limiter: " + files.library() + ": does not exist\n");
      assertThat(get(s, "/metrics"))
          .contains("vnpu_limiter_ready 0.0")
          .contains("vnpu_plugin_registered{resource=\"huawei.com/Ascend910B3\"} 1.0");
      assertThat(get(s, "/nope")).startsWith("404 not found: /nope");
    }
  }

  @Test
  void compatNamesParseOrNameTheBadValue() {
    assertThat(CompatNames.parse("")).isEmpty();
    assertThat(CompatNames.parse("hami, npu-exporter")).isEqualTo(EnumSet.allOf(CompatNames.class));
    assertThatThrownBy(() -> CompatNames.parse("hami,dcgm"))
        .hasMessage(
            "--metrics-compat = hami,dcgm: unknown name set \"dcgm\" (allowed: hami, npu-exporter)");
  }

  @Test
  void requestKindsComeFromTheCause() {
    assertThat(
            MeasuredResourceManager.kindOf(
                new io.vnpu.kube.resource.AllocationException(
                    "x",
                    new io.vnpu.kube.limiter.LimiterUnavailableException(Path.of("/l"), "gone"))))
        .isEqualTo(RequestMetrics.ErrorKind.LIMITER);
    assertThat(
            MeasuredResourceManager.kindOf(new io.vnpu.kube.resource.AllocationException("no pod")))
        .isEqualTo(RequestMetrics.ErrorKind.REQUEST);
  }

  private static String get(OpsServer s, String path) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    return r.statusCode() + " " + r.body();
  }
}
