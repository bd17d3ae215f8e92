package io.vnpu.kube.hami;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.config.DeviceConfig;
import io.vnpu.api.config.DeviceConfigLoader;
import io.vnpu.api.config.NodeConfig;
import io.vnpu.api.config.NodeConfigLoader;
import io.vnpu.api.testing.HamiFixtures;
import io.vnpu.kube.hami.config.HamiChipSettings;
import io.vnpu.kube.hami.config.HamiNodeSettings;
import io.vnpu.kube.hami.config.VDeviceCount;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The HAMi settings from the real upstream ConfigMaps (protocol spec section 5.3 table). */
class SharedConfigTest {
  @Test
  void upstreamConfigMapsGiveTheDocumentedValues() {
    DeviceConfig dc =
        new DeviceConfigLoader().load(HamiFixtures.file("ascend-device-configmap.yaml")).value();
    NodeConfig nc =
        new NodeConfigLoader().load(HamiFixtures.file("ascend-device-node-configmap.yaml")).value();
    HamiChipSettings b3 = HamiChipSettings.from(dc.forChipName("910B3").orElseThrow());
    assertThat(b3.commonWord()).isEqualTo("Ascend910B3");
    assertThat(b3.resourceName()).isEqualTo("huawei.com/Ascend910B3");
    assertThat(b3.memoryAllocatableMib()).isEqualTo(65536);
    assertThat(b3.aiCore()).isEqualTo(20);
    assertThat(b3.templates())
        .extracting(t -> t.name())
        .containsExactly("vir05_1c_16g", "vir10_3c_32g");
    assertThat(VDeviceCount.of(b3, HamiNodeSettings.from(dc, Optional.empty()))).isEqualTo(4);
    HamiChipSettings p310 = HamiChipSettings.from(dc.forChipName("310P3").orElseThrow());
    assertThat(VDeviceCount.of(p310, HamiNodeSettings.defaults(false))).isEqualTo(7);
    HamiChipSettings a = HamiChipSettings.from(dc.forChipName("910A").orElseThrow());
    assertThat(VDeviceCount.of(a, HamiNodeSettings.defaults(false))).isEqualTo(15);

    HamiNodeSettings worker1 = HamiNodeSettings.from(dc, nc.forNode("worker-1"));
    assertThat(worker1.hamiVnpuCore()).isTrue();
    assertThat(VDeviceCount.of(b3, worker1)).isEqualTo(8);
    HamiNodeSettings other = HamiNodeSettings.from(dc, nc.forNode("worker-2"));
    assertThat(other.hamiVnpuCore()).isFalse();
    assertThat(
            RegisterPayload.of(
                    new io.vnpu.kube.hami.devices.NodeDevices(
                        java.util.List.of(FakeDeviceManager.npu("U0", 0, 0))),
                    b3,
                    worker1)
                .get(0)
                .devcore())
        .isEqualTo(100);
  }
}
