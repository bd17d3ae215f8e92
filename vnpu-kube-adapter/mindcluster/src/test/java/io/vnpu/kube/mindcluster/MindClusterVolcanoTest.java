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
import io.vnpu.kube.deviceplugin.KubeletStandIn;
import io.vnpu.kube.deviceplugin.PluginClient;
import io.vnpu.kube.deviceplugin.v1beta1.Device;
import io.vnpu.kube.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vnpu.kube.mindcluster.config.MindClusterOptions;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Volcano handshake (spec section 3.8) end to end: kubelet stand-in, real gRPC plugin, the
 * simulated 910B3x8 node and the CRUD mock API server holding the pods Volcano placed.
 */
@EnableKubernetesMockClient(crud = true)
class MindClusterVolcanoTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-07-24T10:15:30Z"), ZoneOffset.UTC);
  private static final String R = "huawei.com/Ascend910";

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
    health = MindClusterRegistrationTest.healthOf(host);
    health.pollOnce();
    startPlugin();
  }

  /**
   * The plugin's MindCluster side and its gRPC plugins; again after {@link #stopPlugin()} is an
   * agent restart.
   */
  private void startPlugin() throws Exception {
    MindClusterOptions options =
        MindClusterOptions.defaults(VolcanoPodsFixture.NODE)
            .withVolcano(true, true)
            .withRuntime(true, dir.resolve("host"))
            .withHostIp("10.0.0.7");
    // the mock server has no field selector on spec.nodeName: list all, the plugin filters by node
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

  private void stopPlugin() {
    fleet.close();
    components.close();
  }

  /** The kubelet started the pod's container (phase Running). */
  private void started(String pod) {
    client
        .pods()
        .inNamespace("default")
        .withName(pod)
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
                              .withStartedAt("2026-07-24T10:16:00Z")
                              .endRunning()
                              .endState()
                              .build()));
              return p;
            });
  }

  /** The pod's owner edits its own annotation (pod owners may patch their pods). */
  private void tenantSets(String pod, String key, String value) {
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

  /**
   * Issue #25: a running pod's owner set its own predicate-time back to a small value; the next
   * pod's Allocate then answered with the re-armed pod's chip (one chip to two pods).
   */
  @Test
  void aRunningPodThatReArmsItsPredicateTimeIsNeverServedAgain() throws Exception {
    volcanoPod(client, "first", R, "Ascend910-2", 10L);
    try (PluginClient plugin = fleet.client(R)) {
      assertThat(plugin.admit(List.of("Ascend910-0")).getEnvsMap())
          .containsEntry("ASCEND_VISIBLE_DEVICES", "2");
      started("first");
      tenantSets("first", "predicate-time", "1");
      volcanoPod(client, "second", R, "Ascend910-3", 20L);
      assertThat(plugin.admit(List.of("Ascend910-1")).getEnvsMap())
          .containsEntry("ASCEND_VISIBLE_DEVICES", "3");
      assertThat(annotations(client, "second"))
          .containsEntry("predicate-time", "18446744073709551615")
          .containsEntry("huawei.com/AscendReal", "Ascend910-3");
      assertThat(annotations(client, "first"))
          .containsEntry("huawei.com/AscendReal", "Ascend910-2")
          .containsEntry("predicate-time", "1");

      // not started yet but already served (AscendReal written): not a candidate either
      volcanoPod(client, "third", R, "Ascend910-4", 30L);
      assertThat(plugin.admit(List.of("Ascend910-6")).getEnvsMap())
          .containsEntry("ASCEND_VISIBLE_DEVICES", "4");
      tenantSets("third", "predicate-time", "2");
      assertThatThrownBy(() -> plugin.admit(List.of("Ascend910-7")))
          .hasMessageContaining("no pod on this node waits for 1 chip(s) of huawei.com/Ascend910");
    }
  }

  /**
   * A pod whose annotation was written by its owner (bound to the node by hand, Pending) names as
   * many chips as the kubelet allocates, with the smallest predicate-time, but its spec asks for
   * fewer: it is not the pod being admitted.
   */
  @Test
  void aPodIsServedOnlyWhenItsSpecAsksForTheChipsTheKubeletAllocates() throws Exception {
    client
        .pods()
        .inNamespace("default")
        .resource(
            VolcanoPodsFixture.pod(
                "decoy",
                "uid-decoy",
                R,
                1,
                Map.of(R, "Ascend910-4,Ascend910-5", "predicate-time", "1")))
        .create();
    volcanoPod(client, "pair", R, "Ascend910-6,Ascend910-7", 30L);
    try (PluginClient plugin = fleet.client(R)) {
      assertThat(plugin.admit(List.of("Ascend910-0", "Ascend910-1")).getEnvsMap())
          .containsEntry("ASCEND_VISIBLE_DEVICES", "6,7");
    }
    assertThat(annotations(client, "decoy"))
        .containsEntry("predicate-time", "1")
        .doesNotContainKey("huawei.com/AscendReal");
  }

  /**
   * Issue #25: after a restart the kubelet-ID → real-chip map was empty, so a fault on real chip 0
   * no longer marked the kubelet ID holding it Unhealthy; it is rebuilt from the pods' {@code
   * huawei.com/kltDev} and {@code huawei.com/AscendReal}.
   */
  @Test
  void afterARestartAFaultOnTheRealChipStillReachesTheKubeletIdHoldingIt() throws Exception {
    volcanoPod(client, "train", R, "Ascend910-0", 10L);
    try (PluginClient plugin = fleet.client(R)) {
      assertThat(plugin.admit(List.of("Ascend910-2")).getEnvsMap())
          .containsEntry("ASCEND_VISIBLE_DEVICES", "0");
    }
    started("train");
    stopPlugin();
    startPlugin();
    assertThat(components.kubeletMap().realOf("Ascend910-2")).hasValue("Ascend910-0");
    try (PluginClient plugin = fleet.client(R);
        PluginClient.ListAndWatchRecorder law = plugin.listAndWatch()) {
      assertThat(law.next(WAIT).getDevicesList())
          .extracting(Device::getHealth)
          .containsOnly("Healthy");
      host.ctl("fault", "0", "0x80E01801");
      health.pollOnce();
      assertThat(law.next(WAIT).getDevicesList())
          .filteredOn(d -> d.getHealth().equals("Unhealthy"))
          .extracting(Device::getID)
          .containsExactlyInAnyOrder("Ascend910-0", "Ascend910-2");
    }
    // a pod naming another pod's kubelet ID in its kltDev does not take it over
    client
        .pods()
        .inNamespace("default")
        .resource(
            VolcanoPodsFixture.pod(
                "forger",
                "uid-forger",
                R,
                1,
                Map.of(
                    R,
                    "Ascend910-5",
                    "huawei.com/kltDev",
                    "Ascend910-2",
                    "huawei.com/AscendReal",
                    "Ascend910-5")))
        .create();
    stopPlugin();
    startPlugin();
    assertThat(components.kubeletMap().realOf("Ascend910-2")).isEmpty();
  }

  @AfterEach
  void tearDown() throws Exception {
    fleet.close();
    components.close();
    health.close();
    host.close();
    kubelet.close();
  }

  private String uid(String pod) {
    return client.pods().inNamespace("default").withName(pod).get().getMetadata().getUid();
  }

  @Test
  void twoPendingPodsAreServedBySmallestPredicateTimeWithTheAnnotatedChips() throws Exception {
    volcanoPod(client, "late", R, "Ascend910-4,Ascend910-5", 2_000_000_000_000_000_000L);
    volcanoPod(client, "early", R, "Ascend910-0,Ascend910-1", 1_000_000_000_000_000_000L);
    // chip 1's RoCE port has no address (as on a node where hccn_tool has not set it yet)
    host.ctl("ip", "1", "none");
    components.refreshOnce();
    try (PluginClient plugin = fleet.client(R);
        PluginClient.ListAndWatchRecorder law = plugin.listAndWatch()) {
      law.next(WAIT);
      assertThat(
              plugin
                  .allocate(List.of(List.of("Ascend910-6", "Ascend910-7")))
                  .getContainerResponses(0)
                  .getEnvsMap())
          .isEqualTo(Map.of("ASCEND_VISIBLE_DEVICES", "0,1", "ASCEND_RUNTIME_OPTIONS", ""));
      Map<String, String> early = annotations(client, "early");
      assertThat(early)
          .containsEntry("predicate-time", "18446744073709551615")
          .containsEntry("huawei.com/AscendReal", "Ascend910-0,Ascend910-1")
          .containsEntry("huawei.com/kltDev", "Ascend910-6,Ascend910-7")
          .containsEntry(
              "ascend.kubectl.kubernetes.io/ascend-910-configuration",
              "{\"pod_name\":\"early\",\"server_id\":\""
                  + uid("early")
                  + "\",\"host_ip\":\"10.0.0.7\",\"super_pod_id\":-2,"
                  + "\"devices\":[{\"device_id\":\"0\",\"device_ip\":\"192.168.100.101\",\"super_device_id\":\"0\"},"
                  + "{\"device_id\":\"1\",\"device_ip\":\"-1\",\"super_device_id\":\"0\"}],"
                  + "\"rack_id\":-1,\"server_index\":\"-2\",\"server_ip\":\"10.0.0.7\"}");
      assertThat(annotations(client, "late"))
          .containsEntry("predicate-time", "2000000000000000000")
          .doesNotContainKey("huawei.com/AscendReal");

      assertThat(
              plugin
                  .allocate(List.of(List.of("Ascend910-2", "Ascend910-3")))
                  .getContainerResponses(0)
                  .getEnvsMap())
          .containsEntry("ASCEND_VISIBLE_DEVICES", "4,5");
      assertThat(annotations(client, "late"))
          .containsEntry("predicate-time", "18446744073709551615")
          .containsEntry("huawei.com/AscendReal", "Ascend910-4,Ascend910-5");

      assertThatThrownBy(() -> plugin.allocate(List.of(List.of("Ascend910-0", "Ascend910-1"))))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining("no pod on this node waits for 2 chip(s) of huawei.com/Ascend910");

      // the kubelet holds Ascend910-6 for pod early, whose real chip 0 faults
      host.ctl("fault", "0", "0x80E01801");
      health.pollOnce();
      ListAndWatchResponse bad = law.next(WAIT);
      assertThat(bad.getDevicesList())
          .filteredOn(d -> d.getHealth().equals("Unhealthy"))
          .extracting(Device::getID)
          .containsExactlyInAnyOrder("Ascend910-0", "Ascend910-6");

      // pod early is deleted: its kubelet IDs report their own chips again
      client.pods().inNamespace("default").withName("early").delete();
      components.refreshOnce();
      assertThat(components.kubeletMap().pods()).containsExactly(uid("late"));
      assertThat(components.resourceManager(R).orElseThrow().devices())
          .filteredOn(d -> !d.healthy())
          .extracting(d -> d.id())
          .containsExactly("Ascend910-0");
    }
  }

  @Test
  void aChipHeldByAnotherPodIsNeverHandedOutTwice() throws Exception {
    volcanoPod(client, "first", R, "Ascend910-2", 10L);
    try (PluginClient plugin = fleet.client(R)) {
      assertThat(
              plugin
                  .allocate(List.of(List.of("Ascend910-0")))
                  .getContainerResponses(0)
                  .getEnvsMap())
          .containsEntry("ASCEND_VISIBLE_DEVICES", "2");
      volcanoPod(client, "second", R, "Ascend910-2", 20L);
      assertThatThrownBy(() -> plugin.allocate(List.of(List.of("Ascend910-1"))))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining(
              "pod default/second was given Ascend910-2 by Volcano, but default/first holds it;"
                  + " refusing to hand one chip to two pods");
      assertThat(annotations(client, "second"))
          .containsEntry("predicate-time", "20")
          .doesNotContainKey("huawei.com/AscendReal");
    }
  }

  /**
   * A tenant rewrites its own running pod's {@code huawei.com/AscendReal}: adding a free chip made
   * the next pod Volcano gave that chip fail its Allocate ("default/first holds it"), so one
   * tenant's annotation denied every later pod of the node its chips; dropping the chip it holds
   * must not free it for another pod either. What this plugin handed out decides.
   */
  @Test
  void aTenantRewritingItsOwnAscendRealNeitherDeniesNorFreesAChip() throws Exception {
    volcanoPod(client, "first", R, "Ascend910-2", 10L);
    try (PluginClient plugin = fleet.client(R)) {
      assertThat(plugin.admit(List.of("Ascend910-0")).getEnvsMap())
          .containsEntry("ASCEND_VISIBLE_DEVICES", "2");
      started("first");
      tenantSets("first", "huawei.com/AscendReal", "Ascend910-2,Ascend910-5,Ascend910-6");
      volcanoPod(client, "second", R, "Ascend910-5", 20L);
      assertThat(plugin.admit(List.of("Ascend910-1")).getEnvsMap())
          .containsEntry("ASCEND_VISIBLE_DEVICES", "5");

      tenantSets("first", "huawei.com/AscendReal", "Ascend910-7");
      volcanoPod(client, "third", R, "Ascend910-2", 30L);
      assertThatThrownBy(() -> plugin.admit(List.of("Ascend910-3")))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining("pod default/third was given Ascend910-2 by Volcano, but");
      assertThat(annotations(client, "third")).doesNotContainKey("huawei.com/AscendReal");
    }
  }

  @Test
  void aPodNamingAChipThisNodeLacksIsRefused() throws Exception {
    volcanoPod(client, "odd", R, "Ascend910-12", 10L);
    try (PluginClient plugin = fleet.client(R)) {
      assertThatThrownBy(() -> plugin.allocate(List.of(List.of("Ascend910-0"))))
          .isInstanceOf(StatusRuntimeException.class)
          .hasMessageContaining(
              "pod default/odd: annotation huawei.com/Ascend910 = Ascend910-12 names Ascend910-12,"
                  + " which is not a chip of huawei.com/Ascend910 on this node");
    }
  }
}
