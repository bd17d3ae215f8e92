package io.vnpu.quota.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.model.Priority;
import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.SharingPolicy;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The one rule for a slice's region: policy flags and per-device limits. */
class RegionConfigForSliceTest {

  private static SliceDevice soft(int phy, long bytes, int weight, int cap, Priority p) {
    return new SliceDevice(
        new NpuRef(phy, "U" + phy), new SliceShare.SoftQuota(bytes, weight, cap, p));
  }

  @Test
  void memoryOnlyWhenNoDeviceHasAWeight() {
    RegionConfig c =
        RegionConfig.forSlice(List.of(soft(2, 1L << 30, 0, 0, Priority.NORMAL)), "/reg");
    assertThat(c.policy()).isEqualTo(Set.of(PolicyFlag.MEM_ENFORCE));
    assertThat(c.devices())
        .containsExactly(new DeviceQuota(1L << 30, 100, 0, Priority.NORMAL, 2, "U2"));
    assertThat(c.registryDir()).isEqualTo("/reg");
  }

  @Test
  void computeFailOpenWithAWeightAndHardCapWithACeiling() {
    RegionConfig c =
        RegionConfig.forSlice(
            List.of(
                soft(4, 16L << 30, 40, 0, Priority.NORMAL),
                soft(5, 8L << 30, 0, 30, Priority.HIGH)),
            "");
    assertThat(c.policy())
        .isEqualTo(
            Set.of(
                PolicyFlag.MEM_ENFORCE,
                PolicyFlag.COMPUTE_ENFORCE,
                PolicyFlag.COMPUTE_FAIL_OPEN,
                PolicyFlag.HARD_CAP));
    assertThat(c.devices())
        .containsExactly(
            new DeviceQuota(16L << 30, 40, 0, Priority.NORMAL, 4, "U4"),
            new DeviceQuota(8L << 30, 100, 30, Priority.HIGH, 5, "U5"));
  }

  @Test
  void theSharingPolicyIsTheRegionsAndAFixedShareIsItsOwnCeiling() {
    SliceDevice fixed =
        new SliceDevice(
            new NpuRef(1, "U1"),
            new SliceShare.SoftQuota(1L << 30, 25, 0, Priority.NORMAL)
                .withPolicy(SharingPolicy.FIXED_SHARE));
    RegionConfig c = RegionConfig.forSlice(List.of(fixed), "/reg");
    assertThat(c.policy()).contains(PolicyFlag.FIXED_SHARE, PolicyFlag.HARD_CAP);
    assertThat(c.sharingPolicy()).contains(SharingPolicy.FIXED_SHARE);
    assertThat(c.devices().get(0).computeCapPct()).isEqualTo(25);
    assertThat(PolicyFlag.encode(c.policy()) & 0x70).isEqualTo(0x10);
    // elastic: the share is the weight, no ceiling; best-effort likewise
    SliceDevice elastic =
        new SliceDevice(
            new NpuRef(1, "U1"),
            new SliceShare.SoftQuota(1L << 30, 25, 0, Priority.NORMAL)
                .withPolicy(SharingPolicy.ELASTIC));
    RegionConfig e = RegionConfig.forSlice(List.of(elastic), "/reg");
    assertThat(e.policy())
        .contains(PolicyFlag.ELASTIC)
        .doesNotContain(PolicyFlag.HARD_CAP, PolicyFlag.FIXED_SHARE);
    assertThat(e.devices().get(0).computeCapPct()).isZero();
    assertThat(PolicyFlag.decode(0x40 | 0x3)).contains(PolicyFlag.BEST_EFFORT);
    // no policy: nothing of it in the region
    assertThat(
            RegionConfig.forSlice(List.of(soft(2, 1L << 30, 40, 40, Priority.NORMAL)), "")
                .sharingPolicy())
        .isEmpty();
    // one policy per slice
    assertThatThrownBy(
            () ->
                RegionConfig.forSlice(
                    List.of(
                        fixed,
                        new SliceDevice(
                            new NpuRef(2, "U2"),
                            new SliceShare.SoftQuota(1L << 30, 25, 0, Priority.NORMAL)
                                .withPolicy(SharingPolicy.BEST_EFFORT))),
                    ""))
        .hasMessageContaining("different sharing policies");
    assertThatThrownBy(
            () ->
                new RegionConfig(
                    List.of(DeviceQuota.memoryOnly(0)),
                    Set.of(PolicyFlag.ELASTIC, PolicyFlag.BEST_EFFORT),
                    ""))
        .hasMessageContaining("at most one sharing policy");
  }

  @Test
  void aNonSoftDeviceIsRefused() {
    assertThatThrownBy(
            () ->
                RegionConfig.forSlice(
                    List.of(
                        new SliceDevice(new NpuRef(0, "U0"), new SliceShare.HardTemplate("vir02"))),
                    ""))
        .hasMessage("device U0 has a HARD share, not a soft quota");
  }
}
