package io.vnpu.kube.softslice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vnpu.api.model.Priority;
import io.vnpu.api.slice.ContainerEdits;
import io.vnpu.api.slice.Mount;
import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.kube.limiter.LimiterFiles;
import io.vnpu.kube.resource.QuotaRegionFactory;
import io.vnpu.quota.files.HostFiles;
import io.vnpu.quota.model.DeviceQuota;
import io.vnpu.quota.model.PolicyFlag;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import io.vnpu.quota.registry.ComputeRegistries;
import io.vnpu.quota.registry.ComputeRegistry;
import io.vnpu.quota.registry.RegistryEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one soft-slice mechanism on real regions and registries. */
class SoftSlicesTest {
  @TempDir Path tmp;

  private final QuotaRegions regions = new QuotaRegions();

  private SoftSlices slices(SoftSliceLayout layout) {
    return new SoftSlices(layout, QuotaRegionFactory.writing(regions), () -> {});
  }

  private static SliceDevice soft(int phyId, String uuid, long bytes, int weight, int cap) {
    return new SliceDevice(
        new NpuRef(phyId, uuid), new SliceShare.SoftQuota(bytes, weight, cap, Priority.NORMAL));
  }

  private List<Long> keys(SoftSliceLayout layout, int phy) throws Exception {
    if (!Files.exists(layout.registryHostDir().resolve("npu" + phy + ".reg"))) return List.of();
    try (ComputeRegistry r =
        new ComputeRegistries().open(layout.registryHostDir().resolve("npu" + phy + ".reg"))) {
      return r.entries().stream().map(RegistryEntry::key).toList();
    }
  }

  @Test
  void theDirectoryRuleRefusesWhatCouldLeaveOrHideInTheRoot() {
    SoftSliceLayout l = SoftSliceLayout.vnpu(tmp, LimiterFiles.hami(tmp.resolve("lim")));
    assertThat(l.dirOf("uid-1", "npu")).isEqualTo(tmp.resolve("regions").resolve("uid-1_npu"));
    for (String[] bad :
        new String[][] {
          {"", "npu"}, {"u", ""}, {"u/..", "x"}, {"u", "a/b"}, {"u\0", "x"}, {".u", "x"}
        }) {
      assertThatThrownBy(() -> l.dirOf(bad[0], bad[1]))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("do not make a directory name");
    }
    assertThat(SoftSliceLayout.ownerOf("uid-1_npu")).contains("uid-1");
    assertThat(SoftSliceLayout.nameOf("uid-1_npu")).contains("npu");
    assertThat(SoftSliceLayout.ownerOf("_npu")).isEmpty();
  }

