package io.vnpu.quota.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import io.vnpu.api.model.Priority;
import io.vnpu.quota.NativeDir;
import io.vnpu.quota.layout.RegistryLayout;
import io.vnpu.quota.model.DeviceQuota;
import io.vnpu.quota.model.PolicyFlag;
import io.vnpu.quota.model.RegionConfig;
import io.vnpu.quota.region.QuotaRegion;
import io.vnpu.quota.region.QuotaRegions;
import io.vnpu.quota.registry.AchievedShare;
import io.vnpu.quota.registry.ComputeRegistries;
import io.vnpu.quota.registry.ComputeRegistry;
import io.vnpu.quota.registry.RegistryEntry;
import io.vnpu.quota.registry.RegistryMember;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node agent's path for the AI-core share: Java creates the NPU's compute registry and the
 * container's quota region (registry directory, phy ID, cap, COMPUTE_ENFORCE) and pre-registers the
 * container; libvnpu.so preloaded into npu-burn on the simulated runtime joins that entry and holds
 * the cap; Java reads the achieved share back from the registry.
 */
class ComputeEndToEndTest {
  @TempDir Path dir;

  private static long groundTruthBusyNs(Path simRoot, long pid) throws Exception {
    ProcessBuilder p =
        new ProcessBuilder(
                NativeDir.program("cann-sim-busy").toString(),
                "--pid",
                Long.toString(pid),
                "--device",
                "0")
            .redirectErrorStream(true);
    p.environment().put("VNPU_SIM_ROOT", simRoot.toString());
    Process proc = p.start();
    String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(proc.waitFor()).as(out).isZero();
    for (String line : out.split("\n")) {
      if (line.startsWith("busy ")) return Long.parseLong(field(line, "busy_ns"));
    }
    throw new AssertionError("no busy line for pid " + pid + ": " + out);
  }

  private static String field(String line, String key) {
    for (String kv : line.split(" ")) {
      if (kv.startsWith(key + "=")) return kv.substring(key.length() + 1);
    }
    throw new AssertionError("no " + key + " in " + line);
  }

  @Test
  void capWrittenByJavaIsEnforcedAndTheShareIsReadBack() throws Exception {
    Path regDir = dir.resolve("registry");
    java.nio.file.Files.createDirectories(regDir);
    Path simRoot = dir.resolve("host");
    Path regionFile = dir.resolve("pod-a_main").resolve("vnpu_local_shmem");
    java.nio.file.Files.createDirectories(regionFile.getParent());

    try (ComputeRegistry registry =
        new ComputeRegistries().createOrOpen(regDir.resolve(RegistryLayout.fileName(0)), 0)) {
      long key;
      QuotaRegions regions = new QuotaRegions();
      try (QuotaRegion region =
          regions.create(
              regionFile,
              new RegionConfig(
                  List.of(new DeviceQuota(0, 1, 25, Priority.NORMAL, 0, "")),
                  Set.of(PolicyFlag.MEM_ENFORCE, PolicyFlag.COMPUTE_ENFORCE),
                  regDir.toString()))) {
        key = region.epoch();
      }
      int pinned =
          registry.register(
              new RegistryMember(key, "pod-a/main", 1, 25, Priority.NORMAL, regionFile));
      List<RegistryEntry> before = registry.entries();
      long t0 = System.nanoTime();

      NpuBurn.Result r =
          new NpuBurn(simRoot)
              .env("NPU_LOCAL_SHM_PATH", regionFile.toString())
              .run("launch", "1000", "300");
      long elapsed = System.nanoTime() - t0;
      assertThat(r.exit()).as(String.join("\n", r.err())).isZero();
      // every launch entry point of the simulated runtime is hooked: the limiter says nothing
      assertThat(r.err()).filteredOn(l -> l.startsWith("vnpu:")).isEmpty();
      String line =
          r.out().stream().filter(l -> l.startsWith("launch done")).findFirst().orElseThrow();

      // ground truth: device time of the process over its wall time
      double share =
          (double) groundTruthBusyNs(simRoot, Long.parseLong(field(line, "pid")))
              / Long.parseLong(field(line, "wall_ns"));
      assertThat(share).isBetween(0.20, 0.30);

      // the limiter published what it did into its own region; the agent reads it through the link
      List<RegistryEntry> after = registry.entries();
      assertThat(after).hasSize(1);
      RegistryEntry e = after.get(0);
      assertThat(e.index()).isEqualTo(pinned);
      assertThat(e.pinned()).isTrue();
      assertThat(e.live()).isFalse(); // the process exited: its slot was released
      assertThat(e.launches()).isEqualTo(300);
      assertThat(e.launchesBySymbol()).containsEntry("rtLaunchKernelByFuncHandleV3", 300L);
      assertThat(e.sharePpm()).isEqualTo(250_000);
      assertThat(e.costNs()).isBetween(1_000_000L, 1_100_000L);
      assertThat(e.throttledNs()).isGreaterThan(500_000_000L);

      // the share Java computes from the registry (estimated device time) agrees with the ground
      // truth
      AchievedShare s = AchievedShare.between(before, after, elapsed).get(0);
      assertThat(s.launches()).isEqualTo(300);
      assertThat(s.share() * elapsed / 1e9).as("estimated device seconds").isBetween(0.29, 0.33);
    }
  }
}
