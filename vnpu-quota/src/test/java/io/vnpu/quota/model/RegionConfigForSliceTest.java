package io.vnpu.quota.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.model.Priority;
import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The one rule for a slice's region: policy flags and per-device limits. */
class RegionConfigForSliceTest {

  private static SliceDevice soft(int phy, long bytes, int weight, int cap, Priority p) {
    return new SliceDevice(new NpuRef(phy, "U" + phy), new SliceShare.SoftQuota(bytes, weight, cap, p));
  }

  @Test
  void memoryOnlyWhenNoDeviceHasAWeight() {
    RegionConfig c = RegionConfig.forSlice(List.of(soft(2, 1L << 30, 0, 0, Priority.NORMAL)), "/reg");
    assertThat(c.policy()).isEqualTo(Set.of(PolicyFlag.MEM_ENFORCE));
    assertThat(c.devices()).containsExactly(new DeviceQuota(1L << 30, 100, 0, Priority.NORMAL, 2, "U2"));
    assertThat(c.registryDir()).isEqualTo("/reg");
  }

  @Test
  void computeFailOpenWithAWeightAndHardCapWithACeiling() {
    RegionConfig c = RegionConfig.forSlice(List.of(soft(4, 16L << 30, 40, 0, Priority.NORMAL),
        soft(5, 8L << 30, 0, 30, Priority.HIGH)), "");
    assertThat(c.policy()).isEqualTo(Set.of(PolicyFlag.MEM_ENFORCE, PolicyFlag.COMPUTE_ENFORCE,
        PolicyFlag.COMPUTE_FAIL_OPEN, PolicyFlag.HARD_CAP));
    assertThat(c.devices()).containsExactly(new DeviceQuota(16L << 30, 40, 0, Priority.NORMAL, 4, "U4"),
        new DeviceQuota(8L << 30, 100, 30, Priority.HIGH, 5, "U5"));
  }

  @Test
  void aNonSoftDeviceIsRefused() {
    assertThatThrownBy(() -> RegionConfig.forSlice(List.of(new SliceDevice(new NpuRef(0, "U0"),
        new SliceShare.HardTemplate("vir02"))), ""))
        .hasMessage("device U0 has a HARD share, not a soft quota");
  }
}