  @Test
  void prepareWritesOneEntryPerDeviceRegistersOnceAndTheContainerGetsTheOneSetOfEdits()
      throws Exception {
    LimiterFiles limiter = LimiterFiles.hami(tmp.resolve("lim"));
    SoftSliceLayout layout = SoftSliceLayout.vnpu(tmp.resolve("data"), limiter);
    AtomicInteger configs = new AtomicInteger();
    QuotaRegionFactory counting =
        (region, config) -> {
          configs.incrementAndGet();
          return QuotaRegionFactory.writing(regions).create(region, config);
        };
    try (SoftSlices s = new SoftSlices(layout, counting, () -> {})) {
      Path dir = layout.dirOf("uid-a", "npu");
      SoftSlices.Prepared p =
          s.prepare(
              dir,
              List.of(soft(4, "U4", 16384L << 20, 40, 40), soft(5, "U5", 8192L << 20, 0, 0)),
              "demo/a");
      assertThat(configs).hasValue(1);
      try (QuotaRegion r = regions.open(p.region())) {
        RegionConfig c = r.readConfig();
        assertThat(c.devices())
            .containsExactly(
                new DeviceQuota(16384L << 20, 40, 40, Priority.NORMAL, 4, "U4"),
                new DeviceQuota(8192L << 20, 100, 0, Priority.NORMAL, 5, "U5"));
        assertThat(c.policy()).contains(PolicyFlag.MEM_ENFORCE, PolicyFlag.COMPUTE_ENFORCE);
        assertThat(c.registryDir()).isEqualTo(layout.registryHostDir().toString());
      }
      assertThat(keys(layout, 4)).containsExactly(p.key());
      assertThat(Files.getPosixFilePermissions(dir))
          .isEqualTo(PosixFilePermissions.fromString("rwxr-xr-x"));
      assertThat(Files.getPosixFilePermissions(layout.regionRoot()))
          .isEqualTo(PosixFilePermissions.fromString("rwx------"));

      ContainerEdits e = s.edits(p);
      assertThat(e.env())
          .containsExactly(
              Map.entry("NPU_LOCAL_SHM_PATH", "/vnpu-shmem/vnpu_local_shmem"),
              Map.entry("NPU_MEM_QUOTA", "16384"));
      assertThat(e.mounts())
          .containsExactly(
              new Mount("/hami-vnpu-core", limiter.hostDir().toString(), true),
              new Mount("/etc/ld.so.preload", limiter.preload().toString(), true),
              new Mount(
                  layout.registryHostDir().toString(), layout.registryHostDir().toString(), true),
              new Mount("/vnpu-shmem", dir.toString(), false));

      s.discard(p);
      assertThat(dir).doesNotExist();
      assertThat(keys(layout, 4)).isEmpty();
    }
  }

  @Test
  void hamiKeepsUpstreamsContainerPaths() {
    LimiterFiles limiter = LimiterFiles.hami(tmp.resolve("lim"));
    SoftSliceLayout h = SoftSliceLayout.hamiUpstream(tmp.resolve("hook"), limiter);
    assertThat(h.regionRoot()).isEqualTo(tmp.resolve("hook/containers"));
    assertThat(h.containerRegionFile()).isEqualTo("/hami-vnpu-shmem/vnpu_local_shmem");
    assertThat(h.mounts(tmp.resolve("hook/containers/u_c")))
        .extracting(Mount::containerPath)
        .containsExactly(
            "/hami-vnpu-core", "/etc/ld.so.preload", "/hami-shared-region", "/hami-vnpu-shmem");
  }

  @Test
  void aFailedRegionLeavesNothingAndTooManyDevicesNamesTheFile() throws Exception {
    SoftSliceLayout layout =
        SoftSliceLayout.vnpu(tmp.resolve("data"), LimiterFiles.hami(tmp.resolve("lim")));
    try (SoftSlices s =
        new SoftSlices(
            layout,
            (region, config) -> {
              throw new IOException("disk full");
            },
            () -> {})) {
      Path dir = layout.dirOf("uid-b", "npu");
      assertThatThrownBy(() -> s.prepare(dir, List.of(soft(1, "U1", 1L << 30, 10, 10)), "x"))
          .hasMessage("disk full");
      assertThat(dir).doesNotExist();
      assertThat(keys(layout, 1)).isEmpty();
    }
    try (SoftSlices s = slices(layout)) {
      List<SliceDevice> seventeen =
          IntStream.range(0, 17).mapToObj(i -> soft(i, "U" + i, 1L << 20, 0, 0)).toList();
      Path dir = layout.dirOf("uid-c", "npu");
      assertThatThrownBy(() -> s.prepare(dir, seventeen, "x"))
          .isInstanceOf(IOException.class)
          .hasMessageContaining(dir.resolve("vnpu_local_shmem").toString())
          .hasMessageContaining("1..16");
      assertThat(dir).doesNotExist();
    }
  }

  /** Trees deeper than the clean-up walks, several so that one is listed before the region. */
  private static void plantDeepTrees(Path dir) throws Exception {
    for (String top : List.of("a", "k", "q", "z", "0", "9", "M", "_")) {
      Path deep = dir.resolve(top);
      for (int i = 0; i <= HostFiles.MAX_DELETE_DEPTH; i++) deep = deep.resolve("d");
      Files.createDirectories(deep);
    }
  }

