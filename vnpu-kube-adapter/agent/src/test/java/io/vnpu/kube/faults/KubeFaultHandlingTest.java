package io.vnpu.kube.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.api.fault.FaultConfigs;
import io.vnpu.api.fault.FaultTracker;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.health.ChipReading;
import io.vnpu.api.health.ChipUsage;
import io.vnpu.api.health.FaultCode;
import io.vnpu.api.health.FaultEvent;
import io.vnpu.api.health.FaultLevel;
import io.vnpu.api.health.FaultNotifier;
import io.vnpu.api.health.FaultProbe;
import io.vnpu.api.health.ManualSeparationStore;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The monitor attached to the cluster: the override ConfigMap regrades, faults become Events. */
@EnableKubernetesMockClient(crud = true)
class KubeFaultHandlingTest {
  KubernetesClient client;

  private volatile Set<FaultCode> codes = Set.of();

  private final FaultProbe probe =
      new FaultProbe() {
        @Override
        public List<Integer> chips() {
          return List.of(0);
        }

        @Override
        public ChipReading read(int logicId) {
          return ChipReading.of(codes, Optional.empty());
        }

        @Override
        public boolean subscribe(Consumer<FaultEvent> sink) {
          return false;
        }

        @Override
        public void close() {}
      };

  @Test
  void overrideRegradesAndFaultsBecomeEventsOfThePod() throws Exception {
    client
        .configMaps()
        .inNamespace("kube-system")
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("mindx-dl-fault-config")
                .withNamespace("kube-system")
                .endMetadata()
                .addToData("faultCode.json", "{\"SubHealthFaultCodes\": [\"80E01801\"]}")
                .build())
        .create();
    HealthMonitor monitor =
        new HealthMonitor(
            probe,
            new FaultTracker(FaultConfigs.shippedDefault(), Clock.systemUTC()),
            ManualSeparationStore.inMemory(),
            ChipUsage.NONE,
            FaultNotifier.NONE,
            Duration.ofSeconds(5));
    try (KubeFaultHandling h =
        KubeFaultHandling.start(
            client,
            "node-a",
            monitor,
            ManualSeparationStore.inMemory(),
            Map.of("POD_NAME", "dp-1", "POD_NAMESPACE", "kube-system"),
            Clock.systemUTC())) {
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (!h.reloader().inForce().origin().startsWith("ConfigMap")
          && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(monitor.tracker().config().origin())
          .isEqualTo("ConfigMap kube-system/mindx-dl-fault-config");
      codes = Set.of(FaultCode.parse("80E01801"));
      assertThat(monitor.pollOnce().get(0).level()).isEqualTo(FaultLevel.SUB_HEALTH_FAULT);
      assertThat(client.v1().events().inNamespace("kube-system").list().getItems())
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.getReason()).isEqualTo("Occur");
                assertThat(e.getInvolvedObject().getName()).isEqualTo("dp-1");
                assertThat(e.getMessage())
                    .isEqualTo("NPU logic 0: fault 80E01801 occurred (SubHealthFault)");
              });
    }
  }
}
