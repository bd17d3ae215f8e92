package io.vnpu.kube.dra.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusException;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.vnpu.kube.dra.claims.ClaimRef;
import io.vnpu.kube.dra.state.PrepareOutcome;
import io.vnpu.kube.metrics.RequestMetrics;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Prepare and Unprepare counted per claim, errors by kind, in the plugin request metrics. */
class MeasuredClaimHandlerTest {

  @Test
  void countsEveryClaimAndItsErrors() throws Exception {
    PrometheusRegistry registry = new PrometheusRegistry();
    AtomicLong nanos = new AtomicLong();
    ClaimHandler inner =
        new ClaimHandler() {
          @Override
          public Map<String, PrepareOutcome> prepare(List<ClaimRef> claims) throws StatusException {
            nanos.addAndGet(2_000_000);
            if (claims.isEmpty())
              throw Status.UNAVAILABLE.withDescription("state busy").asException();
            return Map.of(
                "u1",
                PrepareOutcome.prepared(List.of()),
                "u2",
                PrepareOutcome.failed(
                    "claim default/c2 refused: limiter /usr/local/hami-vnpu-core/libvnpu.so: does not exist"));
          }

          @Override
          public Map<String, String> unprepare(List<ClaimRef> claims) {
            return Map.of("u1", "");
          }
        };
    MeasuredClaimHandler h =
        new MeasuredClaimHandler(inner, new RequestMetrics(registry), nanos::get);
    h.prepare(List.of(new ClaimRef("default", "u1", "c1"), new ClaimRef("default", "u2", "c2")));
    h.unprepare(List.of(new ClaimRef("default", "u1", "c1")));
    assertThatThrownBy(() -> h.prepare(List.of())).isInstanceOf(StatusException.class);

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrometheusTextFormatWriter.create().write(out, registry.scrape());
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("vnpu_plugin_requests_total{operation=\"prepare\"} 2.0")
        .contains("vnpu_plugin_requests_total{operation=\"unprepare\"} 1.0")
        .contains("vnpu_plugin_request_errors_total{kind=\"limiter\",operation=\"prepare\"} 1.0")
        .contains("vnpu_plugin_request_duration_seconds_sum{operation=\"prepare\"} 0.004")
        .doesNotContain("vnpu_plugin_request_errors_total{kind=\"request\"");
  }
}