  // a container can write its own directory: a tree there that the clean-up cannot walk must not
  // keep
  // the slice's registration, fail the removal, or stop the sweep of the other directories
  @Test
  void aDirectoryTheContainerMadeUnremovableLosesItsShareAndStopsNothing() throws Exception {
    SoftSliceLayout layout =
        SoftSliceLayout.vnpu(tmp.resolve("data"), LimiterFiles.hami(tmp.resolve("lim")));
    try (SoftSlices s = slices(layout)) {
      List<SliceDevice> d = List.of(soft(1, "U1", 1L << 30, 30, 30));
      SoftSlices.Prepared live = s.prepare(layout.dirOf("uid-live", "npu"), d, "demo/claim");
      SoftSlices.Prepared unprepared =
          s.prepare(layout.dirOf("uid-unprepared", "npu"), d, "demo/claim");
      SoftSlices.Prepared swept1 = s.prepare(layout.dirOf("uid-swept1", "npu"), d, "demo/claim");
      SoftSlices.Prepared swept2 = s.prepare(layout.dirOf("uid-swept2", "npu"), d, "demo/claim");
      plantDeepTrees(unprepared.dir());
      plantDeepTrees(swept1.dir());

      s.remove(
          unprepared.dir(),
          unprepared.key()); // no error: the share is gone, only the container's files stay
      assertThat(unprepared.region()).doesNotExist();
      assertThat(keys(layout, 1)).containsExactlyInAnyOrder(live.key(), swept1.key(), swept2.key());

      List<String> removed = s.sweep(Set.of(live.dir())::contains);
      assertThat(removed)
          .contains(
              swept2.dir().toString(),
              "npu1:" + Long.toHexString(swept1.key()),
              "npu1:" + Long.toHexString(swept2.key()));
      assertThat(swept2.dir()).doesNotExist();
      assertThat(keys(layout, 1)).containsExactly(live.key());
      assertThat(live.region()).isRegularFile();
    }
  }

  @Test
  void finishedAndDeletedPodsLoseTheirSlicesAndTheSeriesSourceFollows() throws Exception {
    SoftSliceLayout layout =
        SoftSliceLayout.hamiUpstream(tmp.resolve("hook"), LimiterFiles.hami(tmp.resolve("lim")));
    try (SoftSlices s = slices(layout)) {
      List<SliceDevice> d = List.of(soft(2, "U2", 1L << 30, 10, 10));
      SoftSlices.Prepared running = s.prepare(layout.dirOf("p1", "main"), d, "ns/p1/main");
      SoftSlices.Prepared done = s.prepare(layout.dirOf("p2", "main"), d, "ns/p2/main");
      SoftSlices.Prepared gone = s.prepare(layout.dirOf("p3", "main"), d, "ns/p3/main");
      SoftSlices.Owners owners =
          dir ->
              SoftSliceLayout.ownerOf(dir)
                  .filter(u -> !u.equals("p3"))
                  .map(
                      u ->
                          new SoftSlices.Owner("ns", u, SoftSliceLayout.nameOf(dir).orElseThrow()));
      assertThat(s.slices(owners)).extracting(v -> v.pod()).containsExactly("p1", "p2");
      List<String> entries = s.entries();
      assertThat(s.removeFinished(entries, Map.of("p1", "Running", "p2", "Succeeded")))
          .containsExactlyInAnyOrder(done.dir(), gone.dir());
      assertThat(keys(layout, 2)).containsExactly(running.key());
      assertThat(s.slices(owners)).extracting(v -> v.pod()).containsExactly("p1");
    }
  }

