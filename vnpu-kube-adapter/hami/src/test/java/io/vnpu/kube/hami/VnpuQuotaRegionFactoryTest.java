package io.vnpu.kube.hami;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.model.Priority;
import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.RegionToCreate;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.kube.resource.VnpuQuotaRegionFactory;
import io.vnpu.quota.model.PolicyFlag;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The soft-split region is a real vnpu-quota region with per-device limits. */
class VnpuQuotaRegionFactoryTest {
  @TempDir
  Path dir;

  private final QuotaRegions regions = new QuotaRegions();

  @Test
  void writesOneEntryPerDeviceWithItsOwnLimits() throws Exception {
    Path file = dir.resolve("vnpu_local_shmem");
    new VnpuQuotaRegionFactory(regions).create(new RegionToCreate(file, List.of(
        soft(4, "U4", 16384L << 20, 40), soft(5, "U5", 8192L << 20, 0)), "/hami-shared-region"));
    try (QuotaRegion r = regions.open(file)) {
      RegionConfig c = r.readConfig();
      assertThat(c.devices()).containsExactly(
          new io.vnpu.quota.model.DeviceQuota(16384L << 20, 40, 0, Priority.NORMAL, 4, "U4"),
          new io.vnpu.quota.model.DeviceQuota(8192L << 20, 100, 0, Priority.NORMAL, 5, "U5"));
      assertThat(c.policy()).isEqualTo(Set.of(PolicyFlag.MEM_ENFORCE, PolicyFlag.COMPUTE_ENFORCE, PolicyFlag.COMPUTE_FAIL_OPEN));
      assertThat(c.registryDir()).isEqualTo("/hami-shared-region");
    }
  }

  @Test
  void memoryOnlyWhenNoPercentAndReplacesAStaleRegion() throws Exception {
    Path file = dir.resolve("vnpu_local_shmem");
    VnpuQuotaRegionFactory f = new VnpuQuotaRegionFactory(regions);
    f.create(new RegionToCreate(file, List.of(soft(0, "U0", 1L << 30, 0)), "/hami-shared-region"));
    f.create(new RegionToCreate(file, List.of(soft(0, "U0", 2L << 30, 0)), "/hami-shared-region"));
    try (QuotaRegion r = regions.open(file)) {
      assertThat(r.readConfig().devices().get(0).memLimitBytes()).isEqualTo(2L << 30);
      assertThat(r.readConfig().policy()).containsExactly(PolicyFlag.MEM_ENFORCE);
    }
    assertThat(Files.size(file)).isGreaterThan(8192);
  }

  @Test
  void tooManyDevicesIsAnIoErrorNamingTheFile() {
    Path file = dir.resolve("vnpu_local_shmem");
    List<SliceDevice> seventeen = java.util.stream.IntStream.range(0, 17)
        .mapToObj(i -> soft(i, "U" + i, 1, 0)).toList();
    assertThatThrownBy(() -> new VnpuQuotaRegionFactory(regions).create(new RegionToCreate(file, seventeen, "/r")))
        .isInstanceOf(IOException.class).hasMessageContaining(file.toString()).hasMessageContaining("1..16");
  }

  private static SliceDevice soft(int phyId, String uuid, long bytes, int weight) {
    return new SliceDevice(new NpuRef(phyId, uuid), new SliceShare.SoftQuota(bytes, weight, 0, Priority.NORMAL));
  }
}
