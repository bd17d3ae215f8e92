package io.vnpu.kube.cli.top;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.model.Priority;
import io.vnpu.api.slice.NpuRef;
import io.vnpu.api.slice.SliceDevice;
import io.vnpu.api.slice.SliceShare;
import io.vnpu.kube.limiter.LimiterFiles;
import io.vnpu.kube.resource.QuotaRegionFactory;
import io.vnpu.kube.softslice.SoftSliceLayout;
import io.vnpu.kube.softslice.SoftSlices;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vnpu top} sees the Kubernetes soft slices: slices made by the one soft-slice mechanism the
 * HAMi, MindCluster and DRA agents use, in HAMi's layout and in this project's, appear with their
 * registry names, charged limits and use, and disappear when the mechanism removes them.
 */
class KubeSliceScannerTest {
  private static final long MIB = 1L << 20;

  @TempDir Path tmp;

  private static SliceDevice soft(int phy, long bytes, int weight, int cap) {
    return new SliceDevice(
        new NpuRef(phy, "U" + phy), new SliceShare.SoftQuota(bytes, weight, cap, Priority.NORMAL));
  }

  @Test
  void kubernetesSlicesOfEveryLayoutAppearWithTheirChargeAndGoWithTheirSlice() throws Exception {
    LimiterFiles limiter = LimiterFiles.hami(tmp.resolve("lim"));
    Path hook = tmp.resolve("hami");
    Path dra = tmp.resolve("dra");
    SoftSliceLayout hamiLayout = SoftSliceLayout.hamiUpstream(hook, limiter);
    SoftSliceLayout draLayout = SoftSliceLayout.vnpu(dra, limiter);
    QuotaRegions regions = new QuotaRegions();
    StringWriter err = new StringWriter();
    try (SoftSlices hami =
            new SoftSlices(hamiLayout, QuotaRegionFactory.writing(regions), () -> {});
        SoftSlices draSlices =
            new SoftSlices(draLayout, QuotaRegionFactory.writing(regions), () -> {})) {
      SoftSlices.Prepared train =
          hami.prepare(
              hamiLayout.dirOf("pod-uid-1", "main"),
              List.of(soft(4, 1024 * MIB, 40, 40)),
              "default/train/main");
      SoftSlices.Prepared claim =
          draSlices.prepare(
              draLayout.dirOf("claim-uid-1", "npu"),
              List.of(soft(4, 4096 * MIB, 25, 25), soft(5, 2048 * MIB, 10, 10)),
              "demo/infer/npu");
      SoftSlices.Prepared mem =
          draSlices.prepare(
              draLayout.dirOf("claim-uid-2", "npu"),
              List.of(soft(5, 512 * MIB, 100, 0)),
              "demo/mem/npu");
      long[] nanos = {1_000_000_000L};
      KubeSliceScanner scanner =
          new KubeSliceScanner(
              List.of(hook, dra, tmp.resolve("absent")),
              Map.of(4, 0, 5, 1),
              regions,
              () -> nanos[0],
              new PrintWriter(err, true));
      try (QuotaRegion workload =
          new QuotaRegions().open(train.region())) { // the workload's own instance
        assertThat(workload.memoryAccount().admit(0, 768 * MIB)).isTrue();
        List<SliceStatus> first = TargetShares.apply(scanner.scan());
        assertThat(first)
            .extracting(SliceStatus::name)
            .containsExactlyInAnyOrder(
                "default/train/main", "demo/infer/npu#0", "demo/infer/npu#1", "demo/mem/npu");
        SliceStatus t =
            first.stream()
                .filter(s -> s.name().equals("default/train/main"))
                .findFirst()
                .orElseThrow();
        assertThat(t.logicId()).isZero();
        assertThat(t.memoryLimitBytes()).isEqualTo(1024 * MIB);
        assertThat(t.memoryUsedBytes()).isEqualTo(768 * MIB);
        assertThat(t.weight()).isEqualTo(40);
        assertThat(t.capPct()).isEqualTo(40);
        assertThat(t.processes())
            .singleElement()
            .satisfies(
                p -> {
                  assertThat(p.memoryUsedBytes()).isEqualTo(768 * MIB);
                  assertThat(p.command()).isEmpty(); // its PID is the container's
                });
        SliceStatus c1 =
            first.stream()
                .filter(s -> s.name().equals("demo/infer/npu#1"))
                .findFirst()
                .orElseThrow();
        assertThat(c1.logicId()).isEqualTo(1);
        assertThat(c1.memoryLimitBytes()).isEqualTo(2048 * MIB);
        assertThat(c1.capPct()).isEqualTo(10);
        assertThat(
                first.stream()
                    .filter(s -> s.name().equals("demo/mem/npu"))
                    .findFirst()
                    .orElseThrow()
                    .memoryLimitBytes())
            .isEqualTo(512 * MIB);
        nanos[0] += 1_000_000_000L;
        assertThat(scanner.scan())
            .filteredOn(s -> s.name().equals("default/train/main"))
            .singleElement()
            .extracting(SliceStatus::achievedSharePct)
            .isEqualTo(0.0);
        String screen =
            new TopRenderer(ZoneOffset.UTC)
                .render(new HostSnapshot(Instant.EPOCH, "/x", false, first));
        assertThat(screen).contains("768.0 MiB/1.0 GiB").contains("cap 40%");
      }

      hami.remove(train.dir(), train.key());
      draSlices.remove(claim.dir(), claim.key());
      assertThat(scanner.scan()).extracting(SliceStatus::name).containsExactly("demo/mem/npu");
      draSlices.remove(mem.dir(), mem.key());
      assertThat(scanner.scan()).isEmpty();
    }
    assertThat(err.toString()).isEmpty();
  }

