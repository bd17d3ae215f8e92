package io.vnpu.kube.mindcluster;

import static io.vnpu.kube.mindcluster.PluginFleet.WAIT;
import static io.vnpu.kube.mindcluster.VolcanoPodsFixture.annotations;
import static io.vnpu.kube.mindcluster.VolcanoPodsFixture.volcanoPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.StatusRuntimeException;
import io.vnpu.api.fault.HealthMonitor;
import io.vnpu.api.model.Vnpu;
import io.vnpu.kube.deviceplugin.KubeletStandIn;
import io.vnpu.kube.deviceplugin.PluginClient;
import io.vnpu.kube.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dynamic vNPU mode (spec section 3.10) end to end on the simulated 910B3x8 node: one {@code
 * npu-core} device per AI Core with NUMA-free topology, a vNPU created at Allocate from the pod's
 * {@code huawei.com/npu-core} annotation, and vNPUs no pod references destroyed.
 */
@EnableKubernetesMockClient(crud = true)
class MindClusterDynamicVnpuTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-07-24T10:15:30Z"), ZoneOffset.UTC);
  private static final String R = "huawei.com/npu-core";

  KubernetesClient client;

  @TempDir Path dir;

  private KubeletStandIn kubelet;
  private SimHost host;
  private HealthMonitor health;
  private MindClusterComponents components;
  private PluginFleet fleet;

  @BeforeEach
  void setUp() throws Exception {
    kubelet = KubeletStandIn.start(dir.resolve("device-plugins"));
    host = new SimHost("910B3x8", dir.resolve("sim"));
    // left over from an earlier run: no pod references it
    assertThat(host.ctl("create", "3", "vir10_3c_32g").trim()).isEqualTo("148");
    health = MindClusterRegistrationTest.healthOf(host);
    health.pollOnce();
    MindClusterOptions options =
        MindClusterOptions.defaults(VolcanoPodsFixture.NODE)
            .withVolcano(true, false)
            .withRuntime(true, dir.resolve("host"));
    components =
        new MindClusterComponents(
            options,
            client,
            () -> client.pods().inAnyNamespace().list().getItems(),
            host.deviceManager,
            health,
            CLOCK);
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

  private static List<String> cores(int from, int n) {
    return IntStream.range(from, from + n).mapToObj(k -> "npu-core-" + k).toList();
  }

  @Test
  void createsTheAnnotatedVnpuAtAllocateAndDestroysUnreferencedOnes() throws Exception {
    assertThat(fleet.registrations.keySet()).containsExactly(R);
    try (PluginClient plugin = fleet.client(R);
        PluginClient.ListAndWatchRecorder law = plugin.listAndWatch()) {
      ListAndWatchResponse first = law.next(WAIT);
      assertThat(first.getDevicesList()).hasSize(160);
      assertThat(first.getDevicesList().get(0).getID()).isEqualTo("npu-core-0");
      assertThat(first.getDevicesList().get(159).getID()).isEqualTo("npu-core-159");

      volcanoPod(client, "infer", R, "2-vir05_1c_16g", 100L, 5);
      Map<String, String> env =
          plugin.allocate(List.of(cores(40, 5))).getContainerResponses(0).getEnvsMap();
      assertThat(env)
          .containsEntry("ASCEND_VISIBLE_DEVICES", "132")
          .containsEntry("ASCEND_RUNTIME_OPTIONS", "VIRTUAL")
          .containsEntry("WORLD_SIZE", "1")
          .containsEntry("LOCAL_WORLD_SIZE", "1")
          .containsEntry("LOCAL_RANK", "0")
          .containsEntry("MS_WORKER_NUM", "1")
          .containsEntry("CM_WORKER_SIZE", "1");
      assertThat(annotations(client, "infer"))
          .containsEntry("huawei.com/AscendReal", "Ascend910-5c.1cpu.16g-132-2")
          .containsEntry("predicate-time", "18446744073709551615")
          .containsEntry("huawei.com/kltDev", String.join(",", cores(40, 5)));
      assertThat(host.deviceManager.listVnpus(2))
          .extracting(Vnpu::vnpuId, Vnpu::templateName)
          .containsExactly(org.assertj.core.groups.Tuple.tuple(132, "vir05_1c_16g"));
      // the stale vNPU on chip 3 was destroyed before the create
      assertThat(host.deviceManager.listVnpus(3)).isEmpty();

      // a count that matches no pending pod
      volcanoPod(client, "big", R, "4-vir10_3c_32g", 200L, 10);
      assertThatThrownBy(() -> plugin.allocate(List.of(cores(0, 5))))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining(
              "no pod on this node waits for 5 AI Core(s) of huawei.com/npu-core");

      // the pod ends: its vNPU goes at the next refresh
      client.pods().inNamespace("default").withName("infer").delete();
      components.refreshOnce();
      assertThat(host.deviceManager.listVnpus(2)).isEmpty();
    }
  }

  @Test
  void wholeChipsAreAMultipleOfTheChipsCores() throws Exception {
    volcanoPod(client, "train", R, "0,1", 100L, 40);
    try (PluginClient plugin = fleet.client(R)) {
      Map<String, String> env =
          plugin.allocate(List.of(cores(0, 40))).getContainerResponses(0).getEnvsMap();
      assertThat(env)
          .containsEntry("ASCEND_VISIBLE_DEVICES", "0,1")
          .containsEntry("ASCEND_RUNTIME_OPTIONS", "")
          .containsEntry("WORLD_SIZE", "2")
          .containsEntry("LOCAL_RANK", "0,1");
      assertThat(annotations(client, "train"))
          .containsEntry("huawei.com/AscendReal", "Ascend910-0,Ascend910-1");

      // a vNPU on a chip held whole by another pod is refused
      volcanoPod(client, "squeeze", R, "1-vir05_1c_16g", 200L, 5);
      assertThatThrownBy(() -> plugin.allocate(List.of(cores(60, 5))))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining(
              "default/train holds Ascend910-1; refusing to hand one chip to two pods");
      assertThat(host.deviceManager.listVnpus(1)).isEmpty();
    }
  }

  /**
   * A tenant rewrites its own pod's {@code huawei.com/AscendReal} after its vNPU on chip 2 was
   * created and opened: dropping the vNPU's name let the next pod have chip 2 whole (two pods on
   * one chip, the whole-chip one without any limit); adding chip 3 refused the pod Volcano gave
   * chip 3. What this plugin handed out decides.
   */
  @Test
  void aTenantRewritingItsOwnAscendRealNeitherFreesItsChipNorHoldsAnother() throws Exception {
    volcanoPod(client, "infer", R, "2-vir05_1c_16g", 100L, 5);
    try (PluginClient plugin = fleet.client(R)) {
      assertThat(plugin.allocate(List.of(cores(40, 5))).getContainerResponses(0).getEnvsMap())
          .containsEntry("ASCEND_VISIBLE_DEVICES", "132");
      host.ctl("use", "2", "132", "1"); // its container opened the vNPU

      editAnnotation("infer", "huawei.com/AscendReal", "Ascend910-3");
      volcanoPod(client, "whole2", R, "2", 200L, 20);
      assertThatThrownBy(() -> plugin.allocate(List.of(cores(60, 20))))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining(
              "pod default/whole2 was given Ascend910-2 by Volcano, but default/infer holds"
                  + " Ascend910-5c.1cpu.16g-132-2");
      assertThat(annotations(client, "whole2")).containsEntry("predicate-time", "200");
      client.pods().inNamespace("default").withName("whole2").delete();

      volcanoPod(client, "whole3", R, "3", 300L, 20);
      assertThat(plugin.allocate(List.of(cores(60, 20))).getContainerResponses(0).getEnvsMap())
          .containsEntry("ASCEND_VISIBLE_DEVICES", "3");
      assertThat(host.deviceManager.listVnpus(2)).hasSize(1);
    }
  }

  /** The pod's owner edits its own annotation (pod owners may patch their pods). */
  private void editAnnotation(String pod, String key, String value) {
    client
        .pods()
        .inNamespace("default")
        .withName(pod)
        .edit(
            p -> {
              p.getMetadata().getAnnotations().put(key, value);
              return p;
            });
  }

  @Test
  void aTemplateTheDriverRefusesIsNpuSegmentFailedAndConsumesNothing() throws Exception {
    // chip 5 is full: a vir10 plus another vir10 leave no AI Core for the pod's vir05
    host.ctl("create", "5", "vir10_3c_32g");
    host.ctl("create", "5", "vir10_3c_32g");
    volcanoPod(client, "holder", R, "0", 1L, 20);
    client
        .pods()
        .inNamespace("default")
        .withName("holder")
        .edit(
            p -> {
              p.getMetadata()
                  .getAnnotations()
                  .put(
                      "huawei.com/AscendReal",
                      "Ascend910-10c.3cpu.32g-180-5,Ascend910-10c.3cpu.32g-181-5");
              p.getMetadata().getAnnotations().put("predicate-time", "18446744073709551615");
              return p;
            });
    volcanoPod(client, "late", R, "5-vir05_1c_16g", 300L, 5);
    try (PluginClient plugin = fleet.client(R)) {
      assertThatThrownBy(() -> plugin.allocate(List.of(cores(100, 5))))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining(
              "NPUSegmentFailed: create vNPU vir05_1c_16g on Ascend910-5 for pod default/late");
      assertThat(annotations(client, "late")).containsEntry("predicate-time", "300");
      assertThat(host.deviceManager.listVnpus(5)).hasSize(2);
    }
  }
}
