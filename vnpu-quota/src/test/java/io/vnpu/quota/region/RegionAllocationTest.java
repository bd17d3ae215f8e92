package io.vnpu.quota.region;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.vnpu.quota.layout.RegionLayout;
import io.vnpu.quota.model.RegionConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regions are never sparse: every byte has its block when {@link QuotaRegions#create} returns, so a
 * tenant that fills the shared file system cannot make a store to a neighbour's region fault (issue
 * 23: SIGBUS in the limiter, {@link InternalError} in the agent).
 */
class RegionAllocationTest {
  @TempDir Path dir;

  private static String run(long timeoutSeconds, String... cmd)
      throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    assertThat(p.waitFor(timeoutSeconds, TimeUnit.SECONDS))
        .as("%s finished", String.join(" ", cmd))
        .isTrue();
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
        + "exit="
        + p.exitValue();
  }

  @Test
  void aCreatedRegionHasABlockForEveryByte() throws Exception {
    Path f = dir.resolve("r");
    new QuotaRegions().create(f, RegionConfig.memoryLimit(1, 1L << 30)).close();
    String[] st = run(10, "stat", "-c", "%b %B", f.toString()).split("\\s+");
    long allocated = Long.parseLong(st[0]) * Long.parseLong(st[1]);
    assertThat(allocated)
        .as("bytes with a block")
        .isGreaterThanOrEqualTo(RegionLayout.REGION_FILE_BYTES);
  }

  @Test
  void aFullFileSystemNeverFaultsARegionAndRefusesANewOneByName() throws Exception {
    assumeTrue(
        "root".equals(System.getProperty("user.name")), "needs root for a private mount namespace");
    assumeTrue(
        run(10, "unshare", "-m", "true").endsWith("exit=0"), "unshare -m not permitted here");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    // a 192 KiB tmpfs holds one region (136 KiB) and what the tenant writes after it
    String out =
        run(
            120,
            "unshare",
            "-m",
            "--propagation",
            "private",
            "sh",
            "-c",
            "mount -t tmpfs -o size=192k tmpfs \"$0\" && exec \"$1\" -cp \"$2\" "
                + FullFileSystemProbe.class.getName()
                + " \"$0\"",
            dir.toString(),
            java,
            System.getProperty("java.class.path"));
    assertThat(out)
        .contains("filled: No space left on device")
        .contains("victim admit=true used=0")
        .contains(
            "second refused: quota region "
                + dir.resolve("second")
                + ": cannot allocate "
                + RegionLayout.REGION_FILE_BYTES
                + " bytes: No space left on device")
        .contains("second exists=false")
        .doesNotContain("InternalError")
        .endsWith("exit=0");
  }
}
