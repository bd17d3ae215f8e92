package io.vnpu.kube.dra.slices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.vnpu.api.model.Npu;
import io.vnpu.kube.testing.MutableDeviceManager;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChipCountersTest {

  static Device named(String name) {
    return new DeviceBuilder().withName(name).build();
  }

  @Test
  void aChipOfferedTwiceGetsItsCounterSetAndBothDevicesTakeAllOfIt() {
    Npu b3 = MutableDeviceManager.npu910b3(2, 2, 0); // 64 GiB, 20 AI Cores
    Npu other = MutableDeviceManager.npu910b3(3, 3, 0);
    PoolContent p =
        ChipCounters.pool(
            List.of(
                new ChipCounters.ChipDevices(b3, List.of(named("npu-2"), named("npu-2-soft"))),
                new ChipCounters.ChipDevices(other, List.of(named("npu-3")))),
            true);
    assertThat(p.counterSets())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.getName()).isEqualTo("npu-2-counters");
              assertThat(c.getCounters()).containsOnlyKeys("memory", "aicore");
              assertThat(c.getCounters().get("memory").getValue()).isEqualTo(new Quantity("64Gi"));
              assertThat(c.getCounters().get("aicore").getValue()).isEqualTo(new Quantity("20"));
            });
    assertThat(p.devices())
        .extracting(Device::getName)
        .containsExactly("npu-2", "npu-2-soft", "npu-3");
    for (Device d : p.devices().subList(0, 2)) {
      assertThat(d.getConsumesCounters())
          .singleElement()
          .satisfies(
              c -> {
                assertThat(c.getCounterSet()).isEqualTo("npu-2-counters");
                assertThat(c.getCounters().get("memory").getValue())
                    .isEqualTo(new Quantity("64Gi"));
                assertThat(c.getCounters().get("aicore").getValue()).isEqualTo(new Quantity("20"));
              });
    }
    // a chip offered once has nothing to exclude
    assertThat(p.devices().get(2).getConsumesCounters()).isNullOrEmpty();
  }

  @Test
  void withoutCountersAChipMayNotBeOfferedTwice() {
    Npu b3 = MutableDeviceManager.npu910b3(2, 2, 0);
    assertThat(
            ChipCounters.pool(
                    List.of(new ChipCounters.ChipDevices(b3, List.of(named("npu-2")))), false)
                .devices())
        .extracting(Device::getName)
        .containsExactly("npu-2");
    assertThatThrownBy(
            () ->
                ChipCounters.pool(
                    List.of(
                        new ChipCounters.ChipDevices(
                            b3, List.of(named("npu-2"), named("npu-2-soft")))),
                    false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("chip with phy ID 2 is offered through 2 devices without shared counters");
  }
}