  /**
   * Issue 23: the region is its container's to rewrite, so what a slice was charged is kept where
   * no container reaches (the region root is never mounted whole), read back for the metrics with
   * each slice, survives a new instance (agent restart) and goes with the slice.
   */
  @Test
  void theChargeRecordOutlivesTheAgentIgnoresTheRegionAndGoesWithTheSlice() throws Exception {
    SoftSliceLayout layout =
        SoftSliceLayout.hamiUpstream(tmp.resolve("hook"), LimiterFiles.hami(tmp.resolve("lim")));
    SoftSlices.Owners owners =
        dir ->
            SoftSliceLayout.ownerOf(dir)
                .map(u -> new SoftSlices.Owner("ns", u, SoftSliceLayout.nameOf(dir).orElseThrow()));
    List<SliceDevice> d = List.of(soft(2, "U2", 1L << 30, 10, 10), soft(3, "U3", 2L << 30, 0, 0));
    SoftSlices.Prepared kept;
    SoftSlices.Prepared removed;
    try (SoftSlices s = slices(layout)) {
      kept = s.prepare(layout.dirOf("p1", "main"), d, "ns/p1/main");
      removed = s.prepare(layout.dirOf("p2", "main"), d, "ns/p2/main");
    }
    RegionConfig written;
    try (QuotaRegion r = regions.open(kept.region())) {
      written = r.readConfig();
      // the tenant raises its own limit and weight and moves itself to another NPU
      r.updateConfig(
          written.withDevices(
              List.of(
                  new DeviceQuota(64L << 30, 10000, 0, Priority.HIGH, 7, "U7"),
                  new DeviceQuota(64L << 30, 10000, 0, Priority.HIGH, 7, "U7"))));
    }
    Path records = layout.regionRoot().resolve(ChargeRecords.DIR);
    assertThat(Files.getPosixFilePermissions(records))
        .isEqualTo(PosixFilePermissions.fromString("rwx------"));
    assertThat(Files.getPosixFilePermissions(records.resolve("p1_main.json")))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    try (SoftSlices again = slices(layout)) {
      // the records' directory is no slice: not listed, swept or removed as one
      assertThat(again.entries()).containsExactlyInAnyOrder("p1_main", "p2_main");
      List<io.vnpu.kube.observe.SliceRef> refs = again.slices(owners);
      assertThat(refs).extracting(v -> v.pod()).containsExactly("p1", "p2");
      io.vnpu.kube.observe.ChargedRegion c = refs.get(0).charged().orElseThrow();
      assertThat(c.key()).hasValue(kept.key());
      assertThat(c.config()).isEqualTo(written);
      assertThat(c.config().devices().get(0).memLimitBytes()).isEqualTo(1L << 30);

      again.remove(removed.dir(), removed.key());
      assertThat(records.resolve("p2_main.json")).doesNotExist();
      // a record whose directory is gone (an agent killed between the two) goes with the sweep
      Files.writeString(records.resolve("p9_main.json"), "{}");
      assertThat(again.sweep(p -> true)).contains(records.resolve("p9_main.json").toString());
      assertThat(records).isDirectory();
      assertThat(records.resolve("p1_main.json")).isRegularFile();
      assertThat(again.removeFinished(again.entries(), Map.of())).containsExactly(kept.dir());
      assertThat(records.resolve("p1_main.json")).doesNotExist();
    }
  }

