package io.vnpu.kube.mindcluster;

import static io.vnpu.kube.mindcluster.VolcanoPodsFixture.annotations;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.StatusRuntimeException;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.kube.deviceplugin.KubeletStandIn;
import io.vnpu.kube.deviceplugin.PluginClient;
import io.vnpu.kube.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vnpu.kube.deviceplugin.v1beta1.Mount;
import io.vnpu.kube.limiter.LimiterFiles;
import io.vnpu.kube.limiter.LimiterFixture;
import io.vnpu.kube.limiter.LimiterVerifier;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import io.vnpu.kube.resource.QuotaRegionFactory;
import io.vnpu.kube.softslice.SoftSliceLayout;
import io.vnpu.kube.softslice.SoftSlices;
import io.vnpu.quota.region.QuotaRegions;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Soft sharing against hostile pod owners (issue #25): the softShareDev and handshake annotations
 * are the pod owner's to edit. A running pod that re-arms its {@code predicate-time} must not hand
 * its quotas (and its UID's region directory) to the next pod, and a hostile quota value must not
 * reach the kubelet's admission message raw.
 */
@EnableKubernetesMockClient(crud = true)
class MindClusterSoftShareTenantTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-07-24T10:15:30Z"), ZoneOffset.UTC);
  private static final String R = "huawei.com/Ascend910";
  private static final String CORE = "huawei.com/scheduler.softShareDev.aicoreQuota";
  private static final String HBM = "huawei.com/scheduler.softShareDev.hbmQuota";

  KubernetesClient client;

  @TempDir Path dir;

  private KubeletStandIn kubelet;
  private SimHost host;
  private HealthMonitor health;
  private MindClusterComponents components;
  private PluginFleet fleet;

  @BeforeEach
  void setUp() throws Exception {
    LimiterFiles limiter = LimiterFixture.installInto(dir.resolve("limiter"));
    kubelet = KubeletStandIn.start(dir.resolve("device-plugins"));
    host = new SimHost("910B3x8", dir.resolve("sim"));
    health = MindClusterRegistrationTest.healthOf(host);
    health.pollOnce();
    MindClusterOptions options =
        MindClusterOptions.defaults(VolcanoPodsFixture.NODE)
            .withVolcano(true, true)
            .withShare(100, Optional.of(dir.resolve("softshare")))
            .withRuntime(true, dir.resolve("host"));
    SoftSlices soft =
        new SoftSlices(
            SoftSliceLayout.vnpu(dir.resolve("softshare"), limiter),
            QuotaRegionFactory.writing(new QuotaRegions()),
            LimiterVerifier.forThisMachine(limiter));
    components =
        new MindClusterComponents(
            options,
            client,
            () -> client.pods().inAnyNamespace().list().getItems(),
            host.deviceManager,
            health,
            CLOCK,
            Optional.of(soft));
    components.start(null);
    fleet = new PluginFleet(kubelet, components.resourceManagers());
  }

  @AfterEach
  void tearDown() throws Exception {
    fleet.close();
    components.close();
    health.close();
    host.close();
    kubelet.close();
  }

  private void softPod(String name, String chip, String core, String hbm, String predicateTime) {
    Map<String, String> a = new HashMap<>(Map.of(R, chip, "predicate-time", predicateTime));
    a.put(CORE, core);
    a.put(HBM, hbm);
    Pod p = VolcanoPodsFixture.pod(name, "uid-" + name, R, 1, a);
    client.pods().inNamespace("default").resource(p).createOr(NonDeletingOperation::update);
  }

  private static String regionDir(ContainerAllocateResponse r) {
    return r.getMountsList().stream()
        .filter(m -> m.getContainerPath().equals("/vnpu-shmem"))
        .map(Mount::getHostPath)
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aRunningPodThatReArmsItsPredicateTimeDoesNotHandItsQuotasToTheNextPod() throws Exception {
    softPod("small", "Ascend910-3", "10", "1", "1000000000000000000");
    try (PluginClient plugin = fleet.client(R)) {
      assertThat(plugin.admit(List.of("Ascend910-3-0")).getEnvsMap())
          .containsEntry("NPU_MEM_QUOTA", "1");
      client
          .pods()
          .inNamespace("default")
          .withName("small")
          .edit(
              p -> {
                p.getStatus().setPhase("Running");
                p.getStatus()
                    .setContainerStatuses(
                        List.of(
                            new io.fabric8.kubernetes.api.model.ContainerStatusBuilder()
                                .withName("main")
                                .withNewState()
                                .withNewRunning()
                                .endRunning()
                                .endState()
                                .build()));
                p.getMetadata().getAnnotations().put("predicate-time", "1");
                return p;
              });
      softPod("big", "Ascend910-3", "50", "16384", "2000000000000000000");
      ContainerAllocateResponse big = plugin.admit(List.of("Ascend910-3-1"));
      assertThat(big.getEnvsMap()).containsEntry("NPU_MEM_QUOTA", "16384");
      String uid =
          client.pods().inNamespace("default").withName("big").get().getMetadata().getUid();
      assertThat(regionDir(big))
          .isEqualTo(dir.resolve("softshare/regions").resolve(uid + "_Ascend910-3-1").toString());
      assertThat(annotations(client, "big"))
          .containsEntry("predicate-time", "18446744073709551615")
          .containsEntry("huawei.com/AscendReal", "Ascend910-3");
    }
  }

  @Test
  void aHostileQuotaValueIsQuotedAndCutInTheAdmissionError() throws Exception {
    try (PluginClient plugin = fleet.client(R)) {
      softPod(
          "newline",
          "Ascend910-2",
          "50",
          "1\nI0724 10:15:30 forged kubelet line",
          "1000000000000000000");
      assertThatThrownBy(() -> plugin.admit(List.of("Ascend910-2-0")))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e ->
                  assertThat(e.getStatus().getDescription())
                      .contains(
                          HBM + " = \"1\\nI0724 10:15:30 forged kubelet line\": not a whole number")
                      .doesNotContain("\n"));
      client.pods().inNamespace("default").withName("newline").delete();

      softPod("huge", "Ascend910-2", "9".repeat(200_000), "4096", "1000000000000000000");
      assertThatThrownBy(() -> plugin.admit(List.of("Ascend910-2-1")))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> {
                assertThat(e.getStatus().getDescription())
                    .contains(CORE + " = \"" + "9".repeat(63) + "... (200002 characters)")
                    .hasSizeLessThan(600);
              });
    }
  }
}
