package io.vnpu.kube.hami;

import static io.vnpu.kube.hami.KubeFixtures.node;
import static io.vnpu.kube.hami.KubeFixtures.nodeAnnotations;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.api.config.DeviceConfig;
import io.vnpu.api.config.DeviceConfigLoader;
import io.vnpu.api.config.NodeConfig;
import io.vnpu.api.config.NodeConfigLoader;
import io.vnpu.api.testing.HamiFixtures;
import io.vnpu.kube.agent.AgentEnvironment;
import io.vnpu.kube.agent.NodeAgentOptions;
import io.vnpu.kube.app.HamiBackend;
import io.vnpu.kube.resource.PluginDevice;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node agent's HAMi backend built from the real upstream configs, registering on its own
 * thread.
 */
@EnableKubernetesMockClient(crud = true)
class HamiBackendTest {
  KubernetesClient client;

  @TempDir Path hook;

  @Test
  void backendFromAgentEnvironmentAdvertisesAndRegisters() throws Exception {
    Path deviceFile = HamiFixtures.file("ascend-device-configmap.yaml");
    Path nodeFile = HamiFixtures.file("ascend-device-node-configmap.yaml");
    DeviceConfig dc = new DeviceConfigLoader().load(deviceFile).value();
    NodeConfig nc = new NodeConfigLoader().load(nodeFile).value();
    FakeDeviceManager dm =
        new FakeDeviceManager(
            List.of(FakeDeviceManager.npu("U0", 0, 0), FakeDeviceManager.npu("U1", 1, 1)));
    NodeAgentOptions o =
        new NodeAgentOptions(
            deviceFile,
            Optional.of(nodeFile),
            KubeFixtures.NODE,
            Duration.ofSeconds(60),
            Duration.ofSeconds(1),
            0,
            hook.resolve("kubelet"),
            Optional.empty(),
            Optional.empty());
    AgentEnvironment env =
        new AgentEnvironment(
            o,
            dc,
            nc,
            nc.forNode(KubeFixtures.NODE),
            dc.forChipName("910B3").orElseThrow(),
            dm.discover(),
            dm);
    node(client, Map.of());
    try (HamiBackend backend =
        HamiBackend.create(env, Map.of("HOOK_PATH", hook.toString()), client)) {
      backend.start();
      assertThat(backend.resourceManager().resourceName()).isEqualTo("huawei.com/Ascend910B3");
      assertThat(backend.resourceManager().devices())
          .extracting(PluginDevice::id)
          .containsExactly("U0-0", "U0-1", "U0-2", "U0-3", "U1-0", "U1-1", "U1-2", "U1-3");
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!nodeAnnotations(client).containsKey("hami.io/node-register-Ascend910B3")
          && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(nodeAnnotations(client))
          .containsEntry("hami-vnpu-core", "false")
          .containsKey("hami.io/node-handshake-Ascend910B3");
      assertThat(nodeAnnotations(client).get("hami.io/node-register-Ascend910B3"))
          .startsWith(
              "[{\"id\":\"U0\",\"count\":4,\"devmem\":65536,\"devcore\":20,\"type\":\"Ascend910B3\"");
      // the preferred allocation spreads over NPUs
      assertThat(
              backend
                  .resourceManager()
                  .preferredAllocation(List.of("U0-0", "U0-1", "U1-0", "U1-1"), List.of(), 2))
          .containsExactly("U0-0", "U1-0");
    }
  }
}
