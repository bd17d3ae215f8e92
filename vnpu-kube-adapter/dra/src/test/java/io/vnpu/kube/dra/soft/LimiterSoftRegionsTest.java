package io.vnpu.kube.dra.soft;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.model.Priority;
import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.RegionToCreate;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.kube.limiter.LimiterFiles;
import io.vnpu.quota.files.HostFiles;
import io.vnpu.quota.region.QuotaRegions;
import io.vnpu.quota.registry.ComputeRegistries;
import io.vnpu.quota.registry.ComputeRegistry;
import io.vnpu.quota.registry.RegistryEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A container can write its request's directory: a tree there that the clean-up cannot walk must
 * not keep the share's registration, fail the unprepare, or stop the sweep of the other directories.
 */
class LimiterSoftRegionsTest {
  @TempDir Path tmp;

  private long create(LimiterSoftRegions regions, Path dir) throws Exception {
    SliceDevice d = new SliceDevice(new NpuRef(1, "U1"), new SliceShare.SoftQuota(1L << 30, 30, 30, Priority.NORMAL));
    return regions.create(dir, new RegionToCreate(dir.resolve(SoftSlicing.REGION_FILE), List.of(d), "/vnpu-registry"),
        "demo/claim");
  }

  /** Trees deeper than the clean-up walks, several so that one is listed before the region. */
  private static void plantDeepTrees(Path dir) throws Exception {
    for (String top : List.of("a", "k", "q", "z", "0", "9", "M", "_")) {
      Path deep = dir.resolve(top);
      for (int i = 0; i <= HostFiles.MAX_DELETE_DEPTH; i++) deep = deep.resolve("d");
      Files.createDirectories(deep);
    }
  }

  private List<Long> keys(SoftSlicing layout) throws Exception {
    try (ComputeRegistry r = new ComputeRegistries().open(layout.registryDir().resolve("npu1.reg"))) {
      return r.entries().stream().map(RegistryEntry::key).toList();
    }
  }

  @Test
  void aDirectoryTheContainerMadeUnremovableLosesItsShareAndStopsNothing() throws Exception {
    SoftSlicing layout = SoftSlicing.inDataDir(tmp.resolve("data"), LimiterFiles.hami(tmp.resolve("limiter")), () -> { });
    try (LimiterSoftRegions regions = new LimiterSoftRegions(layout, new QuotaRegions())) {
      Path live = layout.regionDir("uid-live", "npu");
      long liveKey = create(regions, live);
      Path unprepared = layout.regionDir("uid-unprepared", "npu");
      long unpreparedKey = create(regions, unprepared);
      Path swept1 = layout.regionDir("uid-swept1", "npu");
      long swept1Key = create(regions, swept1);
      Path swept2 = layout.regionDir("uid-swept2", "npu");
      long swept2Key = create(regions, swept2);
      plantDeepTrees(unprepared);
      plantDeepTrees(swept1);

      regions.remove(unprepared, unpreparedKey); // no error: the share is gone, only the container's files stay
      assertThat(unprepared.resolve(SoftSlicing.REGION_FILE)).doesNotExist();
      assertThat(keys(layout)).containsExactlyInAnyOrder(liveKey, swept1Key, swept2Key);

      List<String> removed = regions.sweep(Set.of(live));
      assertThat(removed).contains(swept2.toString(), "npu1:" + Long.toHexString(swept1Key),
          "npu1:" + Long.toHexString(swept2Key));
      assertThat(swept2).doesNotExist();
      assertThat(keys(layout)).containsExactly(liveKey);
      assertThat(live.resolve(SoftSlicing.REGION_FILE)).isRegularFile();
    }
  }
}