  /**
   * A region the limiter makes itself (HAMi with upstream hami-vnpu-core): the agent records what
   * it charged ({@code "key":0}, no epoch known), read back as such; against the table the limiter
   * writes from its environment (16 devices, no phy IDs or UUIDs, its own weight and policy) only
   * the memory limits count, so an honest region disagrees in nothing and a raised limit in {@code
   * memory_limit} only.
   */
  @Test
  void aRegionTheLimiterMakesHasTheChargeRecordedAndOnlyItsLimitsCompared() throws Exception {
    SoftSliceLayout layout =
        SoftSliceLayout.hamiUpstream(tmp.resolve("hook"), LimiterFiles.hami(tmp.resolve("lim")));
    Path dir = layout.dirOf("p1", "main");
    List<SliceDevice> d = List.of(soft(4, "U4", 1L << 30, 40, 40), soft(5, "U5", 2L << 30, 40, 40));
    try (SoftSlices s = slices(layout)) {
      s.prepareForLimiter(
          dir,
          new io.vnpu.api.slice.RegionToCreate(
              dir.resolve(LimiterFiles.REGION_FILE), d, layout.containerRegistryDir()));
      assertThat(Files.getPosixFilePermissions(dir))
          .isEqualTo(PosixFilePermissions.fromString("rwxrwxrwx"));
      assertThat(dir.resolve(LimiterFiles.REGION_FILE)).doesNotExist(); // the limiter's to make
      Path f = layout.regionRoot().resolve(ChargeRecords.DIR).resolve("p1_main.json");
      assertThat(Files.readString(f))
          .startsWith("{\"version\":1,\"key\":0,")
          .contains("\"memLimitBytes\":1073741824", "\"physId\":4", "\"uuid\":\"U5\"");
      io.vnpu.kube.observe.ChargedRegion c = s.charged("p1_main").orElseThrow();
      assertThat(c.key()).isEmpty();
      assertThat(c.config()).isEqualTo(RegionConfig.forSlice(d, layout.containerRegistryDir()));

      // the limiter's own region: every device at NPU_MEM_QUOTA (the first device's), no IDs
      java.util.function.LongFunction<RegionConfig> limiterTable =
          bytes ->
              new RegionConfig(
                  java.util.Collections.nCopies(
                      16, new DeviceQuota(bytes, 100, 0, Priority.NORMAL, -1, "")),
                  Set.of(PolicyFlag.MEM_ENFORCE),
                  "");
      RegionConfig honest =
          limiterTable
              .apply(1L << 30)
              .withDevices(
                  IntStream.range(0, 16)
                      .mapToObj(
                          i ->
                              new DeviceQuota(
                                  i == 1 ? 2L << 30 : 1L << 30, 100, 0, Priority.NORMAL, -1, ""))
                      .toList());
      Path region = dir.resolve(LimiterFiles.REGION_FILE);
      regions.create(region, honest).close();
      try (QuotaRegion r = regions.open(region)) {
        assertThat(c.disagreements(r.readConfig(), r.usage(), r.epoch())).isEmpty();
        r.updateConfig(limiterTable.apply(64L << 30));
        assertThat(c.disagreements(r.readConfig(), r.usage(), r.epoch()))
            .containsExactly(Map.entry("memory_limit", 2));
      }
      regions.create(tmp.resolve("short"), RegionConfig.memoryLimit(1, 1L << 30)).close();
      try (QuotaRegion r = regions.open(tmp.resolve("short"))) {
        assertThat(c.disagreements(r.readConfig(), r.usage(), r.epoch()))
            .containsOnlyKeys("device_count");
      }
      assertThat(s.discardForLimiter(dir)).isTrue();
      assertThat(dir).doesNotExist();
      assertThat(f).doesNotExist();
    }
  }

  @Test
  void anUnreadableRecordIsNoChargeAndNamesItsFile() throws Exception {
    SoftSliceLayout layout =
        SoftSliceLayout.hamiUpstream(tmp.resolve("hook"), LimiterFiles.hami(tmp.resolve("lim")));
    try (SoftSlices s = slices(layout)) {
      s.prepare(layout.dirOf("p1", "main"), List.of(soft(2, "U2", 1L << 30, 10, 10)), "ns/p1/main");
      Path f = layout.regionRoot().resolve(ChargeRecords.DIR).resolve("p1_main.json");
      Files.writeString(
          f,
          "{\"version\":1,\"key\":5,\"policyFlags\":1,\"registryDir\":\"\","
              + "\"devices\":[{\"memLimitBytes\":1,\"computeWeight\":0,\"computeCapPct\":0,"
              + "\"priority\":\"NORMAL\",\"physId\":0,\"uuid\":\"\"}]}");
      assertThatThrownBy(() -> new ChargeRecords(layout.regionRoot()).read("p1_main"))
          .isInstanceOf(IOException.class)
          .hasMessageContaining(f.toString())
          .hasMessageContaining("computeWeight");
      assertThat(s.charged("p1_main")).isEmpty();
    }
  }
}