  /**
   * Issue 23: a container rewrites its own region; {@code vnpu top} shows what the agent charged
   * it, and says once that the region disagrees.
   */
  @Test
  void aLimitTheContainerWritesIntoItsRegionIsNotShown() throws Exception {
    LimiterFiles limiter = LimiterFiles.hami(tmp.resolve("lim"));
    Path dra = tmp.resolve("dra");
    SoftSliceLayout layout = SoftSliceLayout.vnpu(dra, limiter);
    QuotaRegions regions = new QuotaRegions();
    StringWriter err = new StringWriter();
    try (SoftSlices slices =
        new SoftSlices(layout, QuotaRegionFactory.writing(regions), () -> {})) {
      SoftSlices.Prepared p =
          slices.prepare(
              layout.dirOf("claim-uid-1", "npu"),
              List.of(soft(4, 1024 * MIB, 100, 0)),
              "demo/mem/npu");
      try (QuotaRegion tenant = regions.open(p.region())) {
        var c = tenant.readConfig();
        var q = c.devices().get(0);
        tenant.updateConfig(
            c.withDevices(
                List.of(
                    new io.vnpu.quota.model.DeviceQuota(
                        64L << 30, q.computeWeight(), q.computeCapPct(), q.priority(), 5, "U5"))));
      }
      KubeSliceScanner scanner =
          new KubeSliceScanner(
              List.of(dra),
              Map.of(4, 0, 5, 1),
              regions,
              System::nanoTime,
              new PrintWriter(err, true));
      for (int i = 0; i < 2; i++) {
        assertThat(scanner.scan())
            .singleElement()
            .satisfies(
                s -> {
                  assertThat(s.memoryLimitBytes()).isEqualTo(1024 * MIB);
                  assertThat(s.logicId()).isZero();
                });
      }
    }
    assertThat(err.toString().lines())
        .singleElement()
        .asString()
        .contains("claim-uid-1_npu")
        .contains("disagrees with the agent's record in memory_limit, phy_id, uuid");
  }

  @Test
  void aFifoInPlaceOfARegionIsSkippedWithoutBlocking() throws Exception {
    Path dra = tmp.resolve("dra");
    Path dir = Files.createDirectories(dra.resolve("regions/uid_npu"));
    new ProcessBuilder("mkfifo", dir.resolve(LimiterFiles.REGION_FILE).toString())
        .start()
        .waitFor();
    StringWriter err = new StringWriter();
    KubeSliceScanner scanner =
        new KubeSliceScanner(
            List.of(dra),
            Map.of(),
            new QuotaRegions(),
            System::nanoTime,
            new PrintWriter(err, true));
    assertThat(scanner.scan()).isEmpty();
  }
}
