package io.vnpu.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs every JMH benchmark of this module once, in this JVM, for 100 ms (no warm-up), so that a
 * change that breaks a benchmark's setup or its code fails the build. The numbers are not looked at
 * beyond "a result exists": speed is measured by the full run (docs/benchmarks.md).
 */
class BenchmarkSmokeTest {

  /** Every benchmark method of the module, by its JMH name relative to io.vnpu.benchmarks. */
  private static final String[] EXPECTED = {
    "quota.QuotaRegionBenchmark.admitRelease",
    "quota.QuotaRegionBenchmark.admitReleaseTwoThreads",
    "quota.QuotaRegionBenchmark.admitReleaseFourThreads",
    "quota.QuotaRegionBenchmark.usageSnapshot",
    "quota.AdmitReleaseFloorBenchmark.fiveAtomicsVarHandle",
    "quota.AdmitReleaseFloorBenchmark.fiveAtomicsUnchecked",
    "quota.FullRegionSnapshotBenchmark.usageSnapshot256Slots",
    "quota.FullRegionSnapshotBenchmark.usageIntoBuffer256Slots",
    "quota.FullRegionSnapshotBenchmark.bareLoopOverTheMapping256Slots",
    "quota.FullRegionSnapshotBenchmark.bareLoopUnchecked256Slots",
    "quota.FullRegionSnapshotBenchmark.sizeCheckFloor",
    "quota.FullRegionSnapshotBenchmark.sizeCheckBareFstat",
    "quota.RegionLifecycleBenchmark.createRegion",
    "quota.RegionLifecycleBenchmark.openValidateRegion",
    "quota.QuotaRegionVsNativeBenchmark.admitReleaseAgainstNativeProcess",
    "deviceplugin.AllocateRoundTripBenchmark.allocateOneDevice",
    "hami.HamiCodecBenchmark.encodeRegisterAnnotation16Npus",
    "hami.HamiCodecBenchmark.decodeDevicesToAllocate",
    "dra.DraPrepareBenchmark.nodePrepareResources",
    "dra.DraPrepareBenchmark.checkpointWriteFloor",
    "dra.DraPrepareBenchmark.grpcRoundTrip",
    "dra.DraPrepareBenchmark.prepareInProcess",
    "dra.DraPrepareConcurrentBenchmark.nodePrepareResources",
    "dra.SlicePublishBenchmark.publish16Npus",
  };

  @Test
  void everyBenchmarkRunsOnceAndProducesAResult() throws RunnerException {
    Options opts =
        new OptionsBuilder()
            .include("io\\.vnpu\\.benchmarks\\..*")
            .forks(0)
            .warmupIterations(0)
            .measurementIterations(1)
            .measurementTime(TimeValue.milliseconds(100))
            .shouldFailOnError(true)
            // JMH's hundreds of progress lines go to a file, not into the build log
            .output("target/jmh-smoke.txt")
            .build();
    Collection<RunResult> results = new Runner(opts).run();

    Map<String, RunResult> byName = new TreeMap<>();
    for (RunResult r : results) {
      byName.put(r.getParams().getBenchmark().replace("io.vnpu.benchmarks.", ""), r);
    }
    assertThat(byName.keySet()).containsExactlyInAnyOrder(EXPECTED);
    for (Map.Entry<String, RunResult> e : byName.entrySet()) {
      var primary = e.getValue().getPrimaryResult();
      assertThat(primary.getSampleCount()).as(e.getKey() + " samples").isPositive();
      assertThat(primary.getScore()).as(e.getKey() + " score").isPositive().isFinite();
    }
  }
}
