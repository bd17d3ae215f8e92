package io.vnpu.kube.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.vnpu.api.model.Priority;
import io.vnpu.kube.observe.ChargedRegion;
import io.vnpu.kube.observe.SliceRef;
import io.vnpu.quota.model.DeviceQuota;
import io.vnpu.quota.model.PolicyFlag;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.QuotaRegions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23: the metrics collection reads every slice's region on every scrape, and a tenant
 * controls what lies at its own region's path. A FIFO (an open of it would wait for a writer for
 * ever), a symbolic link or a directory there is an error for that one slice; the scrape returns at
 * once with the other slices' series.
 */
class SliceCollectorTenantFilesTest {
  @TempDir Path tmp;

  @Test
  void aFifoLinkOrDirectoryInPlaceOfARegionNeverStallsTheScrape() throws Exception {
    Path good = tmp.resolve("good/region");
    Files.createDirectories(good.getParent());
    RegionConfig config =
        new RegionConfig(
            List.of(new DeviceQuota(1L << 30, 1, 0, Priority.NORMAL, 0, "U0")),
            Set.of(PolicyFlag.MEM_ENFORCE),
            "");
    ChargedRegion charged;
    try (var r = new QuotaRegions().create(good, config)) {
      charged = ChargedRegion.agentMade(r.epoch(), config);
    }
    Path fifo = tmp.resolve("fifo");
    Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
    assertThat(mk.waitFor(10, TimeUnit.SECONDS)).isTrue();
    Path link = Files.createSymbolicLink(tmp.resolve("link"), good);
    Path dir = Files.createDirectory(tmp.resolve("dir"));
    List<SliceRef> slices =
        List.of(
            new SliceRef("ns", "fifo", "c", fifo, Optional.of(charged)),
            new SliceRef("ns", "link", "c", link, Optional.of(charged)),
            new SliceRef("ns", "dir", "c", dir, Optional.of(charged)),
            new SliceRef("ns", "good", "c", good, Optional.of(charged)));
    SliceCollector c =
        new SliceCollector("node", () -> slices, d -> Optional.empty(), Set.of(), System::nanoTime);
    long t0 = System.nanoTime();
    MetricSnapshots s = c.collect();
    assertThat((System.nanoTime() - t0) / 1_000_000).as("ms for one scrape").isLessThan(5_000);
    MetricSnapshot limit =
        s.stream()
            .filter(m -> m.getMetadata().getName().equals("vnpu_slice_memory_limit_bytes"))
            .findFirst()
            .orElseThrow();
    assertThat(limit.getDataPoints())
        .singleElement()
        .matches(p -> p.getLabels().get("pod").equals("good"));
  }
}
