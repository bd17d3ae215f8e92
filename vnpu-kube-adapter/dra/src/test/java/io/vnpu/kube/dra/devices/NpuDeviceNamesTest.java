package io.vnpu.kube.dra.devices;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.model.Npu;
import io.vnpu.kube.testing.MutableDeviceManager;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class NpuDeviceNamesTest {

  @Test
  void aChipsSoftShareDeviceNamesTheSameChip() {
    assertThat(NpuDeviceNames.of(3)).isEqualTo("npu-3");
    assertThat(NpuDeviceNames.soft(3)).isEqualTo("npu-3-soft");
    assertThat(NpuDeviceNames.phyIdOf("npu-3-soft")).isEqualTo(OptionalInt.of(3));
    assertThat(NpuDeviceNames.phyIdOf("npu-12")).isEqualTo(OptionalInt.of(12));
    assertThat(NpuDeviceNames.isSoft("npu-3-soft")).isTrue();
    assertThat(NpuDeviceNames.isSoft("npu-3")).isFalse();
    assertThat(NpuDeviceNames.phyIdOf("npu-3-hard")).isEmpty();
    assertThat(NpuDeviceNames.phyIdOf("npu-03")).isEmpty();
    assertThat(NpuDeviceNames.isSoft("npu-3-softer")).isFalse();
  }

  @Test
  void theInventoryFindsAChipByEitherOfItsDevices() {
    NpuInventory inventory = new NpuInventory();
    inventory.update(MutableDeviceManager.eight910b3());
    Npu three = inventory.find("npu-3").orElseThrow();
    assertThat(three.phyId()).isEqualTo(3);
    assertThat(inventory.find("npu-3-soft")).contains(three);
    assertThat(inventory.find("npu-9-soft")).isEmpty();
    assertThat(inventory.find("npu-3-hard")).isEmpty();
  }
}
