package io.vnpu.kube.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.api.fault.FaultConfigReloader;
import io.vnpu.api.fault.FaultConfigReloader.Outcome;
import io.vnpu.api.fault.FaultConfigs;
import io.vnpu.api.fault.RateLimitedNotifier;
import io.vnpu.api.health.FaultCode;
import io.vnpu.api.health.FaultLevel;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The fault adapters against the CRUD mock API server. */
@EnableKubernetesMockClient(crud = true)
class KubeFaultAdaptersTest {
  KubernetesClient client;

  private final Clock clock = Clock.fixed(Instant.parse("2026-12-01T02:00:00Z"), ZoneOffset.UTC);

  private void faultConfig(Map<String, String> data) {
    client
        .configMaps()
        .inNamespace("kube-system")
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("mindx-dl-fault-config")
                .withNamespace("kube-system")
                .endMetadata()
                .withData(data)
                .build())
        .createOr(c -> c.update());
  }

  @Test
  void eventsAreWarningsOfTheDevicePluginBoundToItsPod() {
    KubeEventNotifier n =
        KubeEventNotifier.forPod(client, "kube-system", "ascend-device-plugin-x7", "node-a", clock);
    n.notify(3, "Occur", "NPU logic 3: fault 80E01801 occurred (RestartBusiness)");
    List<Event> events = client.v1().events().inNamespace("kube-system").list().getItems();
    assertThat(events)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getType()).isEqualTo("Warning");
              assertThat(e.getReason()).isEqualTo("Occur");
              assertThat(e.getMessage())
                  .isEqualTo("NPU logic 3: fault 80E01801 occurred (RestartBusiness)");
              assertThat(e.getReportingComponent()).isEqualTo("device-plugin");
              assertThat(e.getSource().getComponent()).isEqualTo("device-plugin");
              assertThat(e.getInvolvedObject().getKind()).isEqualTo("Pod");
              assertThat(e.getInvolvedObject().getName()).isEqualTo("ascend-device-plugin-x7");
              assertThat(e.getLastTimestamp()).isEqualTo("2026-12-01T02:00:00Z");
            });
  }

  @Test
  void aStormOfNoticesBecomesAtMostTenEvents() {
    RateLimitedNotifier n =
        RateLimitedNotifier.perMinute(KubeEventNotifier.forNode(client, "node-a", clock), clock);
    for (int i = 0; i < 30; i++) n.notify(i % 8, "Occur", "fault " + i);
    assertThat(client.v1().events().inNamespace("default").list().getItems()).hasSize(10);
  }

  @Test
  void configMapOverrideIsAppliedABrokenOneKeptOutAndADeletedOneFallsBack() {
    FaultConfigReloader reloader = new FaultConfigReloader(FaultConfigs.shippedDefault(), c -> {});
    FaultConfigMapSource source = new FaultConfigMapSource(client);
    assertThat(source.reloadOnce(reloader)).isEqualTo(Duration.ofSeconds(300));
    assertThat(reloader.inForce().origin()).isEqualTo("shipped default");

    faultConfig(
        Map.of("faultCode.json", "{\"SeparateNPUCodes\": [\"80e01801\"]}", "PollInterval", "60"));
    assertThat(source.reloadOnce(reloader)).isEqualTo(Duration.ofSeconds(60));
    assertThat(reloader.inForce().origin())
        .isEqualTo("ConfigMap kube-system/mindx-dl-fault-config");
    assertThat(reloader.inForce().table().level(FaultCode.parse("80E01801")))
        .contains(FaultLevel.SEPARATE_NPU);

    faultConfig(
        Map.of(
            "faultCode.json",
            "{\n  \"SeparateNPUCodes\": [\"80E01801\",\n    \"zz\"]\n}",
            "PollInterval",
            "5"));
    assertThat(source.reloadOnce(reloader)).isEqualTo(Duration.ofSeconds(300));
    assertThat(reloader.lastError())
        .contains(
            "ConfigMap kube-system/mindx-dl-fault-config[faultCode.json]:3: SeparateNPUCodes[1] = \"zz\": "
                + "not a hex fault code (e.g. \"80E01801\")");
    assertThat(reloader.inForce().table().level(FaultCode.parse("80E01801")))
        .contains(FaultLevel.SEPARATE_NPU);
    assertThat(source.read().pollIntervalError())
        .contains(
            "ConfigMap kube-system/mindx-dl-fault-config"
                + "[PollInterval] = 5: must be whole seconds in 30..3600; 300 s used");

    client.configMaps().inNamespace("kube-system").withName("mindx-dl-fault-config").delete();
    assertThat(source.reloadOnce(reloader)).isEqualTo(Duration.ofSeconds(300));
    assertThat(reloader.inForce().origin()).isEqualTo("shipped default");
    assertThat(reloader.reload(source.read().snapshot())).isEqualTo(Outcome.UNCHANGED);
  }
}
