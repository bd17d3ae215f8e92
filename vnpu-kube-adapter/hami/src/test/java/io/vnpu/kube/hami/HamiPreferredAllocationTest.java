package io.vnpu.kube.hami;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vnpu.api.model.Npu;
import io.vnpu.api.model.VnpuTemplate;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import io.vnpu.kube.resource.PluginDevice;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * GetPreferredAllocation of the HAMi resource manager: spread over NPUs, HCCS groups of four on
 * 910.
 */
@EnableKubernetesMockClient(crud = true)
class HamiPreferredAllocationTest {
  KubernetesClient client;

  private HamiResourceManager manager(String chipName, String cw) {
    List<Npu> npus =
        IntStream.range(0, 8)
            .mapToObj(i -> FakeDeviceManager.npu("U" + i, i, i, chipName))
            .toList();
    HamiChipSettings chip =
        new HamiChipSettings(
            chipName,
            cw,
            "huawei.com/" + cw,
            65536,
            65536,
            20,
            List.of(new VnpuTemplate("t", 16384, 5, 1)));
    HamiComponents c =
        new HamiComponents(
            client,
            new FakeDeviceManager(npus),
            chip,
            HamiNodeSettings.defaults(false),
            HamiOptions.defaults(KubeFixtures.NODE),
            new MutableClock(Instant.EPOCH),
            new RecordingScheduler());
    c.inventory().refresh();
    return c.resourceManager();
  }

  @Test
  void ascend910KeepsAContainerInOneHccsGroup() {
    HamiResourceManager m = manager("910B3", "Ascend910B3");
    List<String> all = m.devices().stream().map(PluginDevice::id).toList();
    assertThat(all).hasSize(32);
    assertThat(m.preferredAllocation(all, List.of(), 2)).containsExactly("U0-0", "U1-0");
    assertThat(m.preferredAllocation(all, List.of("U5-2"), 3))
        .containsExactly("U5-2", "U4-0", "U6-0");
    // four NPUs of group 0 taken: the next container of four fits group 1 whole
    List<String> rest = all.stream().filter(id -> !id.matches("U[0-3]-.*")).toList();
    assertThat(m.preferredAllocation(rest, List.of(), 4))
        .containsExactly("U4-0", "U5-0", "U6-0", "U7-0");
  }

  @Test
  void ascend310PSpreadsOnly() {
    HamiResourceManager m = manager("310P3", "Ascend310P");
    List<String> some = List.of("U3-0", "U3-1", "U4-0", "U5-0");
    assertThat(m.preferredAllocation(some, List.of(), 3)).containsExactly("U3-0", "U4-0", "U5-0");
  }
}
